package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Gives back one admission's reservation and counts the result (docs/SPEC.md §10, "all-or-nothing" and "timed-out
 * requests"), the one step the filter, the decision API and the Envoy service share: a grid reservation goes back to
 * the owner through {@link RateLimiter#giveBack} (retried there until it succeeds or the reservation expires), a local
 * one to the {@link LocalFallback}'s share. Neither method throws or blocks: a failure is counted as
 * {@code lost} ({@link GridLimitMetrics#giveBack}), and the reserved cost stands, which errs towards denying.
 */
public final class GiveBacks {
    private static final Logger LOG = LoggerFactory.getLogger(GiveBacks.class);

    private GiveBacks() {
    }

    /**
     * Gives a grid reservation back; the count is taken when the owner answers.
     *
     * @param limiter the limiter that took the reservation
     * @param taken the policy the reservation was taken under (the catalog's state policy, SPEC §11)
     * @param reservation the admission's reservation
     * @param counted the policy name the meters use (the chosen plan or override, SPEC §11)
     * @param reason why it is given back
     * @param metrics counts the result
     */
    public static void onGrid(RateLimiter limiter, Policy taken, Reservation reservation, String counted,
                              GridLimitMetrics.GiveBackReason reason, GridLimitMetrics metrics) {
        CompletionStage<Settlement> back;
        try {
            back = limiter.giveBack(taken, reservation);
        } catch (RuntimeException e) {
            back = CompletableFuture.failedFuture(e);
        }
        back.whenComplete((s, e) -> metrics.giveBack(counted, reason, e == null ? s : null));
    }

    /**
     * Gives a local admission's reservation back to the replica's share, at once.
     *
     * @param local the local fallback that took the reservation
     * @param policy the policy as configured
     * @param reservation the admission's reservation
     * @param reason why it is given back
     * @param metrics counts the result
     */
    public static void local(LocalFallback local, Policy policy, Reservation reservation,
                             GridLimitMetrics.GiveBackReason reason, GridLimitMetrics metrics) {
        Settlement settled;
        try {
            settled = local.giveBack(policy, reservation);
        } catch (RuntimeException e) {
            LOG.debug("local give-back of policy '{}' failed: {}", policy.name(), e.toString());
            settled = null;
        }
        metrics.giveBack(policy.name(), reason, settled);
    }
}
