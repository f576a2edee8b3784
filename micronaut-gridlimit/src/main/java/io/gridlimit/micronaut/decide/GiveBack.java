package io.gridlimit.micronaut.decide;

import io.gridlimit.micronaut.metrics.GridLimitMetrics;

/**
 * The one seam through which the {@link Decider} returns what an admission took when the request it belonged to is
 * not admitted as a whole (docs/SPEC.md §10): the other rules of a request that a rule denied or that failed
 * (all-or-nothing), and an admission that arrived after its request was answered (a timeout, a cancel).
 *
 * <p>The default bean is {@link ReservationGiveBack} ({@link GiveBackFactory}); replace it there. Implementations
 * are thread-safe, never block and never throw.
 */
public interface GiveBack {
    /**
     * Returns everything one admission took, so that its request consumed nothing there, and counts it
     * ({@value GridLimitMetrics#GIVE_BACKS}). An admission without a reservation (a limiter that takes none) cannot
     * be returned: its cost stands and nothing is counted.
     *
     * @param admitted an admitting answer ({@link Answer#admitted()}), of the grid or the local fallback
     * @param reason why: {@code denied} (another rule denied), {@code failed} (the request was answered 503 or
     *     {@code UNAVAILABLE}), {@code late} (admitted after the request was answered)
     */
    void giveBack(Answer admitted, GridLimitMetrics.GiveBackReason reason);
}
