package io.gridlimit.grid;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The asynchronous path of a {@link HazelcastRateLimiter}: sends {@link DecideProcessor}s through the policy's
 * {@link AsyncSubmitter}, coalesced per (policy, key) by a {@link Coalescer} when coalescing is on, and completes
 * each returned stage on the caller's executor or on the {@link CallbackPool}. Arguments are validated by the
 * limiter before they reach this class. Thread-safe.
 */
final class AsyncDecisions implements AutoCloseable {
    private final PolicyMaps maps;
    private final CallbackPool pool;
    private final Executor callbacks;
    /** Null when coalescing is off. */
    private final Coalescer coalescer;

    /**
     * Starts the callback pool.
     *
     * @param maps the policy maps
     * @param asyncThreads the callback pool's size, checked by the builder
     * @param coalesce whether concurrent decisions of one (policy, key) are coalesced
     */
    AsyncDecisions(PolicyMaps maps, int asyncThreads, boolean coalesce) {
        this.maps = maps;
        this.pool = new CallbackPool(asyncThreads);
        this.callbacks = pool.executor();
        this.coalescer = coalesce ? new Coalescer(this::sendBatch, pool::newStage, callbacks,
                DecideProcessor.MAX_BATCH) : null;
    }

    /**
     * Decides one request.
     *
     * @param policy the policy
     * @param key the key
     * @param cost the cost
     * @param executor where the stage completes, or null for the callback pool
     * @return the stage, whose default executor is the callback pool
     */
    CompletionStage<Decision> decide(Policy policy, String key, long cost, Executor executor) {
        if (coalescer != null) {
            return coalescer.decide(policy, key, cost, executor);
        }
        return submit(policy, key, new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy)),
                DecisionResult::first, executor);
    }

    /**
     * Decides a batch of one key in one invocation, never coalesced.
     *
     * @param policy the policy
     * @param key the key
     * @param processor the batch processor
     * @return the stage of a copy of the decisions, completed on the callback pool
     */
    CompletionStage<Decision[]> decideAll(Policy policy, String key, DecideProcessor processor) {
        return submit(policy, key, processor, r -> r.decisions().clone(), null);
    }

    /**
     * One coalesced batch: the single-cost processor when alone, as uncoalesced. Requests queued before the limiter
     * closed are still sent (close lets accepted decisions finish).
     */
    private CompletionStage<Decision[]> sendBatch(Policy policy, String key, long[] costs, Executor executor) {
        DecideProcessor processor = (costs.length == 1 ? new DecideProcessor(policy, costs[0])
                : new DecideProcessor(policy, costs)).withPolicyVersion(maps.versionOf(policy));
        return submit(policy, key, processor, DecisionResult::decisions, executor);
    }

    /** Sends a processor; the returned stage completes on {@code executor} (never rejecting), or the pool. */
    private <T> CompletableFuture<T> submit(Policy policy, String key, DecideProcessor processor,
                                            Function<DecisionResult, T> mapping, Executor executor) {
        CompletableFuture<T> stage = pool.newStage();
        Executor on = executor == null ? callbacks : NeverRejectingExecutor.of(executor);
        try {
            maps.get(policy).async().submit(key, processor, on, (result, failure) -> {
                if (failure != null) {
                    stage.completeExceptionally(Futures.unwrap(failure));
                } else {
                    stage.complete(mapping.apply(result));
                }
            });
        } catch (RuntimeException e) {
            stage.completeExceptionally(e);
        }
        return stage;
    }

    /** @return whether decisions are coalesced per (policy, key) */
    boolean coalesces() {
        return coalescer != null;
    }

    /** @return how many (policy, key) pairs have a coalesced call in flight; 0 when off */
    int busyKeys() {
        return coalescer == null ? 0 : coalescer.busyKeys();
    }

    /** @return the prefix of the callback pool's thread names */
    String threadPrefix() {
        return pool.threadPrefix();
    }

    /** Closes the callback pool ({@link CallbackPool#close()}). */
    @Override
    public void close() {
        pool.close();
    }
}
