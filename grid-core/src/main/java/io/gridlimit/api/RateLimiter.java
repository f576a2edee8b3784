package io.gridlimit.api;

import io.gridlimit.internal.Futures;
import io.gridlimit.internal.Preconditions;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Decides requests against policies, one atomic decision per call. The Hazelcast implementation runs each
 * decision as one EntryProcessor on the member that owns the key (SPEC §8).
 *
 * <p>Keys are non-empty strings of at most 1024 UTF-8 bytes with no lone UTF-16 surrogate ({@link #checkKey});
 * cost is in [1, 10^15] ({@link #checkCost(long)}) (SPEC §1, §6). These two checks are the one home of those rules:
 * every implementation and every edge (HTTP filter, decision API, configuration) calls them. Implementations are
 * thread-safe.
 */
public interface RateLimiter {
    /** Largest key, in UTF-8 bytes. */
    int MAX_KEY_BYTES = 1024;
    /** Largest cost of one request. */
    long MAX_COST = Band.MAX_QUANTITY;

    /**
     * Decides one request, blocking the calling thread until the owner answers.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units this request takes, in [1, 10^15]
     * @return the decision, never null
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if policy or key is null
     */
    Decision tryAcquire(Policy policy, String key, long cost);

    /**
     * Decides one request without blocking. Callbacks on the returned stage run on an executor the limiter owns,
     * never on a thread per task and never on the caller's event loop.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units this request takes, in [1, 10^15]
     * @return a stage completed with the decision, or exceptionally when the grid fails
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if policy or key is null
     */
    CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost);

    /**
     * Decides one request without blocking and completes the returned stage on {@code executor}: the caller's
     * own non-blocking executor, typically the Netty event loop of the request being limited, so that the answer
     * reaches it without passing through another thread first. Dependents registered before completion run on
     * that executor's thread; keep them short and non-blocking. If the executor rejects the completion (for
     * instance an event loop shutting down) or throws, the stage is completed on the thread that delivered the
     * answer, so it is never left incomplete. A stage cancelled before its request left this replica (a caller's
     * timeout) may be dropped without being decided; see the implementation.
     *
     * <p>This default completes {@link #tryAcquireAsync(Policy, String, long)}'s stage and hands it over, and
     * cancels that stage when the returned one is cancelled; implementations may deliver straight to
     * {@code executor} instead.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units this request takes, in [1, 10^15]
     * @param executor where the returned stage is completed; must not block
     * @return a stage completed with the decision, or exceptionally when the grid fails
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if policy, key or executor is null
     */
    default CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        CompletionStage<Decision> inner = tryAcquireAsync(policy, key, cost);
        CompletableFuture<Decision> stage = Futures.completeOn(inner, executor);
        if (inner instanceof CompletableFuture<Decision> future) {
            // a caller cancelling the returned stage (its timeout) cancels the request too
            stage.whenComplete((decision, failure) -> {
                if (stage.isCancelled()) {
                    future.cancel(false);
                }
            });
        }
        return stage;
    }

    /**
     * Decides one request as {@link #tryAcquireAsync(Policy, String, long, Executor)} does and, when admitted, takes
     * its cost as a reservation: the decision's {@link Decision#reservation()} is then the handle with which the
     * cost is settled to what the request really cost ({@link #settleAsync}) or given back ({@link #giveBack})
     * (docs/SPEC.md §10). A denial carries no reservation and consumes nothing. A stage cancelled by its caller
     * (a timeout) consumes nothing: not sent when still queued here, and given back when its admission arrives
     * after the cancel (the built-in limiters do both).
     *
     * <p>This default decides without a reservation ({@link Decision#reservation()} null), for limiters that cannot
     * take them; {@code HazelcastRateLimiter} and {@code LocalRateLimiter} take them.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units reserved, in [1, 10^15]
     * @param executor where the returned stage is completed; must not block
     * @return a stage completed with the decision, or exceptionally when the grid fails
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if an argument is null
     */
    default CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost, Executor executor) {
        return tryAcquireAsync(policy, key, cost, executor);
    }

    /**
     * Decides one request as {@link #reserveAsync(Policy, String, long, Executor)} does, for a reservation that the
     * caller settles or gives back through this same limiter instance only (never hands to another replica): a
     * limiter with quota leases may then take it from a lease in process (docs/SPEC.md §13). By default it is
     * {@code reserveAsync}.
     *
     * @param policy the policy
     * @param key the key, as {@link #tryAcquire} checks it
     * @param cost the cost, in [1, 10^15]
     * @param executor where the stage completes
     * @return the stage of the decision; an admission carries a reservation to settle through this limiter
     * @throws IllegalArgumentException if {@code key} or {@code cost} is invalid
     * @throws NullPointerException if an argument is null
     */
    default CompletionStage<Decision> reserveHereAsync(Policy policy, String key, long cost, Executor executor) {
        return reserveAsync(policy, key, cost, executor);
    }

    /**
     * {@link #reserveAsync(Policy, String, long, Executor)} with callbacks on an executor the limiter owns, as
     * {@link #tryAcquireAsync(Policy, String, long)}. This default decides without a reservation.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units reserved, in [1, 10^15]
     * @return a stage completed with the decision, or exceptionally when the grid fails
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if policy or key is null
     */
    default CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost) {
        return tryAcquireAsync(policy, key, cost);
    }

    /**
     * {@link #reserveAsync(Policy, String, long, Executor)}, blocking the calling thread until the owner answers.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param cost the units reserved, in [1, 10^15]
     * @return the decision, never null; with a reservation iff admitted
     * @throws IllegalArgumentException if the key or cost is invalid (nothing is decided)
     * @throws NullPointerException if an argument is null
     * @throws java.util.concurrent.CompletionException wrapping the grid's failure
     */
    default Decision reserve(Policy policy, String key, long cost) {
        return reserveAsync(policy, key, cost).toCompletableFuture().join();
    }

    /**
     * Counts one hit of {@code cost} on the owner of the key, whether or not it passes: envoyproxy/ratelimit's
     * counting (docs/SPEC.md §3, "Every hit counts"; Envoy's {@code compatibility: reference}, §12). The policy is a
     * single fixed-window band; the hit passes iff the window's count before it plus {@code cost} is at most the
     * limit (so no window admits more than its limit), and its cost is added to the count either way, so a denied
     * hit uses up the window too (the count saturates at 10^15). A cost of 0 is a peek: it passes iff the count is
     * at most the limit, and counts nothing. The decision's remaining is {@code limit − count} after a hit that
     * passes, and on a denial what was left when it came ({@code max(0, limit − count)} before it), its resetAfter the time to the window's end (0 while the count is 0), its retryAfter the same on a
     * denial of a cost that can pass. One atomic step, like a decision; never coalesced, never taken from a lease,
     * no reservation (nothing of a hit can be given back: once sent, it counts, even when the caller stops
     * waiting).
     *
     * @param policy a single fixed-window policy
     * @param key the identity being counted, as for {@link #tryAcquire}
     * @param cost the hit's cost, in [0, 10^15]
     * @param executor where the stage completes, or null for the limiter's own callback threads
     * @return a stage completed with the decision, or exceptionally with the grid's failure
     * @throws IllegalArgumentException if the key or cost is invalid, or the policy is not a single fixed window
     *     (nothing is counted)
     * @throws NullPointerException if {@code policy} or {@code key} is null
     * @throws UnsupportedOperationException if this limiter cannot count every hit (grid-core's two can)
     */
    default CompletionStage<Decision> hitAsync(Policy policy, String key, long cost, Executor executor) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot count every hit");
    }

    /**
     * Settles a reservation to the actual cost of its request, in one atomic step on the owner of its key
     * (docs/SPEC.md §10): what was reserved but not used is given back, what exceeds the reservation is charged,
     * leaving a debt of at most each band's {@link Band#maxDebt()} (the rest is reported as
     * {@link Settlement#excess()}). Each reservation is settled once: a retry, with any actual, answers
     * {@link Settlement.Status#ALREADY_SETTLED} and changes nothing. A reservation that has expired, is unknown
     * to the key's state or whose signature does not match changes nothing and says so. Callbacks run as for
     * {@link #tryAcquireAsync(Policy, String, long)}.
     *
     * @param policy the reservation's policy (its bands' maximum debts apply)
     * @param reservation the handle of an admitted decision
     * @param actual the request's actual cost, in [0, 10^15]
     * @return a stage completed with the settlement, or exceptionally when the grid fails (the settle may or may
     *     not have happened: retrying is safe)
     * @throws IllegalArgumentException if {@code actual} is out of range or the reservation names another policy
     * @throws NullPointerException if an argument is null
     * @throws UnsupportedOperationException if this limiter takes no reservations
     */
    default CompletionStage<Settlement> settleAsync(Policy policy, Reservation reservation, long actual) {
        throw new UnsupportedOperationException(getClass().getName() + " takes no reservations");
    }

    /**
     * {@link #settleAsync}, blocking the calling thread until the owner answers.
     *
     * @param policy the reservation's policy
     * @param reservation the handle of an admitted decision
     * @param actual the request's actual cost, in [0, 10^15]
     * @return the settlement, never null
     * @throws IllegalArgumentException if {@code actual} is out of range or the reservation names another policy
     * @throws NullPointerException if an argument is null
     * @throws java.util.concurrent.CompletionException wrapping the grid's failure
     */
    default Settlement settle(Policy policy, Reservation reservation, long actual) {
        return settleAsync(policy, reservation, actual).toCompletableFuture().join();
    }

    /**
     * Gives a reservation's whole cost back (a settle to 0) so that its request consumed nothing: for the
     * all-or-nothing rules of a request or batch, and for an admission that arrived after its caller was answered
     * (docs/SPEC.md §10). A grid failure is retried (backing off from 10 ms to 1 s) until a settle answers or the
     * reservation's hold ({@code expiresAt − reservedAt}) has passed since the first attempt; only then does the
     * stage fail, and the caller counts the loss (the reserved cost
     * stands, which errs towards denying).
     *
     * @param policy the reservation's policy
     * @param reservation the handle of an admitted decision
     * @return a stage completed with the settlement (any status: {@link Settlement.Status#ALREADY_SETTLED} when a
     *     settle came first), or exceptionally with the last grid failure once the reservation has expired
     * @throws IllegalArgumentException if the reservation names another policy
     * @throws NullPointerException if an argument is null
     * @throws UnsupportedOperationException if this limiter takes no reservations
     */
    default CompletionStage<Settlement> giveBack(Policy policy, Reservation reservation) {
        return settleAsync(policy, reservation, 0);
    }

    /**
     * Checks an actual cost of a settle (docs/SPEC.md §10): in [0, {@link #MAX_COST}].
     *
     * @param actual an actual cost
     * @return {@code actual}
     * @throws IllegalArgumentException {@code "actual must be in [0, 1000000000000000], got <actual>"}
     */
    static long checkActual(long actual) {
        return Preconditions.checkRange("actual", actual, 0, MAX_COST);
    }

    /**
     * Checks that a reservation belongs to a policy.
     *
     * @param policy the policy a settle is sent with
     * @param reservation the reservation
     * @return {@code reservation}
     * @throws IllegalArgumentException naming both policies when they differ
     * @throws NullPointerException if an argument is null
     */
    static Reservation checkReservation(Policy policy, Reservation reservation) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(reservation, "reservation");
        if (!reservation.policy().equals(policy.name())) {
            throw new IllegalArgumentException("the reservation is of policy '" + reservation.policy()
                    + "', not '" + policy.name() + "'");
        }
        return reservation;
    }

    /**
     * Checks a key (SPEC §6): non-empty, at most {@link #MAX_KEY_BYTES} bytes in UTF-8, and well-formed UTF-16 (no
     * lone surrogate: {@code "a\ud800"} and {@code "a\udc00"} would otherwise both encode as {@code "a?"} and share
     * one state). The messages name the problem and the size, never the key, which may be personal data.
     *
     * @param key a key
     * @return {@code key}
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if the key is empty, holds a lone surrogate, or is longer than
     *     {@link #MAX_KEY_BYTES} UTF-8 bytes
     */
    static String checkKey(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n == 0) {
            throw new IllegalArgumentException("key must not be empty");
        }
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(
                        "key must be well-formed UTF-16: a lone surrogate at index " + i + " has no UTF-8 form");
            } else {
                bytes += 3;
            }
        }
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException(
                    "key must be at most " + MAX_KEY_BYTES + " UTF-8 bytes, got " + bytes + " bytes");
        }
        return key;
    }

    /**
     * Checks a cost (SPEC §1): in [1, {@link #MAX_COST}].
     *
     * @param cost a cost
     * @return {@code cost}
     * @throws IllegalArgumentException naming {@code cost} and the value when it is out of range
     */
    static long checkCost(long cost) {
        return checkCost("cost", cost);
    }

    /**
     * Checks a cost (SPEC §1) whose message names where it comes from ({@code costs[3]},
     * {@code gridlimit.routes[0].cost}).
     *
     * @param parameter the name the message shows
     * @param cost a cost
     * @return {@code cost}
     * @throws IllegalArgumentException {@code "<parameter> must be in [1, 10^15 written out], got <cost>"} when
     *     {@code cost} is out of range
     */
    static long checkCost(String parameter, long cost) {
        return Preconditions.checkRange(parameter, cost, 1, MAX_COST);
    }
}
