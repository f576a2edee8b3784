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
public final class Outcome extends StateWrite {
    private final Decision decision;

    Outcome(Decision decision, boolean write, LimiterState state, long ttlNanos) {
        super(write, state, ttlNanos);
        this.decision = Objects.requireNonNull(decision, "decision");
    }

    /** @return the decision, never null */
    public Decision decision() {
        return decision;
    }

    @Override
    public String toString() {
        return "Outcome{" + decision + writeString() + "}";
    }
}
