package io.gridlimit.grid.owner;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Internal to grid-core: not API; public for the factory ({@code io.gridlimit.grid}), which creates it by class id.
 *
 * <p>The backup processor of a decision (SPEC §8): it stores, on a backup replica, exactly the state the primary
 * computed, with the TTL the primary set. It reads no clock and runs no algorithm. Wire form: the state (a
 * Compact object) and the TTL in milliseconds; that is format 1 (class id
 * {@link SerializationIds#WRITE_STATE_PROCESSOR}), and format 2 (class id
 * {@link SerializationIds#WRITE_STATE_PROCESSOR_VERSIONED}) is the format byte 2, then the same fields. It is
 * written in the primary's {@link WireFormat#writeFormat()} at the time it is created. Its result is always null
 * (a backup answers nobody). Not thread-safe; one instance per backup operation.
 */
public final class WriteStateProcessor
        implements EntryProcessor<String, LimiterState, DecisionResult>, IdentifiedDataSerializable {
    private LimiterState state;
    private long ttlMillis;
    /** The wire format to write, or that was read; 0 while a versioned form waits to be read. */
    private byte format;

    /**
     * For deserialization.
     *
     * @param versioned whether the stream starts with a format byte (class id 6) or is format 1 (class id 2)
     */
    public WriteStateProcessor(boolean versioned) {
        this.format = versioned ? 0 : WireFormat.UNVERSIONED;
    }

    /**
     * A backup written in format {@link WireFormat#writeFormat()}.
     *
     * @param state the state the primary wrote
     * @param ttlMillis the TTL the primary handed to Hazelcast, in milliseconds, >= 1
     */
    WriteStateProcessor(LimiterState state, long ttlMillis) {
        this(state, ttlMillis, WireFormat.writeFormat());
    }

    /**
     * Stores a state the primary computed with its TTL (SPEC §8: {@link DecideProcessor#storedTtlMillis}) and returns
     * the backup processor carrying exactly that state and TTL: the one write of every GridLimit EntryProcessor.
     *
     * @param entry the entry being processed, an {@link ExtendedMapEntry}
     * @param state the state to store
     * @param ttlNanos the state's TTL in nanoseconds, >= 0
     * @return the backup processor
     * @throws IllegalStateException if the entry cannot take a TTL
     */
    static WriteStateProcessor store(Map.Entry<String, LimiterState> entry, LimiterState state, long ttlNanos) {
        if (!(entry instanceof ExtendedMapEntry<String, LimiterState> extended)) {
            throw new IllegalStateException("GridLimit needs an ExtendedMapEntry to set a TTL, got "
                    + entry.getClass().getName());
        }
        long ttlMillis = DecideProcessor.storedTtlMillis(ttlNanos);
        extended.setValue(state, ttlMillis, TimeUnit.MILLISECONDS);
        return new WriteStateProcessor(state, ttlMillis);
    }

    /**
     * @param state the state the primary wrote
     * @param ttlMillis the TTL the primary handed to Hazelcast, in milliseconds, >= 1
     * @param format the wire format to write
     */
    WriteStateProcessor(LimiterState state, long ttlMillis, byte format) {
        this.state = Objects.requireNonNull(state, "state");
        if (ttlMillis < 1) {
            throw new IllegalArgumentException("ttlMillis must be >= 1, got " + ttlMillis);
        }
        this.ttlMillis = ttlMillis;
        this.format = format;
    }

    /** @return the wire format this processor is written in, or was read in */
    byte format() {
        return format;
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
        WireFormat.writeVersion(out, format);
        out.writeObject(state);
        out.writeLong(ttlMillis);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        format = format == WireFormat.UNVERSIONED ? WireFormat.check(format, "WriteStateProcessor")
                : WireFormat.readVersion(in, "WriteStateProcessor");
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
        return format == WireFormat.UNVERSIONED ? SerializationIds.WRITE_STATE_PROCESSOR
                : SerializationIds.WRITE_STATE_PROCESSOR_VERSIONED;
    }

    @Override
    public String toString() {
        return "WriteStateProcessor{" + state + " ttlMillis=" + ttlMillis + "}";
    }
}
