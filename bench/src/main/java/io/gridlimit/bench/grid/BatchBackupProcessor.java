package io.gridlimit.bench.grid;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * BENCH ONLY: the backup processor of a {@link BatchDecideProcessor} batch on one partition. Hazelcast applies ONE
 * such object to every key of the partition ({@code MultipleEntryBackupOperation}), so it carries a map from each
 * key the primary wrote to that key's state and TTL, and writes exactly those; it reads no clock and runs no
 * algorithm ({@link io.gridlimit.grid.owner.WriteStateProcessor} per key). A key the primary did not write is never
 * passed here by a correct batch (the primary's partition skips no key it owns); if it is, {@link #process} throws,
 * which Hazelcast logs on the backup member. Wire form (factory {@value BatchDecideProcessor#FACTORY_ID}, class id
 * {@value #CLASS_ID}): the format byte, the count, then per key its name, the state (a Compact object) and the TTL in
 * milliseconds. Not thread-safe; one instance per backup operation.
 */
public final class BatchBackupProcessor implements EntryProcessor<String, LimiterState, DecisionResult>,
        IdentifiedDataSerializable {
    /** This class's id within {@value BatchDecideProcessor#FACTORY_ID}. */
    public static final int CLASS_ID = 4;

    /**
     * One key's state as the primary wrote it.
     *
     * @param state the state
     * @param ttlMillis the TTL handed to Hazelcast, in milliseconds, >= 1
     */
    record Stored(LimiterState state, long ttlMillis) {
    }

    private Map<String, Stored> states;
    private byte format;

    /** For deserialization. */
    public BatchBackupProcessor() {
    }

    BatchBackupProcessor(Map<String, Stored> states, byte format) {
        this.states = states;
        this.format = format;
    }

    /** @return how many keys' states this backup carries */
    public int size() {
        return states.size();
    }

    @Override
    public DecisionResult process(Map.Entry<String, LimiterState> entry) {
        Stored stored = states.get(entry.getKey());
        if (stored == null) {
            throw new IllegalStateException("the batch backup carries no state for a key of its partition");
        }
        if (!(entry instanceof ExtendedMapEntry<String, LimiterState> extended)) {
            throw new IllegalStateException("needs an ExtendedMapEntry to set a TTL, got " + entry.getClass().getName());
        }
        extended.setValue(stored.state(), stored.ttlMillis(), TimeUnit.MILLISECONDS);
        return null;
    }

    /** @return null: a backup has no backup of its own */
    @Override
    public EntryProcessor<String, LimiterState, DecisionResult> getBackupProcessor() {
        return null;
    }

    @Override
    public int getFactoryId() {
        return BatchDecideProcessor.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return CLASS_ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(format);
        out.writeInt(states.size());
        for (Map.Entry<String, Stored> e : states.entrySet()) {
            out.writeString(e.getKey());
            out.writeObject(e.getValue().state());
            out.writeLong(e.getValue().ttlMillis());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = in.readByte();
        int n = in.readInt();
        if (n < 0 || n > DecideProcessor.MAX_BATCH) {
            throw new IOException("key count out of range: " + n);
        }
        states = new LinkedHashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            String key = in.readString();
            Object state = in.readObject();
            if (!(state instanceof LimiterState s)) {
                throw new IOException("expected a LimiterState, got " + (state == null ? "null" : state.getClass()));
            }
            states.put(key, new Stored(s, in.readLong()));
        }
    }
}
