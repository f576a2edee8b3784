package io.gridlimit.grid;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.LimiterState;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The backup processor of a decision (SPEC §8): it stores, on a backup replica, exactly the state the primary
 * computed, with the TTL the primary set. It reads no clock and runs no algorithm. Wire form: the state (a
 * Compact object) and the TTL in milliseconds. Its result is always null (a backup answers nobody). Not thread-safe; one instance per backup operation.
 */
final class WriteStateProcessor
        implements EntryProcessor<String, LimiterState, DecisionResult>, IdentifiedDataSerializable {
    private LimiterState state;
    private long ttlMillis;

    /** For deserialization. */
    WriteStateProcessor() {
    }

    /**
     * @param state the state the primary wrote
     * @param ttlMillis the TTL the primary handed to Hazelcast, in milliseconds, >= 1
     */
    WriteStateProcessor(LimiterState state, long ttlMillis) {
        this.state = Objects.requireNonNull(state, "state");
        if (ttlMillis < 1) {
            throw new IllegalArgumentException("ttlMillis must be >= 1, got " + ttlMillis);
        }
        this.ttlMillis = ttlMillis;
    }

    @Override
    public DecisionResult process(Map.Entry<String, LimiterState> entry) {
        if (!(entry instanceof ExtendedMapEntry<String, LimiterState> extended)) {
            throw new IllegalStateException("GridLimit needs an ExtendedMapEntry to set a TTL, got "
                    + entry.getClass().getName());
        }
        extended.setValue(state, ttlMillis, TimeUnit.MILLISECONDS);
        return null;
    }

    /** @return null: a backup has no backup of its own */
    @Override
    public EntryProcessor<String, LimiterState, DecisionResult> getBackupProcessor() {
        return null;
    }

    LimiterState state() {
        return state;
    }

    long ttlMillis() {
        return ttlMillis;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeObject(state);
        out.writeLong(ttlMillis);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        Object read = in.readObject();
        if (!(read instanceof LimiterState s)) {
            throw new IOException("expected a LimiterState, got " + (read == null ? "null" : read.getClass()));
        }
        state = s;
        ttlMillis = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.WRITE_STATE_PROCESSOR;
    }

    @Override
    public String toString() {
        return "WriteStateProcessor{" + state + " ttlMillis=" + ttlMillis + "}";
    }
}
