package io.gridlimit.grid.owner;

import io.gridlimit.grid.wire.MemberContext;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.CarryOver;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.time.TimeSource;
import java.util.Map;

/**
 * What the state-writing EntryProcessors of a key's owner share ({@link DecideProcessor} SPEC §8,
 * {@link SettleProcessor} §10, {@link LeaseProcessor} §13): the member Hazelcast injects, the owner's time source
 * read once per invocation ({@link io.gridlimit.grid.GridLimitHazelcast#timeSourceOf}, or a test's), and the backup: a
 * {@link WriteStateProcessor} carrying exactly the state the primary wrote, or null when nothing was written, so
 * that no backup is sent and a backup never re-runs a decision. Not thread-safe: one instance per invocation.
 *
 * @param <R> the processor's result
 * @param <P> the processor's own type
 */
abstract class OwnerProcessor<R, P extends OwnerProcessor<R, P>>
        implements EntryProcessor<String, LimiterState, R>, IdentifiedDataSerializable, HazelcastInstanceAware {
    /** The member running the invocation. */
    transient HazelcastInstance instance;
    private transient TimeSource timeSource;
    private transient WriteStateProcessor backup;

    /**
     * Uses this time source instead of the member's: for tests on a plain entry without a cluster.
     *
     * @param source the time source
     * @return this processor
     */
    @SuppressWarnings("unchecked")
    final P withTimeSource(TimeSource source) {
        this.timeSource = source;
        return (P) this;
    }

    @Override
    public final void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    /**
     * Starts an invocation: nothing written yet; reads the owner's time once.
     *
     * @return the owner's reading, epoch nanoseconds
     */
    final long begin() {
        backup = null;
        TimeSource source = timeSource != null ? timeSource : MemberContext.timeSourceOf(instance);
        return source.nowNanos();
    }

    /** Stores {@code state} with its TTL ({@link WriteStateProcessor#store}) and keeps the backup of that write. */
    final void store(Map.Entry<String, LimiterState> entry, LimiterState state, long ttlNanos) {
        backup = WriteStateProcessor.store(entry, state, ttlNanos);
    }

    /**
     * Stores a state carried over to a newer policy version (SPEC §4, §11) or changed without an admission, even
     * when nothing was admitted, so later decisions refill from it: its TTL is the time until it equals a fresh one.
     * Nothing when {@code state} is null.
     */
    final void storeUntilFresh(Map.Entry<String, LimiterState> entry, LimiterState state, Policy policy,
                               long nowNanos) {
        if (state != null) {
            store(entry, state, CarryOver.nanosUntilFresh(state, policy, nowNanos));
        }
    }

    /** @return the backup of this invocation's write, or null when nothing was written */
    final WriteStateProcessor backup() {
        return backup;
    }

    /** @return the processor that stores the written state on the backups; null when nothing was written */
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public EntryProcessor<String, LimiterState, R> getBackupProcessor() {
        return (EntryProcessor) backup; // a backup processor's result is never read
    }

    @Override
    public final int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }
}
