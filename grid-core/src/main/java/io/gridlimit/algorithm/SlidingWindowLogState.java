package io.gridlimit.algorithm;

import java.util.Arrays;

/**
 * Sliding window log state (docs/SPEC.md §3): the accepted requests still in view, oldest first.
 *
 * <p>Entry {@code i} is accepted cost {@code entryCosts[i]} at epoch nanoseconds {@code entryNanos[i]}. Requests
 * accepted at the same reading share one entry (they count and expire together), so a log never holds more
 * entries than its limit (at most 100 000) and a cost fits an {@code int}. Entry times are strictly increasing and
 * never after {@link #lastNanos()}. Entries that no longer count are pruned on every write. The window length is
 * kept so a policy change of the window starts the key fresh (SPEC §4). Immutable and thread-safe: the arrays are
 * copied in and out.
 */
public final class SlidingWindowLogState implements LimiterState {
    private static final long[] NO_NANOS = new long[0];
    private static final int[] NO_COSTS = new int[0];

    private final long lastNanos;
    private final long windowNanos;
    final long[] entryNanos;
    final int[] entryCosts;

    /**
     * Creates a state, copying the arrays.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param windowNanos the window length the state was written under, in nanoseconds, > 0
     * @param entryNanos entry times, epoch nanoseconds, strictly increasing, none after {@code lastNanos}
     * @param entryCosts entry costs, each >= 1, as many as {@code entryNanos}
     * @throws IllegalArgumentException if a value is out of its range or the arrays differ in length
     * @throws NullPointerException if an array is null
     */
    public SlidingWindowLogState(long lastNanos, long windowNanos, long[] entryNanos, int[] entryCosts) {
        this(lastNanos, windowNanos, entryNanos.clone(), entryCosts.clone(), true);
    }

    /** Takes ownership of the arrays; checks them only when {@code check}. */
    SlidingWindowLogState(long lastNanos, long windowNanos, long[] entryNanos, int[] entryCosts, boolean check) {
        if (check) {
            if (windowNanos <= 0) {
                throw new IllegalArgumentException("windowNanos must be > 0, got " + windowNanos);
            }
            if (entryNanos.length != entryCosts.length) {
                throw new IllegalArgumentException("entryNanos has " + entryNanos.length + " entries but entryCosts has "
                        + entryCosts.length);
            }
            for (int i = 0; i < entryNanos.length; i++) {
                if (entryCosts[i] < 1) {
                    throw new IllegalArgumentException("entryCosts[" + i + "] must be >= 1, got " + entryCosts[i]);
                }
                if ((i > 0 && entryNanos[i] <= entryNanos[i - 1]) || entryNanos[i] > lastNanos) {
                    throw new IllegalArgumentException("entryNanos[" + i + "] = " + entryNanos[i]
                            + " is out of order or after lastNanos " + lastNanos);
                }
            }
        }
        this.lastNanos = lastNanos;
        this.windowNanos = windowNanos;
        this.entryNanos = entryNanos.length == 0 ? NO_NANOS : entryNanos;
        this.entryCosts = entryCosts.length == 0 ? NO_COSTS : entryCosts;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return the window length this state was written under, in nanoseconds */
    public long windowNanos() {
        return windowNanos;
    }

    /** @return a copy of the entry times, epoch nanoseconds, oldest first */
    public long[] entryNanos() {
        return entryNanos.clone();
    }

    /** @return a copy of the entry costs, each >= 1, in the order of {@link #entryNanos()} */
    public int[] entryCosts() {
        return entryCosts.clone();
    }

    /** @return the number of entries, in [0, 100 000] */
    public int size() {
        return entryNanos.length;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof SlidingWindowLogState s && lastNanos == s.lastNanos
                && windowNanos == s.windowNanos && Arrays.equals(entryNanos, s.entryNanos)
                && Arrays.equals(entryCosts, s.entryCosts));
    }

    @Override
    public int hashCode() {
        return Long.hashCode(lastNanos * 31 + windowNanos) * 31 * 31 + Arrays.hashCode(entryNanos) * 31
                + Arrays.hashCode(entryCosts);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SlidingWindowLogState{lastNanos=").append(lastNanos)
                .append(" windowNanos=").append(windowNanos).append(" entries=[");
        int shown = Math.min(entryNanos.length, 8);
        for (int i = 0; i < shown; i++) {
            b.append(i == 0 ? "" : ", ").append(entryNanos[i]).append('x').append(entryCosts[i]);
        }
        if (shown < entryNanos.length) {
            b.append(", ... ").append(entryNanos.length - shown).append(" more");
        }
        return b.append("]}").toString();
    }
}
