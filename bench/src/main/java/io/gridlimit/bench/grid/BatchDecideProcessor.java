package io.gridlimit.bench.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.CarryOver;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.owner.OwnerPolicy;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * BENCH ONLY (never in grid-core): the decision of {@link DecideProcessor} (single cost, no reservation) written
 * for Hazelcast's multi-key operations, {@code executeOnKeys} / {@code submitToKeys}, so that the batching
 * measurement of {@code io.gridlimit.bench.BatchingBenchmark} decides every key of a batch exactly as today's path
 * does and gives the backup every key's computed state.
 *
 * <p><b>How Hazelcast 5.7.0 runs it</b> (read from the 5.7.0 jar's bytecode, {@code javap -c}): the proxy's
 * {@code submitToKeysInternal} builds ONE {@code MultipleEntryOperationFactory(name, keys, processor)} and calls
 * {@code OperationService.invokeOnPartitionsAsync}; {@code InvokeOnPartitions} sends one
 * {@code PartitionIteratingOperation} per member, which runs {@code factory.createOperation()} for each of the
 * member's partitions: every {@code MultipleEntryOperation} gets ALL keys of the batch and the SAME processor
 * object (deserialized once per member, or the caller's own object on the local member), and the partitions' operations
 * run on their partition threads, possibly at the same time. {@code MultipleEntryOperation.innerBeforeRun} calls
 * {@code ManagedContext.initialize(processor)} (so {@link #setHazelcastInstance} runs at the start of each
 * partition's operation, on its partition thread); {@code runInternal} calls {@code process} once per key that
 * belongs to the partition ({@code EntryOperator.operateOnKey} skips the others); then {@code shouldBackup()} and
 * {@code getBackupOperation()} each call {@link #getBackupProcessor()} on the same thread, and the backup is ONE
 * {@code MultipleEntryBackupOperation(name, keys, backupProcessor)}, which applies that one processor to each key
 * of the partition. Its backups are asynchronous: {@code getSyncBackupCount()} is 0 and
 * {@code getAsyncBackupCount()} the map's total backup count (an {@code EntryOperation}'s are synchronous).
 *
 * <p>So this processor keeps, per partition thread, the states it wrote since the current partition's operation
 * began (reset by {@link #setHazelcastInstance}), and {@link #getBackupProcessor()} returns a
 * {@link BatchBackupProcessor} carrying exactly those keys' states and TTLs: the backup never re-decides (a
 * time-dependent decision run again on the backup would be wrong, docs/SPEC.md §8). A key denied without a write
 * is not in the map and gets no backup write, as a plain denial gets no backup today.
 *
 * <p>Per key it does what {@link DecideProcessor#process} does for one cost: one reading of the member's time
 * source, {@link OwnerPolicy#resolve} (the catalog's newest version and carry-over), {@link RateLimitAlgorithms#apply},
 * the write with {@link DecideProcessor#storedTtlMillis}, and a {@link DecisionResult} answer. Wire form (factory
 * {@value #FACTORY_ID}, class id {@value #CLASS_ID}): the format byte, the policy ({@link PolicyCodec}), the cost.
 * Thread-safe as Hazelcast uses it (one object shared by a member's partition threads). The grid-core types it uses
 * ({@code io.gridlimit.grid.owner}, {@code io.gridlimit.grid.wire}) are public but internal to grid-core: not API.
 */
public final class BatchDecideProcessor implements EntryProcessor<String, LimiterState, DecisionResult>,
        IdentifiedDataSerializable, HazelcastInstanceAware {
    /** The bench module's data-serializable factory id ({@code io.gridlimit.bench.NoOpProcessor.FACTORY_ID}). */
    public static final int FACTORY_ID = 7_342_001;
    /** This class's id within {@value #FACTORY_ID}. */
    public static final int CLASS_ID = 3;

    private Policy policy;
    private long cost;
    private byte format;
    private volatile HazelcastInstance instance;
    /** The states written by the partition operation running on the current thread, in key order of processing. */
    private final transient ThreadLocal<Map<String, BatchBackupProcessor.Stored>> written =
            ThreadLocal.withInitial(LinkedHashMap::new);

    /** For deserialization. */
    public BatchDecideProcessor() {
    }

    /**
     * @param policy the policy of every key of the batch
     * @param cost the cost of every key's request, in [1, 10^15]
     * @throws NullPointerException if {@code policy} is null
     */
    public BatchDecideProcessor(Policy policy, long cost) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.cost = cost;
        this.format = WireFormat.writeFormat();
    }

    /** Called at the start of each partition's operation, on its partition thread: starts that partition's list. */
    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
        written.get().clear();
    }

    @Override
    public DecisionResult process(Map.Entry<String, LimiterState> entry) {
        long nowNanos = GridLimitHazelcast.timeSourceOf(instance).nowNanos();
        OwnerPolicy.Resolved owner = OwnerPolicy.resolve(instance, policy, 0, entry.getValue(), nowNanos);
        Outcome outcome = RateLimitAlgorithms.apply(owner.state(), owner.policy(), cost, nowNanos);
        if (outcome.write()) {
            store(entry, outcome.state(), outcome.ttlNanos());
        } else if (owner.carried() && owner.state() != null) {
            store(entry, owner.state(), CarryOver.nanosUntilFresh(owner.state(), owner.policy(), nowNanos));
        }
        return new DecisionResult(new Decision[] {outcome.decision()}, format);
    }

    private void store(Map.Entry<String, LimiterState> entry, LimiterState state, long ttlNanos) {
        if (!(entry instanceof ExtendedMapEntry<String, LimiterState> extended)) {
            throw new IllegalStateException("needs an ExtendedMapEntry to set a TTL, got " + entry.getClass().getName());
        }
        long ttlMillis = DecideProcessor.storedTtlMillis(ttlNanos);
        extended.setValue(state, ttlMillis, TimeUnit.MILLISECONDS);
        written.get().put(entry.getKey(), new BatchBackupProcessor.Stored(state, ttlMillis));
    }

    /**
     * @return a processor carrying the state and TTL of every key this partition's operation wrote; null when it
     *     wrote none (then Hazelcast sends no backup)
     */
    @Override
    public BatchBackupProcessor getBackupProcessor() {
        Map<String, BatchBackupProcessor.Stored> states = written.get();
        return states.isEmpty() ? null : new BatchBackupProcessor(new LinkedHashMap<>(states), format);
    }

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return CLASS_ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(format);
        PolicyCodec.write(out, policy, format);
        out.writeLong(cost);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = in.readByte();
        policy = PolicyCodec.read(in, format);
        cost = in.readLong();
    }
}
