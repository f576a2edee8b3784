package io.gridlimit.grid.async;

import io.gridlimit.api.Settlement;

/**
 * Observes the give-backs a {@link io.gridlimit.grid.HazelcastRateLimiter} makes on its own (docs/SPEC.md §10): of an admission taken
 * as a reservation whose stage its caller had already cancelled (a timeout), so that the cancelled request
 * consumes nothing. Called once per such give-back, on the limiter's callback pool; keep it short and
 * non-blocking. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface GiveBackListener {
    /** A listener that does nothing. */
    GiveBackListener NONE = (policy, settlement, failure) -> { };

    /**
     * Reports one give-back of a late admission.
     *
     * @param policy the policy name
     * @param settlement the settlement when a settle answered (usually {@link Settlement.Status#SETTLED}), else
     *     null
     * @param failure the last grid failure when the give-back was lost (retried until the reservation expired),
     *     else null
     */
    void lateGiveBack(String policy, Settlement settlement, Throwable failure);
}
