package io.gridlimit.micronaut.grid;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.time.ClusterTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.BeanProvider;

/**
 * The default {@link TimeSource} bean: Hazelcast cluster time of the application's {@link HazelcastInstance}
 * (SPEC §2), resolved on first reading. Embedded members do not read it: {@link GridFactory} leaves them on their
 * own {@link ClusterTimeSource}; it serves code that wants the grid's clock. Replace the {@code TimeSource} bean
 * ({@code @Replaces(TimeSource.class)}, e.g. with a {@link io.gridlimit.time.ManualTimeSource}) and the embedded
 * member's decisions read the replacement instead. Thread-safe.
 */
public final class GridTimeSource implements TimeSource {
    private final BeanProvider<HazelcastInstance> instance;
    private volatile TimeSource delegate;

    /** @param instance the application's Hazelcast instance, resolved lazily */
    public GridTimeSource(BeanProvider<HazelcastInstance> instance) {
        this.instance = instance;
    }

    /**
     * Reads the cluster time.
     *
     * @return epoch nanoseconds, in steps of 1 ms
     */
    @Override
    public long nowNanos() {
        TimeSource d = delegate;
        if (d == null) {
            d = ClusterTimeSource.of(instance.get());
            delegate = d;
        }
        return d.nowNanos();
    }

    @Override
    public String toString() {
        return "GridTimeSource(cluster time)";
    }
}
