package io.gridlimit.grid.lease;

import io.gridlimit.grid.lease.LeaseSettings;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The units asked of keys without a lease entry (docs/SPEC.md §13, "When"), counted per sizing window in a fixed
 * table of {@link #COLD_SLOTS} counters by hash, so that a cold key allocates nothing. Thread-safe (lock-free).
 */
final class ColdCounters {
    /** Counters of keys without an entry (a power of two). */
    static final int COLD_SLOTS = 1 << 16;

    /** Per counter: window number (upper 32 bits) and units (lower). */
    private final AtomicLongArray cold = new AtomicLongArray(COLD_SLOTS);
    private final long epochTicks;
    private final long windowNanos;

    /**
     * @param epochTicks the ticker's reading the windows are counted from
     * @param windowNanos the sizing window ({@link LeaseSettings#windowNanos()}), > 0
     */
    ColdCounters(long epochTicks, long windowNanos) {
        this.epochTicks = epochTicks;
        this.windowNanos = windowNanos;
    }

    /**
     * The units a key without an entry has been asked for in the current window, this request's included, counted in
     * a fixed table of {@link #COLD_SLOTS} counters by hash (no allocation per cold key): keys sharing a counter only
     * make a key look busier, never colder; a key gets an entry once its count reaches
     * {@link LeaseSettings#minUnits()}.
     */
    long add(Object slot, long cost, long nowTicks) {
        int index = (slot.hashCode() * 0x9E3779B9 >>> 16) & (COLD_SLOTS - 1);
        long window = Math.floorDiv(nowTicks - epochTicks, windowNanos) & 0xFFFF_FFFFL;
        while (true) {
            long packed = cold.get(index);
            long count = (packed >>> 32) == window ? packed & 0xFFFF_FFFFL : 0;
            long next = Math.min(0xFFFF_FFFFL, count + cost);
            if (cold.compareAndSet(index, packed, window << 32 | next)) {
                return next;
            }
        }
    }
}
