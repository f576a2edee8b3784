package io.gridlimit.api;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Decides requests against policies, one atomic decision per call. The Hazelcast implementation runs each
 * decision as one EntryProcessor on the member that owns the key (SPEC §8).
 *
 * <p>Keys are non-empty strings of at most 1024 UTF-8 bytes; cost is in [1, 10^15] (SPEC §1, §6).
 * Implementations are thread-safe.
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
        CompletableFuture<Decision> stage = new CompletableFuture<>();
        CompletionStage<Decision> inner = tryAcquireAsync(policy, key, cost);
        inner.whenComplete((decision, failure) -> {
            Runnable complete = () -> {
                if (failure != null) {
                    stage.completeExceptionally(failure);
                } else {
                    stage.complete(decision);
                }
            };
            try {
                executor.execute(complete);
            } catch (RuntimeException e) { // RejectedExecutionException, or an executor breaking its contract
                complete.run();
            }
        });
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
}
