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
public final class SettleOutcome extends StateWrite {
    private final Settlement settlement;

    SettleOutcome(Settlement settlement, boolean write, LimiterState state, long ttlNanos) {
        super(write, state, Math.max(0, ttlNanos));
        this.settlement = Objects.requireNonNull(settlement, "settlement");
    }

    static SettleOutcome none(Settlement settlement, LimiterState unchanged) {
        return new SettleOutcome(settlement, false, unchanged, 0);
    }

    /** @return what the settle did, never null */
    public Settlement settlement() {
        return settlement;
    }

    @Override
    public String toString() {
        return "SettleOutcome{" + settlement + writeString() + "}";
    }
}
