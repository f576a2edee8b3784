package io.gridlimit.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Decision;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a {@link DecideProcessor} returns to the caller: one {@link Decision} per requested cost, in order. Wire
 * form (class id {@link SerializationIds#DECISION_RESULT}): count, then per decision the allowed flag, limit,
 * remaining, resetAfterNanos, retryAfterNanos and the nullable band name.
 */
final class DecisionResult implements IdentifiedDataSerializable {
    private Decision[] decisions;

    /** For deserialization. */
    DecisionResult() {
    }

    DecisionResult(Decision[] decisions) {
        this.decisions = Objects.requireNonNull(decisions, "decisions");
    }

    /** @return the decisions, one per cost, in order; never null */
    Decision[] decisions() {
        return decisions;
    }

    /** @return the first (for a single request: the only) decision */
    Decision first() {
        return decisions[0];
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(decisions.length);
        for (Decision d : decisions) {
            out.writeBoolean(d.allowed());
            out.writeLong(d.limit());
            out.writeLong(d.remaining());
            out.writeLong(d.resetAfterNanos());
            out.writeLong(d.retryAfterNanos());
            out.writeString(d.band());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        int n = in.readInt();
        if (n < 1 || n > DecideProcessor.MAX_BATCH) {
            throw new IOException("decision count out of range: " + n);
        }
        Decision[] read = new Decision[n];
        for (int i = 0; i < n; i++) {
            boolean allowed = in.readBoolean();
            long limit = in.readLong();
            long remaining = in.readLong();
            long resetAfterNanos = in.readLong();
            long retryAfterNanos = in.readLong();
            String band = in.readString();
            read[i] = new Decision(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band);
        }
        this.decisions = read;
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.DECISION_RESULT;
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
