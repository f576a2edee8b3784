package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;

import java.util.concurrent.CompletionStage;

/**
 * The one seam through which the Envoy service takes each descriptor's decision and returns what an admission took
 * when the request it belonged to is not admitted as a whole (docs/SPEC.md §12, §10): the other descriptors of a
 * request that a descriptor not in shadow mode denied, every descriptor of a request answered {@code UNAVAILABLE},
 * and a grid admission that arrived after the call was already answered by the failure mode.
 *
 * <p>The default bean is {@link ReservationGiveBack}: each descriptor is decided as a reservation
 * ({@link RateLimiter#reserveAsync(Policy, String, long)}) and given back with {@link RateLimiter#giveBack} (a
 * grid admission) or on the failure-mode local limiter (a local admission). Replace it through
 * {@link GiveBackFactory}. Implementations are thread-safe.
 */
public interface GiveBack {
    /**
     * Asks the limiter for one descriptor's decision, taking its cost as a reservation when admitted. This default
     * is {@link RateLimiter#reserveAsync(Policy, String, long)}: a denial carries no reservation and consumes
     * nothing; a stage the service cancels (the call was answered without it) is never sent when still queued on
     * this replica and is given back by the limiter when its admission arrives later (SPEC §10).
     *
     * @param limiter the application's limiter
     * @param policy the descriptor's policy
     * @param key its grid key
     * @param cost the cost asked, in [1, 10^15]
     * @return the pending decision, as {@code reserveAsync} returns it
     */
    default CompletionStage<Decision> decide(RateLimiter limiter, Policy policy, String key, long cost) {
        return limiter.reserveAsync(policy, key, cost);
    }

    /**
     * Returns everything one admission took, so that its request consumed nothing there, and counts it
     * ({@value GridLimitMetrics#GIVE_BACKS}). An admission without a reservation (a limiter that takes none)
     * cannot be returned: its cost stands and nothing is counted. Never blocks; never throws.
     *
     * @param policy the descriptor's policy as configured (for a local admission, the policy whose share decided)
     * @param admitted the admitting decision
     * @param local whether the failure-mode local limiter admitted it (else the grid)
     * @param reason why: {@code denied} (another descriptor denied), {@code failed} (answered {@code UNAVAILABLE}),
     *     {@code late} (admitted after the call was answered)
     */
    void giveBack(Policy policy, Decision admitted, boolean local, GridLimitMetrics.GiveBackReason reason);
}
