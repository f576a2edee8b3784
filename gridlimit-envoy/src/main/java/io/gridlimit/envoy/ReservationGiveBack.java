package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.decide.GiveBacks;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;

/**
 * The {@link GiveBack} of reservations (docs/SPEC.md §10, §12): every descriptor is decided with
 * {@link RateLimiter#reserveAsync(Policy, String, long)}; a grid admission is given back with
 * {@link RateLimiter#giveBack} (a settle to 0 on the key's owner, retried on grid failures until it answers or the
 * reservation's hold has passed), a local one on this replica's share ({@link LocalFallback#giveBack}). Each
 * give-back is counted once it is answered: {@value GridLimitMetrics#GIVE_BACKS}{@code {policy, reason, result}},
 * result {@code given-back}, {@code already-settled} or {@code lost} (the grid failed until the reservation
 * expired, or the local share is gone: its cost stands, which errs towards denying). Thread-safe; never blocks
 * (a local give-back is one in-memory step).
 */
public final class ReservationGiveBack implements GiveBack {
    private final RateLimiter limiter;
    private final LocalFallback local;
    private final GridLimitMetrics metrics;

    /**
     * @param limiter the application's limiter, which took the grid reservations
     * @param local the failure-mode local decider, which took the local ones
     * @param metrics counts the give-backs
     */
    public ReservationGiveBack(RateLimiter limiter, LocalFallback local, GridLimitMetrics metrics) {
        this.limiter = limiter;
        this.local = local;
        this.metrics = metrics;
    }

    @Override
    public void giveBack(Policy policy, Decision admitted, boolean local,
                         GridLimitMetrics.GiveBackReason reason) {
        if (!admitted.allowed() || admitted.reservation() == null) {
            return; // a denial consumed nothing; a plain admission (no reservation) cannot be returned
        }
        if (local) {
            GiveBacks.local(this.local, policy, admitted.reservation(), reason, metrics);
        } else {
            GiveBacks.onGrid(limiter, policy, admitted.reservation(), policy.name(), reason, metrics);
        }
    }
}
