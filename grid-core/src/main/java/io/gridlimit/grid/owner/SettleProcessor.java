package io.gridlimit.grid.owner;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.algorithm.SettleOutcome;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter}, the factory and the async path.
 *
 * <p>The one EntryProcessor of a settle (docs/SPEC.md §10), run on the partition thread of the member that owns the
 * reservation's key, like {@link DecideProcessor}: it reads the owner's time source once, calls
 * {@link RateLimitAlgorithms#settle} with the stored state, and when the outcome must be written stores the new
 * state with its TTL ({@link DecideProcessor#storedTtlMillis}); {@link #getBackupProcessor()} then returns a
 * {@link WriteStateProcessor} with exactly that state, or null when nothing was written. It carries the policy
 * (with each band's maximum debt, which the policy codec does not), the reservation and the actual cost.
 *
 * <p>Wire form (class id {@link SerializationIds#SETTLE_PROCESSOR}): the format byte ({@link WireFormat#CURRENT}),
 * the policy ({@link PolicyCodec} in that format), the band count and each band's maximum debt (longs), the
 * reservation ({@link Reservation#toBytes()} as a byte array), the actual cost (long). Not thread-safe: one
 * instance per invocation.
 */
public final class SettleProcessor extends OwnerProcessor<SettleResult, SettleProcessor> {
    private Policy policy;
    private Reservation reservation;
    private long actual;
    private byte format;

    /** For deserialization. */
    public SettleProcessor() {
    }

    /**
     * @param policy the reservation's policy
     * @param reservation the reservation (its policy is {@code policy}'s: the caller checked)
     * @param actual the actual cost, in [0, 10^15] (the caller checked)
     */
    public SettleProcessor(Policy policy, Reservation reservation, long actual) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.reservation = Objects.requireNonNull(reservation, "reservation");
        this.actual = actual;
        this.format = WireFormat.CURRENT;
    }

    @Override
    public SettleResult process(Map.Entry<String, LimiterState> entry) {
        long nowNanos = begin();
        SettleOutcome outcome = RateLimitAlgorithms.settle(entry.getValue(), policy, entry.getKey(), reservation,
                actual, nowNanos);
        if (outcome.write()) {
            store(entry, outcome.state(), outcome.ttlNanos());
        }
        return new SettleResult(outcome.settlement());
    }

    Policy policy() {
        return policy;
    }

    Reservation reservation() {
        return reservation;
    }

    long actual() {
        return actual;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, format);
        PolicyCodec.writeWithDebts(out, policy, format);
        out.writeByteArray(reservation.toBytes());
        out.writeLong(actual);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = WireFormat.readVersion(in, "SettleProcessor");
        policy = PolicyCodec.readWithDebts(in, format);
        try {
            reservation = Reservation.fromBytes(in.readByteArray());
            actual = RateLimiter.checkActual(in.readLong());
        } catch (IllegalArgumentException e) {
            throw new IOException("unreadable settle: " + e.getMessage());
        }
    }

    @Override
    public int getClassId() {
        return SerializationIds.SETTLE_PROCESSOR;
    }

    @Override
    public String toString() {
        return "SettleProcessor{" + policy.name() + " " + reservation + " actual=" + actual + "}";
    }
}
