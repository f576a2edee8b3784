package io.gridlimit.algorithm;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

/**
 * One key of one policy as the grid keeps it: applies outcomes the way the EntryProcessor does (store the state
 * only when {@link Outcome#write()}). Time is a plain {@code long} the test passes in: no clock, no sleeps.
 */
final class Key {
    Policy policy;
    LimiterState state;
    Outcome last;

    Key(Policy policy) {
        this.policy = policy;
    }

    Decision take(long cost, long nowNanos) {
        last = RateLimitAlgorithms.apply(state, policy, cost, nowNanos);
        if (last.write()) {
            state = last.state();
        }
        return last.decision();
    }

    Decision take(long nowNanos) {
        return take(1, nowNanos);
    }

    boolean fresh(long nowNanos) {
        return RateLimitAlgorithms.isFresh(state, policy, nowNanos);
    }

    static final long MS = 1_000_000L;
    static final long S = 1_000_000_000L;
    static final long DAY = 86_400L * S;
    static final long YEAR = 365L * DAY;

    static Decision allowed(long limit, long remaining, long resetAfterNanos) {
        return new Decision(true, limit, remaining, resetAfterNanos, Decision.NO_RETRY, null);
    }

    static Decision denied(long limit, long remaining, long resetAfterNanos, long retryAfterNanos) {
        return new Decision(false, limit, remaining, resetAfterNanos, retryAfterNanos, null);
    }
}
