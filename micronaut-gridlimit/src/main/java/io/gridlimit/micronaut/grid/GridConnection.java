package io.gridlimit.micronaut.grid;

import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import jakarta.inject.Singleton;

/**
 * Whether the application's Hazelcast client is connected to its cluster, from the client's lifecycle events
 * ({@code CLIENT_CONNECTED} / {@code CLIENT_DISCONNECTED}, and {@code SHUTTING_DOWN}/{@code SHUTDOWN} as
 * disconnected). {@link GridFactory} registers it in the client configuration before the client starts, so the
 * first connection is never missed. A client's member list ({@code getCluster().getMembers()}) keeps its last
 * view for a while after the connection drops; readiness reads this instead. Unused by an embedded member
 * ({@link #tracked()} stays false). Thread-safe.
 */
@Singleton
public class GridConnection implements LifecycleListener {
    private volatile boolean tracked;
    private volatile boolean connected;

    /** Marks this state as fed by the application's client (called by {@link GridFactory} before it starts). */
    void track() {
        tracked = true;
    }

    /** @return whether a client of this application reports its connection state here */
    public boolean tracked() {
        return tracked;
    }

    /** @return whether the client is connected to the cluster (false before the first connection) */
    public boolean connected() {
        return connected;
    }

    @Override
    public void stateChanged(LifecycleEvent event) {
        switch (event.getState()) {
            case CLIENT_CONNECTED -> connected = true;
            case CLIENT_DISCONNECTED, SHUTTING_DOWN, SHUTDOWN -> connected = false;
            default -> {
                // STARTING, STARTED, MERGING...: no change of connection
            }
        }
    }
}
