package io.gridlimit.algorithm;

/**
 * Fixed window state (SPEC §3): {@link #count()} accepted cost in the window that contains {@link #lastNanos()}
 * (windows aligned to epoch 0: window {@code k} is {@code [k·W, (k+1)·W)}).
 *
 * <p>The window is always the one of {@code lastNanos}: a write at {@code t} and a rebase to {@code t} both set
 * {@code lastNanos = t}, so no window index is stored. The window length is kept so a policy change of the window
 * starts the key fresh (SPEC §4). Three longs. Immutable and thread-safe.
 */
public final class FixedWindowState implements LimiterState {
    private final long lastNanos;
    private final long count;
    private final long windowNanos;

    /**
     * Creates a state.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param count accepted cost in the window of {@code lastNanos}, >= 0
     * @param windowNanos the window length the state was written under, in nanoseconds, > 0
     * @throws IllegalArgumentException if a value is out of its range (the message names it)
     */
    public FixedWindowState(long lastNanos, long count, long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos must be > 0, got " + windowNanos);
        }
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
        this.lastNanos = lastNanos;
        this.count = count;
        this.windowNanos = windowNanos;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return accepted cost in the window containing {@link #lastNanos()}, >= 0 */
    public long count() {
        return count;
    }

    /** @return the window length this state was written under, in nanoseconds */
    public long windowNanos() {
        return windowNanos;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof FixedWindowState s && lastNanos == s.lastNanos && count == s.count
                && windowNanos == s.windowNanos);
    }

    @Override
    public int hashCode() {
        return Long.hashCode((lastNanos * 31 + count) * 31 + windowNanos);
    }

    @Override
    public String toString() {
        return "FixedWindowState{lastNanos=" + lastNanos + " count=" + count + " windowNanos=" + windowNanos + "}";
    }
}
