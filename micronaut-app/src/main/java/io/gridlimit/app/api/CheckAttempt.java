package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.decide.GiveBacks;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One request's checks, each taken as a reservation so that it can be given back (docs/SPEC.md §10): when the
 * request is answered 503 (a grid failure or the timeout) every admission is given back and nothing more is
 * sent; a check still queued in the limiter is cancelled (never sent), one in flight is given back by the
 * limiter when its admission arrives ({@code reason=late}). An atomic batch with a denial gives back its
 * admissions the same way ({@code reason=denied}). The decision API's ({@link DecisionApiController}) part of
 * docs/SPEC.md §5 and §10: one per check or batch request, created before anything is sent. Thread-safe: its
 * state is guarded by its own monitor.
 */
final class CheckAttempt {
    private final RateLimiter rateLimiter;
    private final PolicySource catalog;
    private final GridLimitMetrics metrics;

    /** The checks with their chosen policies (an override's), as answered. */
    private final List<CheckRequests.Check> checks;
    private final Decision[] admitted;
    private final List<CompletableFuture<Decision>> sent = new ArrayList<>();
    private boolean over;

    /** What each check is sent as: its chosen policy's parameters on the state of the policy asked for. */
    private final io.gridlimit.api.Policy[] grid;

    /**
     * @param asked the checks as asked; each key's override (docs/SPEC.md §11) is applied here: the answer and
     *     meters name the chosen policy, and it decides on the state of the policy asked for, so removing or
     *     changing the override carries that state over (SPEC §4)
     * @param rateLimiter the grid-backed limiter the checks are reserved on and given back to
     * @param catalog a key's override under the policy asked for (docs/SPEC.md §11), resolved locally
     * @param metrics counts each decision ({@code source=api}), reservation and give-back
     */
    CheckAttempt(List<CheckRequests.Check> asked, RateLimiter rateLimiter, PolicySource catalog,
                 GridLimitMetrics metrics) {
        this.rateLimiter = rateLimiter;
        this.catalog = catalog;
        this.metrics = metrics;
        this.checks = new ArrayList<>(asked.size());
        this.grid = new io.gridlimit.api.Policy[asked.size()];
        for (int i = 0; i < asked.size(); i++) {
            CheckRequests.Check c = asked.get(i);
            io.gridlimit.api.Policy chosen = catalog.resolve(c.policy(), c.key());
            checks.add(chosen == c.policy() ? c : new CheckRequests.Check(chosen, c.key(), c.cost(), c.reserve()));
            grid[i] = catalog.onStateOf(chosen, c.policy().name());
        }
        this.admitted = new Decision[asked.size()];
    }

    /** Sends check {@code i}, unless the request was already answered 503. */
    CompletableFuture<Decision> decide(int i) {
        CheckRequests.Check check = checks.get(i);
        CompletableFuture<Decision> result = new CompletableFuture<>();
        CompletableFuture<Decision> stage;
        synchronized (this) {
            if (over) {
                result.completeExceptionally(new CancellationException("the request was answered 503"));
                return result;
            }
            try {
                stage = rateLimiter.reserveAsync(grid[i], check.key(), check.cost()).toCompletableFuture();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return result;
            }
            sent.add(stage);
        }
        String policyName = check.policy().name();
        stage.whenComplete((decision, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
                return;
            }
            metrics.decision(GridLimitMetrics.Source.API, policyName,
                    decision.allowed() ? GridLimitMetrics.Outcome.ALLOWED : GridLimitMetrics.Outcome.DENIED);
            if (decision.reservation() != null) {
                boolean late;
                synchronized (this) {
                    late = over;
                    if (!late) {
                        admitted[i] = decision;
                    }
                }
                if (late) { // answered 503 meanwhile: this admission must not stand
                    giveBack(i, decision, GridLimitMetrics.GiveBackReason.FAILED);
                }
            }
            result.complete(decision);
        });
        return result;
    }

    /** Answered 503: nothing more is sent, queued checks are cancelled, admissions given back. */
    void finish() {
        List<CompletableFuture<Decision>> pending;
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
            pending = List.copyOf(sent);
        }
        pending.forEach(f -> f.cancel(false)); // queued: never sent; in flight: given back by the limiter
        giveBackAll(GridLimitMetrics.GiveBackReason.FAILED);
    }

    /** Gives back every admission recorded so far, once. */
    void giveBackAll(GridLimitMetrics.GiveBackReason reason) {
        for (int i = 0; i < admitted.length; i++) {
            Decision d;
            synchronized (this) {
                d = admitted[i];
                admitted[i] = null;
            }
            if (d != null) {
                giveBack(i, d, reason);
            }
        }
    }

    /** The answer of check {@code i}: its reservation shown only when it asked for one. */
    CheckResponse shown(int i, Decision decision) {
        CheckRequests.Check check = checks.get(i);
        CheckResponse r = CheckResponse.of(decision, check.policy().name());
        if (check.reserve() && decision.reservation() != null) {
            metrics.reservation(GridLimitMetrics.Source.API, check.policy().name());
            return r.withReservation(decision.reservation().token());
        }
        return r;
    }

    private void giveBack(int i, Decision decision, GridLimitMetrics.GiveBackReason reason) {
        GiveBacks.onGrid(rateLimiter, grid[i], decision.reservation(), checks.get(i).policy().name(), reason,
                metrics);
    }
}
