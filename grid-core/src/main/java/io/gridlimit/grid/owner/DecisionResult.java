package io.gridlimit.grid.owner;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Decision;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter}, the factory, the async path and the bench
 * module.
 *
 * <p>What a {@link DecideProcessor} returns to the caller: one {@link Decision} per requested cost, in order. Wire
 * form (class id {@link SerializationIds#DECISION_RESULT}): count n (1 to {@link DecideProcessor#MAX_BATCH}); the
 * number k of distinct band names and those names (nullable strings, in order of first use); then per decision
 * the allowed flag, limit, remaining, resetAfterNanos, retryAfterNanos and the index of its band name (short,
 * in [0, k)). A coalesced batch of one policy thus carries each band name once, not once per decision. That is
 * wire format 1 (class id {@link SerializationIds#DECISION_RESULT}, no format byte); format 2 (class id
 * {@link SerializationIds#DECISION_RESULT_VERSIONED}) is the format byte 2, then the same fields. A result is
 * written in the format of the request it answers ({@link DecideProcessor}), which its caller reads.
 */
public final class DecisionResult implements IdentifiedDataSerializable {
    private Decision[] decisions;
    /** The wire format to write, or that was read; 0 while a versioned form waits to be read. */
    private byte format;
    /** Whether the reservations follow the decisions (class id {@link SerializationIds#RESERVE_RESULT}). */
    private boolean reserving;
    /** Whether this is the catalog form (class id {@link SerializationIds#DECISION_RESULT_CATALOG}). */
    private boolean catalogForm;

    /**
     * For deserialization.
     *
     * @param versioned whether the stream starts with a format byte (class id 7) or is format 1 (class id 3)
     */
    public DecisionResult(boolean versioned) {
        this.format = versioned ? 0 : WireFormat.UNVERSIONED;
    }

    /**
     * A result written in format {@link WireFormat#writeFormat()}.
     *
     * @param decisions the decisions, not copied
     */
    DecisionResult(Decision[] decisions) {
        this(decisions, WireFormat.writeFormat());
    }

    /**
     * @param decisions the decisions, not copied
     * @param format the wire format to write: that of the request answered
     */
    public DecisionResult(Decision[] decisions, byte format) {
        this.decisions = Objects.requireNonNull(decisions, "decisions");
        this.format = format;
    }

    /**
     * Makes this the form with reservations: class id {@link SerializationIds#RESERVE_RESULT}, after the decisions
     * one nullable reservation per decision (a boolean, then {@link io.gridlimit.api.Reservation#toBytes()} as a
     * byte array), then the catalog version used (long, 0 when none).
     *
     * @return this result
     */
    public DecisionResult reserving() {
        this.reserving = true;
        if (format == WireFormat.UNVERSIONED) {
            format = WireFormat.CURRENT;
        }
        return this;
    }

    /**
     * The catalog form (docs/SPEC.md §11): the answer to a processor that carried a policy version. Its wire form is
     * the versioned form's fields, then the catalog version of the policy used (long; all decisions of one result
     * share it).
     *
     * @param decisions the decisions, each stating the same {@link Decision#policyVersion()}, not copied
     * @param format the wire format of the request answered
     * @return the result
     */
    public static DecisionResult catalog(Decision[] decisions, byte format) {
        DecisionResult r = new DecisionResult(decisions, format);
        r.catalogForm = true;
        return r;
    }

    /** @return an empty result expecting the catalog form, for deserialization */
    public static DecisionResult catalogForm() {
        DecisionResult r = new DecisionResult(true);
        r.catalogForm = true;
        return r;
    }

    /** @return the wire format this result is written in, or was read in */
    byte format() {
        return format;
    }

    /** @return the decisions, one per cost, in order; never null */
    public Decision[] decisions() {
        return decisions;
    }

    /** @return the first (for a single request: the only) decision */
    public Decision first() {
        return decisions[0];
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, format);
        int n = decisions.length;
        out.writeInt(n);
        String[] names = new String[n];
        short[] index = new short[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            String band = decisions[i].band();
            int j = 0;
            while (j < k && !Objects.equals(names[j], band)) {
                j++;
            }
            if (j == k) {
                names[k++] = band;
            }
            index[i] = (short) j;
        }
        out.writeShort(k);
        for (int j = 0; j < k; j++) {
            out.writeString(names[j]);
        }
        for (int i = 0; i < n; i++) {
            Decision d = decisions[i];
            out.writeBoolean(d.allowed());
            out.writeLong(d.limit());
            out.writeLong(d.remaining());
            out.writeLong(d.resetAfterNanos());
            out.writeLong(d.retryAfterNanos());
            out.writeShort(index[i]);
        }
        if (reserving) {
            for (Decision d : decisions) {
                out.writeBoolean(d.reservation() != null);
                if (d.reservation() != null) {
                    out.writeByteArray(d.reservation().toBytes());
                }
            }
            out.writeLong(decisions[0].policyVersion());
        } else if (catalogForm) {
            out.writeLong(decisions[0].policyVersion());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = format == WireFormat.UNVERSIONED ? WireFormat.check(format, "DecisionResult")
                : WireFormat.readVersion(in, "DecisionResult");
        int n = in.readInt();
        if (n < 1 || n > DecideProcessor.MAX_BATCH) {
            throw new IOException("decision count out of range: " + n);
        }
        int k = in.readShort();
        if (k < 1 || k > n) {
            throw new IOException("band name count out of range: " + k + " for " + n + " decisions");
        }
        String[] names = new String[k];
        for (int j = 0; j < k; j++) {
            names[j] = in.readString();
        }
        Decision[] read = new Decision[n];
        for (int i = 0; i < n; i++) {
            boolean allowed = in.readBoolean();
            long limit = in.readLong();
            long remaining = in.readLong();
            long resetAfterNanos = in.readLong();
            long retryAfterNanos = in.readLong();
            int index = in.readShort();
            if (index < 0 || index >= k) {
                throw new IOException("band name index out of range: " + index + " of " + k);
            }
            read[i] = new Decision(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, names[index]);
        }
        if (reserving) {
            for (int i = 0; i < n; i++) {
                if (in.readBoolean()) {
                    byte[] bytes = in.readByteArray();
                    try {
                        read[i] = read[i].withReservation(io.gridlimit.api.Reservation.fromBytes(bytes));
                    } catch (IllegalArgumentException e) {
                        throw new IOException("unreadable reservation: " + e.getMessage());
                    }
                }
            }
        }
        if (reserving || catalogForm) {
            long version = in.readLong();
            if (version < 0) {
                throw new IOException("policy version out of range: " + version);
            }
            for (int i = 0; i < n; i++) {
                read[i] = read[i].withPolicyVersion(version);
            }
        }
        this.decisions = read;
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        if (reserving) {
            return SerializationIds.RESERVE_RESULT;
        }
        return catalogForm ? SerializationIds.DECISION_RESULT_CATALOG
                : format == WireFormat.UNVERSIONED ? SerializationIds.DECISION_RESULT
                : SerializationIds.DECISION_RESULT_VERSIONED;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof DecisionResult r && Arrays.equals(decisions, r.decisions));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(decisions);
    }

    @Override
    public String toString() {
        return "DecisionResult" + Arrays.toString(decisions);
    }
}
