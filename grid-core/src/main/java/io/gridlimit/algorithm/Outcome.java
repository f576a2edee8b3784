package io.gridlimit.algorithm;

import io.gridlimit.api.Decision;

import java.util.Objects;

/**
 * The result of one pure decision: the {@link Decision} and what the grid must store.
 *
 * <p>{@link #write()} is true when the request was admitted or the state was rebased after a clock step back
 * (SPEC §2); a plain denial writes nothing (SPEC §3). When writing, the grid stores {@link #state()} with a TTL of
 * {@link #ttlNanos()} rounded up to whole milliseconds, at least 1 ms (SPEC §8). Immutable and thread-safe.
 */
public final class Outcome {
    private final Decision decision;
    private final boolean write;
    private final LimiterState state;
    private final long ttlNanos;

    Outcome(Decision decision, boolean write, LimiterState state, long ttlNanos) {
        this.decision = Objects.requireNonNull(decision, "decision");
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

    /** @return the decision, never null */
    public Decision decision() {
        return decision;
    }

    /** @return true iff {@link #state()} must be stored: the request was admitted, or the state was rebased */
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
     * Returns, when {@link #write()} is true, the nanoseconds after the decision's reading at which the written
     * state equals a fresh one (bucket full, TAT passed, windows gone); 0 when nothing is written.
     *
     * @return nanoseconds, >= 0, saturating at {@link Long#MAX_VALUE}
     */
    public long ttlNanos() {
        return ttlNanos;
    }

    @Override
    public String toString() {
        return "Outcome{" + decision + (write ? " write ttlNanos=" + ttlNanos + " " + state : " no write") + "}";
    }
}
