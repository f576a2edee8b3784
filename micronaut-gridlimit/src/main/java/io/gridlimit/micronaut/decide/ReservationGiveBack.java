package io.gridlimit.micronaut.decide;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;

/**
 * The {@link GiveBack} of reservations (docs/SPEC.md §10): a grid admission is given back with
 * {@link RateLimiter#giveBack} under the policy its state lives in (a settle to 0 on the key's owner, retried on grid
 * failures until it answers or the reservation's hold has passed), a local one on this replica's share
 * ({@link LocalFallback#giveBack}). Each give-back is counted once it is answered:
 * {@value GridLimitMetrics#GIVE_BACKS}{@code {policy, reason, result}}, result {@code given-back},
 * {@code already-settled} or {@code lost} (the grid failed until the reservation expired, or the local share is gone:
 * its cost stands, which errs towards denying). Thread-safe; never blocks (a local give-back is one in-memory step).
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
    public void giveBack(Answer admitted, GridLimitMetrics.GiveBackReason reason) {
        if (!admitted.admitted() || admitted.decision().reservation() == null) {
            return; // a denial consumed nothing; a plain admission (no reservation) cannot be returned
        }
        Ask ask = admitted.ask();
        if (admitted.local()) {
            GiveBacks.local(local, ask.policy(), admitted.decision().reservation(), reason, metrics);
        } else {
            GiveBacks.onGrid(limiter, ask.state(), admitted.decision().reservation(), ask.policy().name(), reason,
                    metrics);
        }
    }
}
