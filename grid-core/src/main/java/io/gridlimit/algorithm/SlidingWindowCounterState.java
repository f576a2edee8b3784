package io.gridlimit.algorithm;

/**
 * Sliding window counter state (docs/SPEC.md §3): accepted cost in the window {@code k} that contains
 * {@link #lastNanos()} ({@link #currentCount()}) and in window {@code k − 1} ({@link #previousCount()}).
 *
 * <p>As for the fixed window, the current window is always the one of {@code lastNanos}. The window length is
 * kept so a policy change of the window starts the key fresh (SPEC §4). Four longs. Immutable and thread-safe.
 */
public final class SlidingWindowCounterState implements LimiterState {
    private final long lastNanos;
    private final long currentCount;
    private final long previousCount;
    private final long windowNanos;

    /**
     * Creates a state.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param currentCount accepted cost in the window containing {@code lastNanos}, >= 0
     * @param previousCount accepted cost in the window before it, >= 0
     * @param windowNanos the window length the state was written under, in nanoseconds, > 0
     * @throws IllegalArgumentException if a value is out of its range (the message names it)
     */
    public SlidingWindowCounterState(long lastNanos, long currentCount, long previousCount, long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("windowNanos must be > 0, got " + windowNanos);
        }
        if (currentCount < 0) {
            throw new IllegalArgumentException("currentCount must be >= 0, got " + currentCount);
        }
        if (previousCount < 0) {
            throw new IllegalArgumentException("previousCount must be >= 0, got " + previousCount);
        }
        this.lastNanos = lastNanos;
        this.currentCount = currentCount;
        this.previousCount = previousCount;
        this.windowNanos = windowNanos;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return accepted cost in the window containing {@link #lastNanos()}, >= 0 */
    public long currentCount() {
        return currentCount;
    }

    /** @return accepted cost in the window before it, >= 0 */
    public long previousCount() {
        return previousCount;
    }

    /** @return the window length this state was written under, in nanoseconds */
    public long windowNanos() {
        return windowNanos;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof SlidingWindowCounterState s && lastNanos == s.lastNanos
                && currentCount == s.currentCount && previousCount == s.previousCount
                && windowNanos == s.windowNanos);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(((lastNanos * 31 + currentCount) * 31 + previousCount) * 31 + windowNanos);
    }

    @Override
    public String toString() {
        return "SlidingWindowCounterState{lastNanos=" + lastNanos + " current=" + currentCount + " previous="
                + previousCount + " windowNanos=" + windowNanos + "}";
    }
}
