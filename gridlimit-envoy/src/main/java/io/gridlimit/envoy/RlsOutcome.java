package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.decide.Answer;
import io.micronaut.core.annotation.Nullable;

/**
 * One descriptor's answer in {@link EnvoyRateLimitService} (docs/SPEC.md §12): the decision (null under
 * {@code open}, {@code UNAVAILABLE}, a cancel or a block list) and who gave it.
 *
 * @param check the descriptor as asked
 * @param decision the decision, or null
 * @param source who answered
 * @param against the policy the decision was taken against: the rule's, or this replica's share of it; null for a
 *                block list (it has no policy)
 * @param blockResetNanos for a block list, nanoseconds to the end of its unit's window aligned to epoch 0, in
 *                        [1, unit]; 0 otherwise
 */
record RlsOutcome(Check check, @Nullable Decision decision, Source source, @Nullable Policy against,
                  long blockResetNanos) {
    /**
     * Who answered a descriptor (CANCELLED: nobody, the call was cancelled first; BLOCKED: its block-list rule, on
     * this replica, without the grid).
     */
    enum Source { GRID, LOCAL, OPEN, UNAVAILABLE, CANCELLED, BLOCKED }

    /**
     * One descriptor to decide.
     *
     * @param index its position in the request
     * @param rule its rule (limited or a block list)
     * @param key its grid key
     * @param cost what it consumes, >= 1 (1 for a peek)
     * @param peek decided without consuming
     * @param reference counted as envoyproxy/ratelimit counts ({@code compatibility: reference}): every hit
     *                  counts, and a peek is a hit of 0 that passes at the limit
     */
    record Check(int index, RlsRule rule, String key, long cost, boolean peek, boolean reference) {
        /**
         * @return the cost asked of the limiter: a peek asks one above the quota, denied without a write (SPEC §3),
         *     or under {@code reference} is a hit of 0 ({@link io.gridlimit.api.RateLimiter#hitAsync})
         */
        long asked() {
            return peek ? reference ? 0 : rule.quota() + 1 : cost;
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
        return new RlsOutcome(check, answer.decision(), source, answer.against(), 0);
    }

    /**
     * A block list's answer (docs/SPEC.md §12, "Decisions"): over its limit whatever the cost, nothing stored.
     *
     * @param check the descriptor, whose rule is {@link RlsRule#blocked()}
     * @param nowNanos the replica's time, epoch nanoseconds
     * @return the outcome, whose reset is the time left in the unit's window aligned to epoch 0
     */
    static RlsOutcome blocked(Check check, long nowNanos) {
        long windowNanos = check.rule().unit().length().toNanos();
        return new RlsOutcome(check, null, Source.BLOCKED, null, windowNanos - Math.floorMod(nowNanos, windowNanos));
    }

    /**
     * @return whether the descriptor is over its limit: denied, or for a peek nothing remaining; under
     *     {@code reference} a peek is over only when the count is above the limit, as envoyproxy/ratelimit
     *     decides; a block list always (nothing is stored for it, so a peek cannot tell whether it was hit in this
     *     window, where the reference answers OK: this errs towards denying)
     */
    boolean over() {
        if (source == Source.BLOCKED) {
            return true;
        }
        if (decision == null) {
            return false;
        }
        return check.peek() && !check.reference() ? decision.remaining() == 0 : !decision.allowed();
    }

    /**
     * @return whether it is over its limit and not in shadow mode: its status is OVER_LIMIT, and so is the call's
     *     unless it is in quota mode ({@link #overLimit})
     */
    boolean denies() {
        return over() && !check.rule().shadow();
    }

    /**
     * envoyproxy/ratelimit's overall code (docs/SPEC.md §12, "Decisions"): OVER_LIMIT when a descriptor not in quota
     * mode denies, or when the request has descriptors in quota mode and every one of them denies.
     *
     * @param outcomes each descriptor's outcome (null: not decided)
     * @return whether the call is OVER_LIMIT
     */
    static boolean overLimit(RlsOutcome[] outcomes) {
        int quota = 0;
        int quotaDenied = 0;
        for (RlsOutcome o : outcomes) {
            if (o == null) {
                continue;
            }
            if (!o.check().rule().quotaMode()) {
                if (o.denies()) {
                    return true;
                }
            } else {
                quota++;
                quotaDenied += o.denies() ? 1 : 0;
            }
        }
        return quota > 0 && quotaDenied == quota;
    }

    /**
     * @return the retry-after of an over-limit answer (a peek's: its reset), or {@link Decision#NO_RETRY} (also for a
     *     block list, which never passes)
     */
    long retryAfterNanos() {
        if (source == Source.BLOCKED) {
            return Decision.NO_RETRY;
        }
        return check.peek() ? Math.max(1, decision.resetAfterNanos()) : decision.retryAfterNanos();
    }

    /**
     * SPEC §4's binding rule across descriptors: on OVER_LIMIT the first denial (not in shadow mode) that can never
     * pass, else the one with the longest retry-after; when admitted, the least remaining, then the nearest reset.
     *
     * @param candidate a decided descriptor (a block list only when the call is OVER_LIMIT)
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
