package io.gridlimit.grid.owner;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import io.gridlimit.algorithm.LeaseGrant;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for the holder side of leases ({@code io.gridlimit.grid.lease}) and the
 * factory.
 *
 * <p>The one EntryProcessor of a lease request (docs/SPEC.md §13), run on the partition thread of the key's owner like
 * {@link DecideProcessor}: it reads the owner's time source once, resolves the newest version of the policy the
 * owner knows ({@link OwnerPolicy}, SPEC §11), calls {@link RateLimitAlgorithms#lease} and stores the new state
 * with its TTL; {@link #getBackupProcessor()} returns a {@link WriteStateProcessor} with exactly that state, or null
 * when nothing was written. It carries the policy, the request's cost, the units and life asked, the holder's UUID
 * and whether a request decided without a lease is taken as a reservation.
 *
 * <p>Wire form (class id {@link SerializationIds#LEASE_PROCESSOR}, sent only when every member advertises
 * {@link WireFormat#LEASES_ATTRIBUTE}): the format byte ({@link WireFormat#CURRENT}), the policy
 * ({@link PolicyCodec} in that format), cost, units, durationNanos, holderHigh, holderLow (longs), reserve
 * (boolean), the catalog version (long, 0 when not from the catalog), the count of used-up leases closed (int) and
 * per one its reservation ({@link Reservation#toBytes()}, byte array) and actual (long). Not thread-safe: one instance per
 * invocation.
 */
public final class LeaseProcessor extends OwnerProcessor<LeaseResult, LeaseProcessor> {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Policy policy;
    private long cost;
    private long units;
    private long durationNanos;
    private long holderHigh;
    private long holderLow;
    private boolean reserve;
    private long policyVersion;
    /** Used-up leases of this holder on this key, settled before the grant (their units stop counting as out). */
    private Reservation[] closes = NO_CLOSES;
    private long[] closeActuals = new long[0];
    private static final Reservation[] NO_CLOSES = new Reservation[0];
    /** Most used-up leases one request closes. */
    public static final int MAX_CLOSES = 64;

    /** For deserialization. */
    public LeaseProcessor() {
    }

    /**
     * @param policy the policy (leasable: the caller checked)
     * @param cost the request's cost, in [1, 10^15]
     * @param units the units asked, in [cost, 10^15]
     * @param durationNanos the lease's asked life, > 0
     * @param holderHigh the upper 64 bits of the holder's UUID
     * @param holderLow the lower 64 bits of the holder's UUID
     * @param reserve whether a request decided without a lease is taken as a reservation
     * @param policyVersion the catalog version of the policy, 0 when not from the catalog
     */
    public LeaseProcessor(Policy policy, long cost, long units, long durationNanos, long holderHigh, long holderLow,
                   boolean reserve, long policyVersion) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.cost = cost;
        this.units = units;
        this.durationNanos = durationNanos;
        this.holderHigh = holderHigh;
        this.holderLow = holderLow;
        this.reserve = reserve;
        this.policyVersion = policyVersion;
    }

    /**
     * Closes this holder's used-up leases of the key before the grant: each is settled to its actual (docs/SPEC.md
     * §13), so that its units no longer cap the bands.
     *
     * @param leases the leases' reservations, at most {@link #MAX_CLOSES}; not copied
     * @param actuals the units each used, in [0, 10^15]
     * @return this processor
     */
    public LeaseProcessor closing(Reservation[] leases, long[] actuals) {
        if (leases.length != actuals.length || leases.length > MAX_CLOSES) {
            throw new IllegalArgumentException("closes: " + leases.length + " leases, " + actuals.length
                    + " actuals, at most " + MAX_CLOSES);
        }
        this.closes = leases;
        this.closeActuals = actuals;
        return this;
    }

    @Override
    public LeaseResult process(Map.Entry<String, LimiterState> entry) {
        long nowNanos = begin();
        OwnerPolicy.Resolved owner = OwnerPolicy.resolve(instance, policy, policyVersion, entry.getValue(), nowNanos);
        LimiterState state = owner.state();
        boolean changed = owner.carried();
        for (int i = 0; i < closes.length; i++) {
            // a forged, unknown or settled close changes nothing, as any settle (SPEC §10)
            io.gridlimit.algorithm.SettleOutcome closed = RateLimitAlgorithms.settle(state, owner.policy(),
                    entry.getKey(), closes[i], closeActuals[i], nowNanos);
            if (closed.write()) {
                state = closed.state();
                changed = true;
            }
        }
        LeaseGrant grant = RateLimitAlgorithms.lease(state, owner.policy(), entry.getKey(), cost, units,
                durationNanos, holderHigh, holderLow, reserve, nowNanos, RANDOM);
        if (grant.outcome().write()) {
            store(entry, grant.outcome().state(), grant.outcome().ttlNanos());
        } else if (changed) {
            storeUntilFresh(entry, state, owner.policy(), nowNanos);
        }
        Decision d = grant.outcome().decision().withPolicyVersion(owner.version());
        return new LeaseResult(d, grant.grantedUnits(), grant.leaseEndNanos(), nowNanos);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.CURRENT);
        PolicyCodec.write(out, policy, WireFormat.CURRENT);
        out.writeLong(cost);
        out.writeLong(units);
        out.writeLong(durationNanos);
        out.writeLong(holderHigh);
        out.writeLong(holderLow);
        out.writeBoolean(reserve);
        out.writeLong(policyVersion);
        out.writeInt(closes.length);
        for (int i = 0; i < closes.length; i++) {
            out.writeByteArray(closes[i].toBytes());
            out.writeLong(closeActuals[i]);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = WireFormat.readVersion(in, "LeaseProcessor");
        policy = PolicyCodec.read(in, format);
        try {
            cost = RateLimiter.checkCost(in.readLong());
            units = RateLimiter.checkCost("units", in.readLong());
        } catch (IllegalArgumentException e) {
            throw new IOException("unreadable lease request: " + e.getMessage());
        }
        durationNanos = in.readLong();
        holderHigh = in.readLong();
        holderLow = in.readLong();
        reserve = in.readBoolean();
        policyVersion = in.readLong();
        if (units < cost || durationNanos <= 0 || policyVersion < 0) {
            throw new IOException("lease request out of range: units " + units + ", cost " + cost
                    + ", durationNanos " + durationNanos + ", policy version " + policyVersion);
        }
        int n = in.readInt();
        if (n < 0 || n > MAX_CLOSES) {
            throw new IOException("lease closes out of range: " + n);
        }
        closes = new Reservation[n];
        closeActuals = new long[n];
        try {
            for (int i = 0; i < n; i++) {
                closes[i] = Reservation.fromBytes(in.readByteArray());
                closeActuals[i] = RateLimiter.checkActual(in.readLong());
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("unreadable lease close: " + e.getMessage());
        }
    }

    @Override
    public int getClassId() {
        return SerializationIds.LEASE_PROCESSOR;
    }

    @Override
    public String toString() {
        return "LeaseProcessor{" + policy.name() + " cost=" + cost + " units=" + units
                + (closes.length == 0 ? "" : " closes=" + closes.length) + "}";
    }
}
