package io.gridlimit.grid;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The member's count of lost limiter state ({@code gridlimit.state.lost}, SPEC §8): states evicted at the
 * per-member bound before they were fresh, and entries lost with a partition whose every replica died. A reset
 * key answers as a fresh one, so operators need this count to tell a reset from a new window. Plain Java counters;
 * a metrics binding (Micrometer in the service) reads them.
 *
 * <p>One instance per member, in the member's {@code Config} user context under {@link #USER_CONTEXT_KEY};
 * {@link StateLossListener} updates it. Monotonic from member start. Thread-safe.
 */
public final class StateLoss {
    /** Key under which a member's {@code Config} user context holds its counters. */
    public static final String USER_CONTEXT_KEY = "io.gridlimit.grid.StateLoss";

    private final LongAdder evictedNotFresh = new LongAdder();
    private final LongAdder evictedFresh = new LongAdder();
    private final LongAdder partitionsLost = new LongAdder();
    private final LongAdder entriesLostWithPartitions = new LongAdder();

    /** Creates zeroed counters (usually reached through {@link #of(HazelcastInstance)} instead). */
    public StateLoss() {
    }

    /**
     * Returns the counters of a member, creating them on first use.
     *
     * @param member a running member
     * @return the member's counters, never null
     * @throws NullPointerException if {@code member} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static StateLoss of(HazelcastInstance member) {
        return of(Objects.requireNonNull(member, "member").getConfig().getUserContext());
    }

    /**
     * Returns the counters a member started from {@code config} will use, creating them if absent.
     *
     * @param config a member configuration
     * @return the counters, never null
     * @throws NullPointerException if {@code config} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static StateLoss of(Config config) {
        return of(Objects.requireNonNull(config, "config").getUserContext());
    }

    private static StateLoss of(ConcurrentMap<String, Object> context) {
        Object found = context.get(USER_CONTEXT_KEY);
        if (found == null) {
            found = context.computeIfAbsent(USER_CONTEXT_KEY, k -> new StateLoss());
        }
        if (found instanceof StateLoss loss) {
            return loss;
        }
        throw new IllegalStateException("the user context entry " + USER_CONTEXT_KEY + " holds a "
                + found.getClass().getName() + ", not a StateLoss");
    }

    /**
     * The value of {@code gridlimit.state.lost}: {@link #evictedNotFresh()} plus
     * {@link #entriesLostWithPartitions()}.
     *
     * @return entries, >= 0
     */
    public long lost() {
        return evictedNotFresh.sum() + entriesLostWithPartitions.sum();
    }

    /**
     * @return states this member evicted (as owner) at the bound while they were not yet fresh, or whose policy
     *     was unknown to this member (counted as lost: the conservative reading)
     */
    public long evictedNotFresh() {
        return evictedNotFresh.sum();
    }

    /** @return states this member evicted (as owner) that were already fresh-equivalent: nothing was lost */
    public long evictedFresh() {
        return evictedFresh.sum();
    }

    /** @return policy-map partitions reported lost (every replica gone), counted on the master member only */
    public long partitionsLost() {
        return partitionsLost.sum();
    }

    /**
     * Returns the entries lost with those partitions, as estimated when the loss was reported: no surviving member
     * held the partition, so its size is unknown; each loss adds the master's own average number of entries per
     * owned partition of that map (rounded to nearest). An estimate, and documented as such.
     *
     * @return entries, >= 0
     */
    public long entriesLostWithPartitions() {
        return entriesLostWithPartitions.sum();
    }

    void evicted(boolean fresh) {
        (fresh ? evictedFresh : evictedNotFresh).increment();
    }

    void partitionLost(long estimatedEntries) {
        partitionsLost.increment();
        entriesLostWithPartitions.add(Math.max(0, estimatedEntries));
    }

    @Override
    public String toString() {
        return "StateLoss{lost=" + lost() + " evictedNotFresh=" + evictedNotFresh() + " evictedFresh="
                + evictedFresh() + " partitionsLost=" + partitionsLost() + " entriesLostWithPartitions="
                + entriesLostWithPartitions() + "}";
    }
}
