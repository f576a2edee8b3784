package io.gridlimit.algorithm;

import io.gridlimit.api.Decision;

/**
 * One band's answer to one request, before the composite rule combines bands (SPEC §4); {@link Settle}, its answer
 * to a settle (SPEC §10). Package-private.
 *
 * <p>{@code admittedState} is the state after consuming the cost (null when denied); {@code keepState} is the
 * state as it stands at the reading without consuming (rebased when {@code rebased}; null when the band has no
 * usable state, i.e. it is fresh); {@code keepResetAfterNanos} is its time until fresh, which is also its TTL.
 */
final class BandResult {
    final boolean allowed;
    /** After this request when admitted, else now; in [0, quota]. */
    final long remaining;
    /** Of the admitted state when admitted, else of the kept state. */
    final long resetAfterNanos;
    /** > 0 on a denial that can pass, else {@link Decision#NO_RETRY}. */
    final long retryAfterNanos;
    final boolean rebased;
    final LimiterState admittedState;
    final LimiterState keepState;
    final long keepResetAfterNanos;

    private BandResult(boolean allowed, long remaining, long resetAfterNanos, long retryAfterNanos, boolean rebased,
                       LimiterState admittedState, LimiterState keepState, long keepResetAfterNanos) {
        this.allowed = allowed;
        this.remaining = remaining;
        this.resetAfterNanos = resetAfterNanos;
        this.retryAfterNanos = retryAfterNanos;
        this.rebased = rebased;
        this.admittedState = admittedState;
        this.keepState = keepState;
        this.keepResetAfterNanos = keepResetAfterNanos;
    }

    static BandResult admitted(long remaining, long resetAfterNanos, LimiterState admittedState, boolean rebased,
                               LimiterState keepState, long keepResetAfterNanos) {
        return new BandResult(true, remaining, resetAfterNanos, Decision.NO_RETRY, rebased, admittedState, keepState,
                keepResetAfterNanos);
    }

    static BandResult denied(long remaining, long retryAfterNanos, boolean rebased, LimiterState keepState,
                             long keepResetAfterNanos) {
        return new BandResult(false, remaining, keepResetAfterNanos, retryAfterNanos, rebased, null, keepState,
                keepResetAfterNanos);
    }

    /** @return true for a denial that can never pass */
    boolean neverPasses() {
        return !allowed && retryAfterNanos == Decision.NO_RETRY;
    }

    /**
     * One band's part of a settle (docs/SPEC.md §10). Package-private.
     *
     * @param state the band's state after the settle; the input state when nothing changed (null when fresh)
     * @param changed whether {@code state} must be written
     * @param excess the cost a charge did not take because the band's maximum debt would have been exceeded, >= 0
     * @param debt whether the band's balance is below zero after the settle
     */
    record Settle(LimiterState state, boolean changed, long excess, boolean debt) {
        static Settle unchanged(LimiterState state) {
            return new Settle(state, false, 0, false);
        }
    }
}
