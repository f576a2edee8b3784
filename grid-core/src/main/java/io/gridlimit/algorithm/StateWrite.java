package io.gridlimit.algorithm;

/**
 * What the grid must store after one pure decision or settle ({@link Outcome} SPEC §3, §8; {@link SettleOutcome}
 * §10): whether to write, the state, and the TTL of the written state. When writing, the grid stores
 * {@link #state()} with a TTL of {@link #ttlNanos()} rounded up to whole milliseconds, at least 1 ms (SPEC §8).
 * Immutable and thread-safe.
 */
abstract class StateWrite {
    private final boolean write;
    private final LimiterState state;
    private final long ttlNanos;

    /**
     * @param write whether {@code state} must be stored
     * @param state the state to store, or (no write) the input state, null when there was none
     * @param ttlNanos nanoseconds after the reading at which the written state equals a fresh one, >= 0
     * @throws IllegalArgumentException if a write has no state, or {@code ttlNanos} is negative
     */
    StateWrite(boolean write, LimiterState state, long ttlNanos) {
        if (write && state == null) {
            throw new IllegalArgumentException("a write needs a state");
        }
        if (ttlNanos < 0) {
            throw new IllegalArgumentException("ttlNanos must be >= 0, got " + ttlNanos);
        }
        this.write = write;
        this.state = state;
        this.ttlNanos = ttlNanos;
    }

    /** @return true iff {@link #state()} must be stored */
    public boolean write() {
        return write;
    }

    /**
     * Returns the state to store when {@link #write()} is true; otherwise the input state, unchanged.
     *
     * @return the state; null only when nothing is written and there was no state
     */
    public LimiterState state() {
        return state;
    }

    /**
     * Returns, when {@link #write()} is true, the nanoseconds after the reading at which the written state equals
     * a fresh one (bucket full, TAT passed, windows gone); 0 when nothing is written.
     *
     * @return nanoseconds, >= 0, saturating at {@link Long#MAX_VALUE}
     */
    public long ttlNanos() {
        return ttlNanos;
    }

    /** @return the write's part of {@code toString}: {@code " write ttlNanos=<n> <state>"} or {@code " no write"} */
    final String writeString() {
        return write ? " write ttlNanos=" + ttlNanos + " " + state : " no write";
    }
}
