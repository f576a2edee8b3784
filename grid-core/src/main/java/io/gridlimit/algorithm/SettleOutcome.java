package io.gridlimit.algorithm;

import io.gridlimit.api.Settlement;

import java.util.Objects;

/**
 * The result of one pure settle (docs/SPEC.md §10): the {@link Settlement} and what the grid must store.
 *
 * <p>When {@link #write()} is true the grid stores {@link #state()} with a TTL of {@link #ttlNanos()}, as for a
 * decision ({@link Outcome}); a settle that changes nothing (unknown, forged, expired, already settled) writes
 * nothing. Immutable and thread-safe.
 */
public final class SettleOutcome {
    private final Settlement settlement;
    private final boolean write;
    private final LimiterState state;
    private final long ttlNanos;

    SettleOutcome(Settlement settlement, boolean write, LimiterState state, long ttlNanos) {
        this.settlement = Objects.requireNonNull(settlement, "settlement");
        if (write && state == null) {
            throw new IllegalArgumentException("a write needs a state");
        }
        this.write = write;
        this.state = state;
        this.ttlNanos = Math.max(0, ttlNanos);
    }

    static SettleOutcome none(Settlement settlement, LimiterState unchanged) {
        return new SettleOutcome(settlement, false, unchanged, 0);
    }

    /** @return what the settle did, never null */
    public Settlement settlement() {
        return settlement;
    }

    /** @return true iff {@link #state()} must be stored */
    public boolean write() {
        return write;
    }

    /** @return the state to store when {@link #write()}; otherwise the input state (null when there was none) */
    public LimiterState state() {
        return state;
    }

    /** @return nanoseconds after the reading at which the written state equals a fresh one, >= 0; 0 without a write */
    public long ttlNanos() {
        return ttlNanos;
    }

    @Override
    public String toString() {
        return "SettleOutcome{" + settlement + (write ? " write ttlNanos=" + ttlNanos + " " + state : " no write")
                + "}";
    }
}
