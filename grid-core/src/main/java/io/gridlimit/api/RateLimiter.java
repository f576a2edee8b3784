package io.gridlimit.api;

import java.util.concurrent.CompletionStage;

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
}
