package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.decide.Answer;
import io.micronaut.core.annotation.Nullable;

/**
 * One descriptor's answer in {@link EnvoyRateLimitService} (docs/SPEC.md §12): the decision (null under
 * {@code open}, {@code UNAVAILABLE} or a cancel) and who gave it.
 *
 * @param check the descriptor as asked
 * @param decision the decision, or null
 * @param source who answered
 * @param against the policy the decision was taken against: the rule's, or this replica's share of it
 */
record RlsOutcome(Check check, @Nullable Decision decision, Source source, Policy against) {
    /** Who answered a descriptor (CANCELLED: nobody, the call was cancelled first). */
    enum Source { GRID, LOCAL, OPEN, UNAVAILABLE, CANCELLED }

    /**
     * One descriptor to decide.
     *
     * @param index its position in the request
     * @param rule its rule (limited)
     * @param key its grid key
     * @param cost what it consumes, >= 1 (1 for a peek)
     * @param peek decided without consuming
     */
    record Check(int index, RlsRule rule, String key, long cost, boolean peek) {
        /** @return the cost asked of the limiter: a peek asks one above the quota, denied without a write (SPEC §3) */
        long asked() {
            return peek ? rule.quota() + 1 : cost;
        }
    }

    /**
     * @param check the descriptor
     * @param answer the decider's answer for it
     * @param mode the configured failure mode, which answers a failed descriptor ({@code open}: OK)
     * @return the descriptor's outcome
     */
    static RlsOutcome of(Check check, Answer answer, FailureMode mode) {
        Source source = switch (answer.by()) {
            case GRID -> Source.GRID;
            case LOCAL -> Source.LOCAL;
            case FAILED -> mode == FailureMode.OPEN ? Source.OPEN : Source.UNAVAILABLE;
            case CANCELLED -> Source.CANCELLED;
        };
        return new RlsOutcome(check, answer.decision(), source, answer.against());
    }

    /** @return whether the descriptor is over its limit: denied, or for a peek nothing remaining */
    boolean over() {
        if (decision == null) {
            return false;
        }
        return check.peek() ? decision.remaining() == 0 : !decision.allowed();
    }

    /** @return whether it is over its limit and not in shadow mode, so the call is OVER_LIMIT */
    boolean denies() {
        return over() && !check.rule().shadow();
    }

    /** @return the retry-after of an over-limit answer (a peek's: its reset), or {@link Decision#NO_RETRY} */
    long retryAfterNanos() {
        return check.peek() ? Math.max(1, decision.resetAfterNanos()) : decision.retryAfterNanos();
    }

    /**
     * SPEC §4's binding rule across descriptors: on OVER_LIMIT the first denial (not in shadow mode) that can never
     * pass, else the one with the longest retry-after; when admitted, the least remaining, then the nearest reset.
     *
     * @param candidate a decided descriptor
     * @param current the binding one so far, or null
     * @param over whether the call is OVER_LIMIT
     * @return the binding one of the two (null when neither binds)
     */
    static @Nullable RlsOutcome binds(RlsOutcome candidate, @Nullable RlsOutcome current, boolean over) {
        if (current == null) {
            return over && !candidate.denies() ? null : candidate;
        }
        if (over) {
            if (!candidate.denies()) {
                return current;
            }
            long c = candidate.retryAfterNanos();
            long b = current.retryAfterNanos();
            if (b == Decision.NO_RETRY) {
                return current;
            }
            return c == Decision.NO_RETRY || c > b ? candidate : current;
        }
        return candidate.decision().bindsBefore(current.decision()) ? candidate : current;
    }
}
