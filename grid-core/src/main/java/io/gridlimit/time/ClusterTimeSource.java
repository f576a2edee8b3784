package io.gridlimit.time;

import com.hazelcast.cluster.Cluster;
import com.hazelcast.core.HazelcastInstance;
import java.util.Objects;

/**
 * The production {@link TimeSource} of a Hazelcast member: {@link Cluster#getClusterTime()} (epoch milliseconds
 * that the members agree on) scaled to nanoseconds, saturating at {@link Long#MAX_VALUE} or
 * {@link Long#MIN_VALUE} (SPEC §2).
 *
 * <p>Readings have millisecond resolution: decisions within one millisecond see the same {@code nowNanos}.
 * Cluster time may step backwards when the cluster corrects a member's offset; the algorithms rebase on a step
 * back (SPEC §2). Immutable and thread-safe.
 */
public final class ClusterTimeSource implements TimeSource {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final Cluster cluster;

    /**
     * Creates a time source reading the given cluster's time.
     *
     * @param cluster the cluster of the member (or client) whose time is read
     * @throws NullPointerException if {@code cluster} is null
     */
    public ClusterTimeSource(Cluster cluster) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
    }

    /**
     * Creates a time source reading the cluster time of the given instance.
     *
     * @param instance a member
     * @return a new time source, never null
     * @throws NullPointerException if {@code instance} is null
     */
    public static ClusterTimeSource of(HazelcastInstance instance) {
        return new ClusterTimeSource(Objects.requireNonNull(instance, "instance").getCluster());
    }

    /**
     * Reads the cluster time.
     *
     * @return nanoseconds since 1970-01-01T00:00Z, in steps of 1 000 000; saturating at the bounds of a
     *     {@code long}
     */
    @Override
    public long nowNanos() {
        return millisToNanos(cluster.getClusterTime());
    }

    /**
     * Scales milliseconds to nanoseconds, saturating.
     *
     * @param millis a time in milliseconds
     * @return {@code millis * 1 000 000}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} when that overflows
     */
    static long millisToNanos(long millis) {
        if (millis > Long.MAX_VALUE / NANOS_PER_MILLI) {
            return Long.MAX_VALUE;
        }
        if (millis < Long.MIN_VALUE / NANOS_PER_MILLI) {
            return Long.MIN_VALUE;
        }
        return millis * NANOS_PER_MILLI;
    }

    @Override
    public String toString() {
        return "ClusterTimeSource";
    }
}
