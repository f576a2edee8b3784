package io.gridlimit.grid.wire;

import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal to grid-core: not API; public because Hazelcast creates it by class name, from the listener configuration
 * {@link WireFormat#advertise} adds.
 *
 * <p>Keeps {@link WireFormat#writeFormat()} at the lowest format every member advertises, for every running member
 * and client of this JVM configured through {@link io.gridlimit.grid.GridLimitHazelcast}, and
 * {@link WireFormat#reservations()} at whether every member reads the reservation types (registered there by class
 * name, so each instance gets its own). On every membership change it recomputes its own view
 * ({@link WireFormat#lowestAdvertised}) and then the JVM's: the lowest view of the live listeners (those of shut
 * down instances are dropped). Membership events are rare; the hot path reads only the result, a volatile.
 * Thread-safe.
 */
public final class WireFormatListener implements InitialMembershipListener, LifecycleListener,
        HazelcastInstanceAware {
    private static final Set<WireFormatListener> LIVE = ConcurrentHashMap.newKeySet();

    private volatile HazelcastInstance instance;
    private volatile int view = WireFormat.UNVERSIONED;
    private volatile boolean reservationsView;
    private volatile boolean leasesView;
    /** Set once the instance was seen running: only then does "not running" mean it has stopped. */
    private volatile boolean seenRunning;

    /** Created by Hazelcast from the listener configuration {@link WireFormat#advertise} adds. */
    public WireFormatListener() {
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public void init(InitialMembershipEvent event) {
        reservationsView = WireFormat.allReadReservations(event.getMembers());
        leasesView = WireFormat.allReadLeases(event.getMembers());
        update(WireFormat.lowestAdvertised(event.getMembers()));
    }

    @Override
    public void memberAdded(MembershipEvent event) {
        reservationsView = WireFormat.allReadReservations(event.getMembers());
        leasesView = WireFormat.allReadLeases(event.getMembers());
        update(WireFormat.lowestAdvertised(event.getMembers()));
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
        reservationsView = WireFormat.allReadReservations(event.getMembers());
        leasesView = WireFormat.allReadLeases(event.getMembers());
        update(WireFormat.lowestAdvertised(event.getMembers()));
    }

    @Override
    public void stateChanged(LifecycleEvent event) {
        if (event.getState() == LifecycleEvent.LifecycleState.SHUTTING_DOWN
                || event.getState() == LifecycleEvent.LifecycleState.SHUTDOWN) {
            LIVE.remove(this);
            recompute();
        }
    }

    /** @return this instance's view: the lowest format its cluster's members advertise */
    int view() {
        return view;
    }

    private void update(int lowest) {
        view = lowest;
        HazelcastInstance i = instance;
        seenRunning |= i != null && i.getLifecycleService().isRunning();
        LIVE.add(this);
        recompute();
    }

    private static synchronized void recompute() {
        int lowest = Integer.MAX_VALUE;
        boolean reservations = true;
        boolean leases = true;
        for (WireFormatListener l : LIVE) {
            HazelcastInstance i = l.instance;
            if (l.seenRunning && !i.getLifecycleService().isRunning()) {
                LIVE.remove(l);
            } else {
                lowest = Math.min(lowest, l.view);
                reservations &= l.reservationsView;
                leases &= l.leasesView;
            }
        }
        WireFormat.setReservations(reservations && lowest != Integer.MAX_VALUE);
        WireFormat.setLeases(leases && reservations && lowest != Integer.MAX_VALUE);
        WireFormat.setWriteFormat((byte) (lowest == Integer.MAX_VALUE ? WireFormat.UNVERSIONED
                : Math.min(lowest, WireFormat.CURRENT)));
    }
}
