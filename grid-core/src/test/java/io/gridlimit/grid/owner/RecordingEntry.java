package io.gridlimit.grid.owner;

import com.hazelcast.map.ExtendedMapEntry;
import io.gridlimit.algorithm.LimiterState;
import java.util.concurrent.TimeUnit;

/** A plain map entry that records every write and its TTL, for processor tests without a cluster. */
final class RecordingEntry implements ExtendedMapEntry<String, LimiterState> {
    private final String key;
    private LimiterState value;
    int writes;
    long lastTtl = Long.MIN_VALUE;
    TimeUnit lastTtlUnit;
    boolean lastWriteKeptExpiry;

    RecordingEntry(String key, LimiterState value) {
        this.key = key;
        this.value = value;
    }

    @Override
    public String getKey() {
        return key;
    }

    @Override
    public LimiterState getValue() {
        return value;
    }

    @Override
    public LimiterState setValue(LimiterState newValue) {
        LimiterState old = value;
        value = newValue;
        writes++;
        lastTtl = Long.MIN_VALUE;
        lastTtlUnit = null;
        lastWriteKeptExpiry = false;
        return old;
    }

    @Override
    public LimiterState setValue(LimiterState newValue, long ttl, TimeUnit ttlUnit) {
        LimiterState old = setValue(newValue);
        lastTtl = ttl;
        lastTtlUnit = ttlUnit;
        return old;
    }

    @Override
    public LimiterState setValueWithoutChangingExpiryTime(LimiterState newValue) {
        LimiterState old = setValue(newValue);
        lastWriteKeptExpiry = true;
        return old;
    }
}
