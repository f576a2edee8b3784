package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

/**
 * One rule's answer from the {@link Decider}: who answered and, when somebody decided, the decision.
 *
 * @param ask the rule as asked
 * @param decision the decision (the grid's, or the local fallback's on this replica's share); null when
 *     {@link By#FAILED} or {@link By#CANCELLED}
 * @param by who answered
 * @param against the policy the decision was taken against: {@code ask.policy()}, or this replica's share of it for
 *     a local decision ({@link LocalFallback#derived}); the headers are built from it (docs/SPEC.md §5)
 * @param failure for {@link By#FAILED}: what failed, a {@link java.util.concurrent.TimeoutException} when the grid did
 *     not answer within the budget; null otherwise
 */
public record Answer(Ask ask, @Nullable Decision decision, By by, Policy against, @Nullable Throwable failure) {
    /** Who answered a rule. */
    public enum By {
        /** The key's owner, through the grid (or a lease it granted, docs/SPEC.md §13). */
        GRID,
        /** This replica's share of the policy, because the grid failed under {@code failure-mode: local} (SPEC §5). */
        LOCAL,
        /**
         * Nobody: the grid failed or did not answer in time and no local decision stands in; the door applies its
         * failure mode ({@code open} admits, {@code closed} answers 503 or {@code UNAVAILABLE}).
         */
        FAILED,
        /** Nobody: the request was answered or abandoned first; it was never sent, or its admission is given back. */
        CANCELLED
    }

    static Answer grid(Ask ask, Decision decision) {
        return new Answer(ask, decision, By.GRID, ask.policy(), null);
    }

    static Answer failed(Ask ask, Throwable failure) {
        return new Answer(ask, null, By.FAILED, ask.policy(), failure);
    }

    static Answer cancelled(Ask ask) {
        return new Answer(ask, null, By.CANCELLED, ask.policy(), null);
    }

    /** @return true when somebody decided and admitted: the request consumed this rule's cost */
    public boolean admitted() {
        return decision != null && decision.allowed();
    }

    /** @return true when somebody decided: the grid or the local fallback ({@link #decision()} is not null) */
    public boolean decided() {
        return by == By.GRID || by == By.LOCAL;
    }

    /** @return true when the local fallback decided */
    public boolean local() {
        return by == By.LOCAL;
    }
}
