package io.gridlimit.grid.owner;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import io.gridlimit.time.TimeSource;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter}, the factory ({@code io.gridlimit.grid}), the
 * async path ({@code io.gridlimit.grid.async}) and the bench module.
 *
 * <p>The one EntryProcessor of a decision (SPEC §8), run by Hazelcast on the partition thread of the member that
 * owns the key. It carries the {@link Policy} and the cost (or, for coalesced requests, several costs), and
 * nothing else.
 *
 * <p>{@link #process}: reads the owner's {@link TimeSource} once, calls {@link RateLimitAlgorithms} with the stored
 * state (null when absent or expired), and when the outcome must be written stores the new state with the TTL
 * of {@link #storedTtlMillis(long)}; returns a {@link DecisionResult}. {@link #getBackupProcessor()}, which
 * Hazelcast calls after {@code process} on the same instance, then returns a {@link WriteStateProcessor} carrying
 * exactly that state and TTL, or null when nothing was written (a plain denial), in which case Hazelcast sends
 * no backup at all ({@code EntryOperation.shouldBackup}). So the algorithm runs exactly once per decision and a
 * backup never reads time.
 *
 * <p>The owner's time source is found through the member's {@code Config} user context
 * ({@link io.gridlimit.grid.GridLimitHazelcast#timeSourceOf(HazelcastInstance)}); Hazelcast injects the member through
 * {@link HazelcastInstanceAware} before {@code process} ({@code EntryOperation.innerBeforeRun} applies the
 * managed context). Not thread-safe: one instance per invocation, as Hazelcast uses it.
 *
 * <p>Wire form: the policy ({@link PolicyCodec}), the cost, the costs (a nullable long array). That is format 1
 * (class id {@link SerializationIds#DECIDE_PROCESSOR}, no format byte); format 2 (class id
 * {@link SerializationIds#DECIDE_PROCESSOR_VERSIONED}) is the format byte 2, then the same fields with the policy
 * in {@link PolicyCodec}'s format 2; the catalog form (class id {@link SerializationIds#DECIDE_PROCESSOR_CATALOG},
 * docs/SPEC.md §11) is format 2's fields followed by the policy's catalog version (long). Taking reservations
 * ({@link #reserving()}, docs/SPEC.md §10) it is class id {@link SerializationIds#RESERVE_PROCESSOR}: format 2's
 * fields followed by the catalog version (long, 0 when not from the catalog), and answers a {@link DecisionResult}
 * with reservations. Counting every hit ({@link #hitting()}, docs/SPEC.md §3) it is class id
 * {@link SerializationIds#HIT_PROCESSOR}: the same fields as the reservation form (the costs always null), answered
 * with a plain {@link DecisionResult}. A processor is written in the {@link WireFormat#writeFormat()} of its creation, and answers in
 * the format it was read in (grid-core/docs/wire.md).
 */
public final class DecideProcessor extends OwnerProcessor<DecisionResult, DecideProcessor> {
    /** Most costs one coalesced invocation may carry. */
    public static final int MAX_BATCH = 1024;
    /**
     * Hazelcast 5.x keeps an entry's expiration time in whole seconds, rounded down (ExpiryMetadataImpl, via
     * TimeStripUtil.stripBaseTime), so an entry can expire up to 999 ms before its TTL ends. The TTL handed to
     * Hazelcast is therefore the state's TTL plus this margin: a state is never dropped before it equals a fresh
     * one, and lingers at most this long after.
     */
    static final long EXPIRY_GRANULARITY_MILLIS = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** The source of a new reserved state's id and secret (docs/SPEC.md §10); thread-safe. */
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private Policy policy;
    private long cost;
    private long[] costs;
    /** The wire format to write, or that was read; 0 while a versioned form waits to be read. */
    private byte format;
    /** Whether admitted costs are taken as reservations (class id {@link SerializationIds#RESERVE_PROCESSOR}). */
    private boolean reserve;
    /** Whether the cost counts admitted or not (class id {@link SerializationIds#HIT_PROCESSOR}). */
    private boolean hit;
    /** The catalog version of {@link #policy} the asking replica knows (SPEC §11); 0 when not from the catalog. */
    private long policyVersion;
    /** Whether this processor is written under, or was read from, {@link SerializationIds#DECIDE_PROCESSOR_CATALOG}. */
    private boolean catalogForm;

    /**
     * For deserialization.
     *
     * @param versioned whether the stream starts with a format byte (class id 5) or is format 1 (class id 1)
     */
    public DecideProcessor(boolean versioned) {
        this.format = versioned ? 0 : WireFormat.UNVERSIONED;
    }

    /**
     * For deserialization of the catalog form (class id {@link SerializationIds#DECIDE_PROCESSOR_CATALOG}): the
     * versioned form's fields, then the policy version.
     *
     * @return an empty processor expecting the catalog form
     */
    public static DecideProcessor catalogForm() {
        DecideProcessor p = new DecideProcessor(true);
        p.catalogForm = true;
        return p;
    }

    /**
     * Marks the policy as version {@code version} of the grid's policy catalog: the owner then decides with the
     * newest version it knows (SPEC §11) and the answer states the version used. Written under class id
     * {@link SerializationIds#DECIDE_PROCESSOR_CATALOG}, which only a cluster whose every member reads it is sent
     * ({@link io.gridlimit.grid.catalog.CatalogSupport}).
     *
     * @param version the catalog version, >= 1; 0 leaves the processor as it is
     * @return this processor
     */
    public DecideProcessor withPolicyVersion(long version) {
        if (version > 0) {
            this.policyVersion = version;
            this.catalogForm = true;
            if (format == WireFormat.UNVERSIONED) {
                format = WireFormat.CURRENT;
            }
        }
        return this;
    }

    /** @return the catalog version sent, 0 when not from the catalog */
    public long policyVersion() {
        return policyVersion;
    }

    /**
     * A processor deciding one request.
     *
     * @param policy the policy
     * @param cost the cost, in [1, 10^15] (the caller validated it)
     */
    public DecideProcessor(Policy policy, long cost) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.cost = cost;
        this.format = WireFormat.writeFormat();
    }

    /**
     * A processor deciding several requests of one key in sequence at one reading (coalescing).
     *
     * @param policy the policy
     * @param costs 1 to {@link #MAX_BATCH} costs, each in [1, 10^15]; not copied, the caller must not change it
     */
    public DecideProcessor(Policy policy, long[] costs) {
        this.policy = Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(costs, "costs");
        if (costs.length < 1 || costs.length > MAX_BATCH) {
            throw new IllegalArgumentException("costs must hold 1 to " + MAX_BATCH + " costs, got " + costs.length);
        }
        this.costs = costs;
        this.format = WireFormat.writeFormat();
    }

    /**
     * Makes this processor take admitted costs as reservations (docs/SPEC.md §10): it is then written under class
     * id {@link SerializationIds#RESERVE_PROCESSOR}, always versioned (format {@link WireFormat#CURRENT} or the one
     * it was read in), and answers with reservations ({@link DecisionResult#reserving()}).
     *
     * @return this processor
     */
    public DecideProcessor reserving() {
        this.reserve = true;
        if (format == WireFormat.UNVERSIONED) {
            format = WireFormat.CURRENT;
        }
        return this;
    }

    /**
     * Makes this processor count its cost whether or not it passes, as envoyproxy/ratelimit counts
     * ({@link RateLimitAlgorithms#hit}, docs/SPEC.md §3 "Every hit counts"): written under class id
     * {@link SerializationIds#HIT_PROCESSOR}, always versioned. Only for a single cost (never a batch), which may be
     * 0 (a peek).
     *
     * @return this processor
     * @throws IllegalStateException if this processor carries a batch of costs, or takes reservations
     */
    public DecideProcessor hitting() {
        if (costs != null || reserve) {
            throw new IllegalStateException("a hit is one cost, never a batch or a reservation");
        }
        this.hit = true;
        if (format == WireFormat.UNVERSIONED) {
            format = WireFormat.CURRENT;
        }
        return this;
    }

    /** @return whether admitted costs are taken as reservations */
    boolean reserves() {
        return reserve;
    }

    @Override
    public DecisionResult process(Map.Entry<String, LimiterState> entry) {
        long nowNanos = begin();
        // the newest version of the policy this owner knows, and the state carried over to it (SPEC §4, §11)
        OwnerPolicy.Resolved owner = OwnerPolicy.resolve(instance, policy, policyVersion, entry.getValue(), nowNanos);
        Policy policy = owner.policy();
        LimiterState current = owner.state();
        if (costs == null) {
            Outcome outcome = hit ? RateLimitAlgorithms.hit(current, policy, cost, nowNanos) : reserve
                    ? RateLimitAlgorithms.reserve(current, policy, entry.getKey(), cost, nowNanos, RANDOM)
                    : RateLimitAlgorithms.apply(current, policy, cost, nowNanos);
            if (outcome.write()) {
                store(entry, outcome.state(), outcome.ttlNanos());
            } else if (owner.carried()) {
                storeUntilFresh(entry, owner.state(), owner.policy(), nowNanos);
            }
            return result(new Decision[] {outcome.decision()}, owner.version());
        }
        Outcome[] outcomes = reserve
                ? RateLimitAlgorithms.reserveAll(current, policy, entry.getKey(), costs, nowNanos, RANDOM)
                : RateLimitAlgorithms.applyAll(current, policy, costs, nowNanos);
        Decision[] decisions = new Decision[outcomes.length];
        Outcome lastWrite = null;
        for (int i = 0; i < outcomes.length; i++) {
            decisions[i] = outcomes[i].decision();
            if (outcomes[i].write()) {
                lastWrite = outcomes[i];
            }
        }
        if (lastWrite != null) {
            // every outcome shares one reading, so the last written state's TTL is measured from now as well
            store(entry, lastWrite.state(), lastWrite.ttlNanos());
        } else if (owner.carried()) {
            storeUntilFresh(entry, owner.state(), owner.policy(), nowNanos);
        }
        return result(decisions, owner.version());
    }

    private DecisionResult result(Decision[] decisions, long version) {
        if (!catalogForm && !reserve && !(hit && version > 0)) {
            return new DecisionResult(decisions, format);
        }
        for (int i = 0; i < decisions.length; i++) {
            decisions[i] = decisions[i].withPolicyVersion(version);
        }
        return reserve ? new DecisionResult(decisions, format).reserving() : DecisionResult.catalog(decisions, format);
    }

    /**
     * The state's TTL in whole milliseconds (SPEC §8): {@code ceil(ttlNanos / 10^6)}, at least 1 ms, since
     * Hazelcast reads a TTL of 0 as "never expire".
     *
     * @param ttlNanos the algorithm's TTL in nanoseconds, >= 0
     * @return milliseconds in [1, ceil(Long.MAX_VALUE / 10^6)]
     */
    public static long ttlMillis(long ttlNanos) {
        if (ttlNanos <= 0) {
            return 1;
        }
        long millis = ttlNanos / NANOS_PER_MILLI + (ttlNanos % NANOS_PER_MILLI == 0 ? 0 : 1);
        return Math.max(1, millis);
    }

    /**
     * The TTL handed to Hazelcast: {@link #ttlMillis(long)} plus {@link #EXPIRY_GRANULARITY_MILLIS}, saturating.
     *
     * @param ttlNanos the algorithm's TTL in nanoseconds, >= 0
     * @return milliseconds, >= 1001
     */
    public static long storedTtlMillis(long ttlNanos) {
        long millis = ttlMillis(ttlNanos);
        return millis > Long.MAX_VALUE - EXPIRY_GRANULARITY_MILLIS ? Long.MAX_VALUE
                : millis + EXPIRY_GRANULARITY_MILLIS;
    }

    /**
     * Returns the backup processor for the invocation just processed.
     *
     * @return a processor that stores the state this processor wrote, with the same TTL; null when nothing was
     *     written, so that no backup operation is sent
     */
    @Override
    public WriteStateProcessor getBackupProcessor() {
        return backup();
    }

    public Policy policy() {
        return policy;
    }

    public long cost() {
        return cost;
    }

    long[] costs() {
        return costs;
    }

    /** @return the wire format this processor is written in, or was read in */
    public byte format() {
        return format;
    }

    /**
     * Sets the wire format to write: for tests of a given format.
     *
     * @param wireFormat {@link WireFormat#PREVIOUS} or {@link WireFormat#CURRENT}
     * @return this processor
     */
    DecideProcessor withFormat(byte wireFormat) {
        this.format = wireFormat;
        return this;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, format);
        PolicyCodec.write(out, policy, format);
        out.writeLong(cost);
        out.writeLongArray(costs);
        if (catalogForm || reserve || hit) {
            out.writeLong(policyVersion);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = format == WireFormat.UNVERSIONED ? WireFormat.check(format, "DecideProcessor")
                : WireFormat.readVersion(in, "DecideProcessor");
        policy = PolicyCodec.read(in, format);
        cost = in.readLong();
        costs = in.readLongArray();
        if (costs != null && (costs.length < 1 || costs.length > MAX_BATCH)) {
            throw new IOException("cost count out of range: " + costs.length);
        }
        if (hit && costs != null) {
            throw new IOException("a hit carries one cost, got a batch of " + costs.length);
        }
        if (reserve || hit) {
            policyVersion = in.readLong();
            if (policyVersion < 0) {
                throw new IOException("policy version out of range: " + policyVersion);
            }
        } else if (catalogForm) {
            policyVersion = in.readLong();
            if (policyVersion < 1) {
                throw new IOException("policy version out of range: " + policyVersion);
            }
        }
    }

    @Override
    public int getClassId() {
        if (reserve) {
            return SerializationIds.RESERVE_PROCESSOR;
        }
        if (hit) {
            return SerializationIds.HIT_PROCESSOR;
        }
        return catalogForm ? SerializationIds.DECIDE_PROCESSOR_CATALOG
                : format == WireFormat.UNVERSIONED ? SerializationIds.DECIDE_PROCESSOR
                : SerializationIds.DECIDE_PROCESSOR_VERSIONED;
    }

    @Override
    public String toString() {
        return "DecideProcessor{" + policy.name() + (reserve ? " reserve" : hit ? " hit" : "") + (costs == null ? " cost=" + cost : " costs=" + costs.length) + "}";
    }
}
