package io.gridlimit.grid.owner;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Decision;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for the holder side of leases and the factory.
 *
 * <p>What a {@link LeaseProcessor} returns (docs/SPEC.md §13): the decision (with the lease's reservation when units
 * were granted), the units granted (0: none, the decision is the request's own), the lease's end and the owner's
 * reading, both epoch nanoseconds in owner time.
 *
 * <p>Wire form (class id {@link SerializationIds#LEASE_RESULT}): the format byte ({@link WireFormat#CURRENT}),
 * grantedUnits, leaseEndNanos, ownerNanos (longs), then one {@link DecisionResult} with reservations in that
 * format, inline.
 */
public final class LeaseResult implements IdentifiedDataSerializable {
    private Decision decision;
    private long grantedUnits;
    private long leaseEndNanos;
    private long ownerNanos;

    /** For deserialization. */
    public LeaseResult() {
    }

    LeaseResult(Decision decision, long grantedUnits, long leaseEndNanos, long ownerNanos) {
        this.decision = Objects.requireNonNull(decision, "decision");
        this.grantedUnits = grantedUnits;
        this.leaseEndNanos = leaseEndNanos;
        this.ownerNanos = ownerNanos;
    }

    /** @return the decision: the lease's reservation of {@link #grantedUnits()}, or the request's own when 0 */
    public Decision decision() {
        return decision;
    }

    /** @return the units granted, 0 for none */
    public long grantedUnits() {
        return grantedUnits;
    }

    /** @return the lease's end in owner time, epoch nanoseconds; 0 when none */
    public long leaseEndNanos() {
        return leaseEndNanos;
    }

    /** @return the owner's reading, epoch nanoseconds */
    public long ownerNanos() {
        return ownerNanos;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.CURRENT);
        out.writeLong(grantedUnits);
        out.writeLong(leaseEndNanos);
        out.writeLong(ownerNanos);
        new DecisionResult(new Decision[] {decision}, WireFormat.CURRENT).reserving().writeData(out);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "LeaseResult");
        grantedUnits = in.readLong();
        leaseEndNanos = in.readLong();
        ownerNanos = in.readLong();
        DecisionResult r = new DecisionResult(true).reserving();
        r.readData(in);
        decision = r.first();
        if (grantedUnits < 0 || (grantedUnits > 0 && decision.reservation() == null)) {
            throw new IOException("lease result out of range: granted " + grantedUnits);
        }
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.LEASE_RESULT;
    }

    @Override
    public String toString() {
        return "LeaseResult{granted=" + grantedUnits + " end=" + leaseEndNanos + " " + decision + "}";
    }
}
