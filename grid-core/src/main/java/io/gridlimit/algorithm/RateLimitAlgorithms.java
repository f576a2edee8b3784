package io.gridlimit.algorithm;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;

import java.util.Objects;

/**
 * The pure decision functions: {@code (state, policy, cost, nowNanos) -> outcome}. No clock is read, nothing is
 * shared, nothing is stored here; the grid's EntryProcessor calls these on the owner of the key (SPEC §8).
 * Thread-safe (stateless).
 */
public final class RateLimitAlgorithms {
    private RateLimitAlgorithms() {
    }

    /**
     * Decides one request of {@code cost} against {@code policy} at {@code nowNanos} (SPEC §2-4).
     *
     * @param stateOrNull the stored state, or null when the key has none
     * @param policy the policy
     * @param cost the cost of the request, in [1, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @return the outcome, never null
     * @throws IllegalArgumentException if {@code cost} is outside [1, 10^15] (the message names it)
     * @throws NullPointerException if {@code policy} is null
     */
    public static Outcome apply(LimiterState stateOrNull, Policy policy, long cost, long nowNanos) {
        Objects.requireNonNull(policy, "policy");
        RateLimiter.checkCost(cost);
        return Composite.apply(stateOrNull, policy, cost, nowNanos);
    }

    /**
     * Decides several requests in sequence at one reading, each seeing the state the previous one left.
     *
     * @param stateOrNull the stored state, or null when the key has none
     * @param policy the policy
     * @param costs the costs, each in [1, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @return one outcome per cost, in order; result {@code i} equals what {@link #apply} gives in sequence
     * @throws IllegalArgumentException if a cost is out of range (nothing is decided)
     * @throws NullPointerException if {@code policy} or {@code costs} is null
     */
    public static Outcome[] applyAll(LimiterState stateOrNull, Policy policy, long[] costs, long nowNanos) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(costs, "costs");
        for (int i = 0; i < costs.length; i++) {
            RateLimiter.checkCost("costs[" + i + "]", costs[i]);
        }
        Outcome[] outcomes = new Outcome[costs.length];
        LimiterState state = stateOrNull;
        for (int i = 0; i < costs.length; i++) {
            outcomes[i] = Composite.apply(state, policy, costs[i], nowNanos);
            state = outcomes[i].state();
        }
        return outcomes;
    }

    /**
     * Tells whether a state is indistinguishable from no state at {@code nowNanos}.
     *
     * @param stateOrNull a stored state, or null
     * @param policy the policy
     * @param nowNanos the reading, epoch nanoseconds
     * @return true when deciding against this state would behave exactly as against no state
     * @throws NullPointerException if {@code policy} is null
     */
    public static boolean isFresh(LimiterState stateOrNull, Policy policy, long nowNanos) {
        Objects.requireNonNull(policy, "policy");
        return Composite.isFresh(stateOrNull, policy, nowNanos);
    }
}
