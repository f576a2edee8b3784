package io.gridlimit.grid.owner;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for the factory and the async path.
 *
 * <p>What a {@link SettleProcessor} returns: one {@link Settlement}. Wire form (class id
 * {@link SerializationIds#SETTLE_RESULT}): the format byte, the status as its wire name (text, never an ordinal),
 * the actual cost, the excess (longs), the debt flag (boolean).
 */
public final class SettleResult implements IdentifiedDataSerializable {
    private Settlement settlement;

    /** For deserialization. */
    public SettleResult() {
    }

    /** @param settlement the settlement */
    SettleResult(Settlement settlement) {
        this.settlement = Objects.requireNonNull(settlement, "settlement");
    }

    /** @return the settlement, never null */
    public Settlement settlement() {
        return settlement;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.CURRENT);
        out.writeString(settlement.status().wireName());
        out.writeLong(settlement.actual());
        out.writeLong(settlement.excess());
        out.writeBoolean(settlement.debt());
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "SettleResult");
        String name = in.readString();
        Settlement.Status status = null;
        for (Settlement.Status s : Settlement.Status.values()) {
            if (s.wireName().equals(name)) {
                status = s;
            }
        }
        if (status == null) {
            throw new IOException("unknown settle status: " + name);
        }
        try {
            settlement = new Settlement(status, in.readLong(), in.readLong(), in.readBoolean());
        } catch (IllegalArgumentException e) {
            throw new IOException("unreadable settlement: " + e.getMessage());
        }
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.SETTLE_RESULT;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof SettleResult r && settlement.equals(r.settlement));
    }

    @Override
    public int hashCode() {
        return settlement.hashCode();
    }

    @Override
    public String toString() {
        return "SettleResult{" + settlement + "}";
    }
}
