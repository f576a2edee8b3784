package io.gridlimit.algorithm;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.internal.Preconditions;

import java.util.Objects;
import java.util.random.RandomGenerator;

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
        return Reservations.apply(stateOrNull, policy, cost, nowNanos);
    }

    /**
     * Counts one hit of {@code cost} against {@code policy} at {@code nowNanos} as envoyproxy/ratelimit counts
     * (docs/SPEC.md §3, "Every hit counts"): the cost counts whether or not the hit passes, so that a denied hit
     * also uses up the window. The policy is a single fixed-window band ({@link #countsEveryHit}); a hit passes iff
     * the count before it plus its cost is at most the limit, exactly as {@link #apply} admits, so no window ever
     * admits more than its limit. A cost of 0 is a peek: it passes iff the count is at most the limit and writes
     * nothing.
     *
     * @param stateOrNull the stored state, or null when the key has none
     * @param policy a single fixed-window policy
     * @param cost the hit's cost, in [0, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @return the outcome, never null; it writes for every hit of a cost above 0, denied too
     * @throws IllegalArgumentException if {@code cost} is outside [0, 10^15], or the policy is not a single
     *     fixed-window band (the message names the policy)
     * @throws NullPointerException if {@code policy} is null
     */
    public static Outcome hit(LimiterState stateOrNull, Policy policy, long cost, long nowNanos) {
        checkHit(policy, cost);
        return Reservations.hit(stateOrNull, policy, cost, nowNanos);
    }

    /**
     * Whether {@link #hit} can count hits of a policy: it is a single fixed-window band (envoyproxy/ratelimit's
     * only algorithm).
     *
     * @param policy the policy
     * @return true for a single-band fixed-window policy
     * @throws NullPointerException if {@code policy} is null
     */
    public static boolean countsEveryHit(Policy policy) {
        return !Objects.requireNonNull(policy, "policy").isComposite()
                && policy.bands().get(0).algorithm() == Algorithm.FIXED_WINDOW;
    }

    /**
     * Checks a hit before anything is sent or decided ({@link #hit}).
     *
     * @param policy the policy, a single fixed-window band
     * @param cost the cost, in [0, 10^15]
     * @return {@code cost}
     * @throws IllegalArgumentException naming the policy or the cost when either is refused
     * @throws NullPointerException if {@code policy} is null
     */
    public static long checkHit(Policy policy, long cost) {
        if (!countsEveryHit(policy)) {
            throw new IllegalArgumentException("policy '" + policy.name() + "' cannot count every hit: only a "
                    + "single fixed-window band can (docs/SPEC.md §3)");
        }
        return Preconditions.checkRange("cost", cost, 0, RateLimiter.MAX_COST);
    }

    /**
     * Decides one request as {@link #apply} does and, when it is admitted, takes its cost as a reservation that
     * can later be settled ({@link #settle}; docs/SPEC.md §10): the decision then carries a {@link Reservation}
     * signed with the state's secret, and the state becomes a {@link ReservedState} held until the reservation
     * expires.
     *
     * @param stateOrNull the stored state, or null when the key has none
     * @param policy the policy
     * @param key the key (named in the reservation, so a settle can be routed)
     * @param cost the cost of the request, in [1, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @param random the source of a new state's id and secret (the owner's {@link java.security.SecureRandom})
     * @return the outcome, never null; its decision carries a reservation iff admitted
     * @throws IllegalArgumentException if {@code cost} is outside [1, 10^15]
     * @throws NullPointerException if {@code policy}, {@code key} or {@code random} is null
     */
    public static Outcome reserve(LimiterState stateOrNull, Policy policy, String key, long cost, long nowNanos,
                                  RandomGenerator random) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(random, "random");
        RateLimiter.checkCost(cost);
        return Reservations.reserve(stateOrNull, policy, key, cost, nowNanos, random);
    }

    /**
     * Settles a reservation to its actual cost (docs/SPEC.md §10): gives back what was reserved but not used, or
     * charges the rest up to each band's maximum debt, once per reservation id.
     *
     * @param stateOrNull the stored state, or null when the key has none
     * @param policy the policy, with the bands' maximum debts
     * @param key the key whose state this is
     * @param reservation the reservation
     * @param actual the actual cost, in [0, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @return the outcome, never null
     * @throws IllegalArgumentException if {@code actual} is outside [0, 10^15]
     * @throws NullPointerException if an argument is null
     */
    public static SettleOutcome settle(LimiterState stateOrNull, Policy policy, String key, Reservation reservation,
                                       long actual, long nowNanos) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reservation, "reservation");
        RateLimiter.checkActual(actual);
        return Reservations.settle(stateOrNull, policy, key, reservation, actual, nowNanos);
    }

    /**
     * Grants a quota lease of up to {@code units} to a replica, or decides the request as without one (docs/SPEC.md
     * §13): the units granted are consumed at once as one reservation, and while the lease is open the policy's
     * token-bucket and GCRA bands treat them as not refillable.
     *
     * @param stateOrNull the stored state, or null
     * @param policy the policy
     * @param key the key
     * @param cost the cost of the request in hand, in [1, 10^15]
     * @param units the units asked, in [cost, 10^15]
     * @param durationNanos the lease's asked life, nanoseconds, > 0 (the owner grants at most the reservation's hold)
     * @param holderHigh the upper 64 bits of the holder's UUID
     * @param holderLow the lower 64 bits of the holder's UUID
     * @param reserve whether a request decided without a lease is taken as a reservation ({@link #reserve})
     * @param nowNanos the reading, epoch nanoseconds
     * @param random the source of a new state's id and secret
     * @return the grant, never null
     * @throws IllegalArgumentException if {@code cost} or {@code units} is outside [1, 10^15], {@code units <
     *     cost}, or {@code durationNanos <= 0}
     * @throws NullPointerException if {@code policy}, {@code key} or {@code random} is null
     */
    public static LeaseGrant lease(LimiterState stateOrNull, Policy policy, String key, long cost, long units,
                                   long durationNanos, long holderHigh, long holderLow, boolean reserve,
                                   long nowNanos, RandomGenerator random) {
        return Leases.grant(stateOrNull, policy, key, cost, units, durationNanos, holderHigh, holderLow, reserve,
                nowNanos, random);
    }

    /**
     * Whether a policy's keys can be leased (docs/SPEC.md §13): every band is a token bucket or GCRA.
     *
     * @param policy the policy
     * @return true when leases apply
     * @throws NullPointerException if {@code policy} is null
     */
    public static boolean leasable(Policy policy) {
        return Leases.leasable(Objects.requireNonNull(policy, "policy"));
    }

    /**
     * {@link #reserve} of several requests in sequence at one reading, each seeing the state the previous left.
     *
     * @param stateOrNull the stored state, or null
     * @param policy the policy
     * @param key the key
     * @param costs the costs, each in [1, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @param random the source of a new state's id and secret
     * @return one outcome per cost, in order
     * @throws IllegalArgumentException if a cost is out of range (nothing is decided)
     * @throws NullPointerException if an argument is null
     */
    public static Outcome[] reserveAll(LimiterState stateOrNull, Policy policy, String key, long[] costs,
                                       long nowNanos, RandomGenerator random) {
        Objects.requireNonNull(costs, "costs");
        for (int i = 0; i < costs.length; i++) {
            RateLimiter.checkCost("costs[" + i + "]", costs[i]);
        }
        Outcome[] outcomes = new Outcome[costs.length];
        LimiterState state = stateOrNull;
        for (int i = 0; i < costs.length; i++) {
            outcomes[i] = reserve(state, policy, key, costs[i], nowNanos, random);
            state = outcomes[i].state();
        }
        return outcomes;
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
            outcomes[i] = Reservations.apply(state, policy, costs[i], nowNanos);
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
        return Reservations.isFresh(stateOrNull, policy, nowNanos);
    }
}
