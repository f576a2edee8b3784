package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.decide.Answer;
import io.gridlimit.micronaut.decide.Ask;
import io.gridlimit.micronaut.decide.Counting;
import io.gridlimit.micronaut.decide.Decider;
import io.gridlimit.micronaut.decide.Decisions;
import io.gridlimit.micronaut.decide.Door;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One request's checks, the decision API's ({@link DecisionApiController}) side of the door-neutral
 * {@link Decider} (docs/SPEC.md §5, §10): each check is one decision of the request's {@link Decisions}, taken as a
 * reservation so that it can be given back. When the request is answered 503 (a grid failure or the timeout) every
 * admission is given back and nothing more is sent; a check still queued in the limiter is cancelled (never sent),
 * one in flight is given back when its admission arrives ({@code reason=late}). An atomic batch with a denial gives
 * back its admissions the same way ({@code reason=denied}): the decider's {@link Counting}, chosen per request; a
 * batch that is not atomic keeps them beside its denials, and still gives them back when it is answered 503. One per
 * check or batch request, created before anything is sent. Thread-safe.
 */
final class CheckAttempt {
    private final GridLimitMetrics metrics;
    private final Decisions decisions;

    /** The checks with their chosen policies (an override's), as answered. */
    private final List<CheckRequests.Check> checks;
    /** What each check asks: its chosen policy's parameters on the state of the policy asked for. */
    private final List<Ask> asks;

    /**
     * @param asked the checks as asked; each key's override (docs/SPEC.md §11) is applied here: the answer and
     *     meters name the chosen policy, and it decides on the state of the policy asked for, so removing or
     *     changing the override carries that state over (SPEC §4)
     * @param counting {@link Counting#ALL_OR_NOTHING} for a single check and an atomic batch (a denial gives back
     *     every admission), {@link Counting#EACH_ON_ITS_OWN} for a batch that is not atomic
     * @param decider decides the checks ({@link Door#API}: no failure mode, no per-check budget; the controller
     *     bounds the whole request)
     * @param catalog a key's override under the policy asked for (docs/SPEC.md §11), resolved locally
     * @param metrics counts each decision ({@code source=api}) and reservation
     */
    CheckAttempt(List<CheckRequests.Check> asked, Counting counting, Decider decider, PolicySource catalog,
                 GridLimitMetrics metrics) {
        this.metrics = metrics;
        this.decisions = decider.begin(Door.API, counting, Decider.NO_BUDGET, null, null);
        this.checks = new ArrayList<>(asked.size());
        this.asks = new ArrayList<>(asked.size());
        for (CheckRequests.Check c : asked) {
            Ask ask = catalog.ask(c.policy(), c.key(), c.cost());
            checks.add(ask.policy() == c.policy() ? c
                    : new CheckRequests.Check(ask.policy(), c.key(), c.cost(), c.reserve()));
            asks.add(ask);
        }
    }

    /**
     * Sends check {@code i}, unless the request was already answered 503.
     *
     * @return its decision; completed exceptionally with the grid's failure, or with a
     *     {@link CancellationException} when the request was answered first
     */
    CompletableFuture<Decision> decide(int i) {
        String policyName = checks.get(i).policy().name();
        return decisions.decide(asks.get(i)).thenCompose(answer -> {
            if (answer.by() == Answer.By.CANCELLED) {
                return CompletableFuture.failedFuture(new CancellationException("the request was answered 503"));
            }
            if (!answer.decided()) {
                return CompletableFuture.failedFuture(answer.failure());
            }
            Decision decision = answer.decision();
            metrics.decision(GridLimitMetrics.Source.API, policyName,
                    decision.allowed() ? GridLimitMetrics.Outcome.ALLOWED : GridLimitMetrics.Outcome.DENIED);
            return CompletableFuture.completedFuture(decision);
        });
    }

    /** Answered 503: nothing more is sent, queued checks are cancelled, admissions given back. */
    void finish() {
        decisions.close(GridLimitMetrics.GiveBackReason.FAILED);
    }

    /**
     * A check was denied: under {@link Counting#ALL_OR_NOTHING} every admission recorded so far is given back, once
     * ({@code reason=denied}); under {@link Counting#EACH_ON_ITS_OWN} they stand.
     */
    void denied() {
        decisions.close(GridLimitMetrics.GiveBackReason.DENIED);
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
}
