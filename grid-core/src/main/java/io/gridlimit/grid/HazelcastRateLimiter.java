package io.gridlimit.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A {@link RateLimiter} on Hazelcast (SPEC §8): the state of policy {@code p} lives in the IMap
 * {@code gridlimit.p}, and each decision is one EntryProcessor ({@code DecideProcessor}) run on the member that owns
 * the key, which reads its time source once, runs the algorithm once and stores the new state with its TTL; the
 * backup receives that state, never a re-run.
 *
 * <p>Works the same through an embedded member or a Hazelcast client: pass either instance, configured with
 * {@link GridLimitHazelcast}. The instance is not owned: {@link #close()} leaves it running.
 *
 * <p><b>Async callbacks.</b> {@link #tryAcquireAsync} returns a stage completed on a thread of a fixed-size pool
 * this limiter owns (threads named {@code gridlimit-async-<n>-<i>}, daemon). Dependents registered before
 * completion run on that thread; {@code *Async} dependents without an executor run on that pool too (the stage's
 * default executor), never on {@code ForkJoinPool.commonPool()} or on a thread per task. A dependent registered
 * after completion runs, as always with {@link CompletableFuture}, on the registering thread. Keep callbacks short
 * and non-blocking: the pool is small ({@link Builder#asyncThreads(int)}); move blocking or long downstream work
 * (for instance the rest of an HTTP request) to its own executor with {@code thenXxxAsync(fn, executor)}.
 *
 * <p>Why a pool of our own: Hazelcast completes {@code submitToKey} futures through its default async executor,
 * which on machines with 2 CPUs or fewer (common-pool parallelism 1) starts a new thread per task. This limiter
 * therefore attaches its single callback directly to Hazelcast's invocation future with its own executor (see
 * {@code AsyncSubmitter}), so that no decision starts a thread.
 *
 * <p><b>Hot-key coalescing</b> (on by default, {@link Builder#coalesceHotKeys(boolean)}): concurrent
 * {@link #tryAcquireAsync} calls for the same policy and key from this limiter are coalesced: while one
 * invocation for that key is in flight, later requests queue, and when it answers they leave as one
 * EntryProcessor carrying their costs (up to 1024), answered in arrival order. The decisions are exactly those
 * the requests would get one after another in arrival order (the owner applies the costs in sequence on the
 * stored state at one time reading; {@code CoalescingExactnessTest} proves it). For a hot key it turns N
 * invocations into about N / batch (bench/README.md). For uniform keys, where nothing is ever queued, a request
 * pays two {@code ConcurrentHashMap} updates beside its invocation; bench/README.md records both workloads with
 * coalescing on and off. A request queued behind a call in flight waits for that call's answer first (at most
 * one more round trip). A failed invocation fails every request of its batch with
 * the same exception. {@link #tryAcquire} (synchronous) is never coalesced.
 *
 * <p>Thread-safe.
 */
public final class HazelcastRateLimiter implements RateLimiter, AutoCloseable {
    /** Threads of the callback pool by default: the number of CPUs, at least 2, at most 16. */
    public static final int DEFAULT_ASYNC_THREADS =
            Math.min(16, Math.max(2, Runtime.getRuntime().availableProcessors()));
    /** Most threads a callback pool may have. */
    public static final int MAX_ASYNC_THREADS = 256;
    /** How long {@link #close()} waits for queued callbacks to finish. */
    static final long CLOSE_WAIT_MILLIS = 5_000;

    private static final AtomicInteger LIMITERS = new AtomicInteger();

    private final HazelcastInstance instance;
    private final ThreadPoolExecutor pool;
    private final Executor callbacks;
    private final ConcurrentHashMap<String, PolicyMap> maps = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String threadPrefix;
    /** The member's policy catalog, which each decision asked here fills; null on a client. */
    private final PolicyCatalog catalog;
    /** Coalesces concurrent async decisions per (policy, key); null when coalescing is off. */
    private final Coalescer coalescer;

    private HazelcastRateLimiter(HazelcastInstance instance, int asyncThreads, boolean coalesce) {
        this.instance = instance;
        this.catalog = instance.getLocalEndpoint() instanceof Member ? PolicyCatalog.of(instance) : null;
        this.threadPrefix = "gridlimit-async-" + LIMITERS.incrementAndGet() + "-";
        AtomicInteger threads = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(asyncThreads, asyncThreads, 0L, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new CallbackThread(this, r, threadPrefix + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.pool.prestartAllCoreThreads();
        this.callbacks = NeverRejectingExecutor.of(pool);
        this.coalescer = coalesce ? new Coalescer(this::sendBatch, () -> new CallbackFuture<>(callbacks), callbacks,
                DecideProcessor.MAX_BATCH) : null;
    }

    /**
     * A limiter with the default callback pool ({@link #DEFAULT_ASYNC_THREADS} threads).
     *
     * @param instance a member or a client, configured with {@link GridLimitHazelcast}
     * @return a new limiter, never null
     * @throws NullPointerException if {@code instance} is null
     */
    public static HazelcastRateLimiter create(HazelcastInstance instance) {
        return builder(instance).build();
    }

    /**
     * Starts building a limiter.
     *
     * @param instance a member or a client, configured with {@link GridLimitHazelcast}
     * @return a builder, never null
     * @throws NullPointerException if {@code instance} is null
     */
    public static Builder builder(HazelcastInstance instance) {
        return new Builder(Objects.requireNonNull(instance, "instance"));
    }

    /**
     * Decides one request on the owner of the key, blocking the calling thread until the owner answers.
     * {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     * @throws com.hazelcast.core.HazelcastException (or a subclass) when the grid fails to answer
     */
    @Override
    public Decision tryAcquire(Policy policy, String key, long cost) {
        Objects.requireNonNull(policy, "policy");
        checkKey(key);
        checkCost(cost);
        checkOpen();
        DecisionResult result = map(policy).map.executeOnKey(key, new DecideProcessor(policy, cost));
        return result.first();
    }

    /**
     * Decides one request on the owner of the key without blocking. {@inheritDoc}
     *
     * <p>The returned stage is a {@link CompletableFuture} whose default executor is this limiter's callback
     * pool. Grid failures complete it exceptionally with Hazelcast's exception.
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
        Objects.requireNonNull(policy, "policy");
        checkKey(key);
        checkCost(cost);
        checkOpen();
        if (coalescer != null) {
            return coalescer.decide(policy, key, cost, null);
        }
        return submit(policy, key, new DecideProcessor(policy, cost), DecisionResult::first, callbacks);
    }

    /**
     * Decides one request on the owner of the key without blocking, and completes the stage on {@code executor}
     * directly: the owner's answer goes from Hazelcast's response thread to {@code executor} with no hop through
     * this limiter's callback pool (for an HTTP filter, straight to the request's event loop). Coalesced like
     * {@link #tryAcquireAsync(Policy, String, long)} when coalescing is on; a batch answers on the executor of
     * its first request, and each other request of the batch is handed to its own executor (inline when it is
     * the same executor). {@inheritDoc}
     *
     * <p>The returned stage's default executor, for {@code *Async} dependents without an executor, is this
     * limiter's callback pool.
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost, Executor executor) {
        Objects.requireNonNull(policy, "policy");
        checkKey(key);
        checkCost(cost);
        Objects.requireNonNull(executor, "executor");
        checkOpen();
        if (coalescer != null) {
            return coalescer.decide(policy, key, cost, executor);
        }
        return submit(policy, key, new DecideProcessor(policy, cost), DecisionResult::first,
                NeverRejectingExecutor.of(executor));
    }

    /**
     * One coalesced batch (costs validated): the single-cost processor when alone, as uncoalesced. Requests queued
     * before {@link #close()} are still sent (close lets accepted decisions finish), so no open check here.
     */
    private CompletionStage<Decision[]> sendBatch(Policy policy, String key, long[] costs, Executor executor) {
        DecideProcessor processor = costs.length == 1 ? new DecideProcessor(policy, costs[0])
                : new DecideProcessor(policy, costs);
        return submit(policy, key, processor, DecisionResult::decisions,
                executor == null ? callbacks : NeverRejectingExecutor.of(executor));
    }

    /** @return how many (policy, key) pairs have a coalesced call in flight; 0 when off (tests) */
    int coalescingBusyKeys() {
        return coalescer == null ? 0 : coalescer.busyKeys();
    }

    /** @return whether async decisions are coalesced per (policy, key) */
    public boolean coalescesHotKeys() {
        return coalescer != null;
    }

    /**
     * Decides several requests of one key in order, in one invocation at one time reading (for coalescing):
     * result {@code i} is what {@link #tryAcquire} would give for {@code costs[i]} right after the first
     * {@code i} requests.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param costs 1 to 1024 costs, each in [1, 10^15]; copied
     * @return one decision per cost, in order, never null
     * @throws IllegalArgumentException if the key, the number of costs or a cost is invalid (nothing is decided)
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if this limiter is closed
     */
    public Decision[] tryAcquireAll(Policy policy, String key, long[] costs) {
        Objects.requireNonNull(policy, "policy");
        checkKey(key);
        long[] copy = checkCosts(costs);
        checkOpen();
        return map(policy).map.executeOnKey(key, new DecideProcessor(policy, copy)).decisions().clone();
    }

    /**
     * The non-blocking form of {@link #tryAcquireAll}; callbacks as for {@link #tryAcquireAsync}.
     *
     * @param policy the policy to apply
     * @param key the identity being limited: non-empty, at most 1024 UTF-8 bytes
     * @param costs 1 to 1024 costs, each in [1, 10^15]; copied
     * @return a stage completed with one decision per cost, in order
     * @throws IllegalArgumentException if the key, the number of costs or a cost is invalid (nothing is decided)
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if this limiter is closed
     */
    public CompletionStage<Decision[]> tryAcquireAllAsync(Policy policy, String key, long[] costs) {
        Objects.requireNonNull(policy, "policy");
        checkKey(key);
        long[] copy = checkCosts(costs);
        checkOpen();
        return submit(policy, key, new DecideProcessor(policy, copy), r -> r.decisions().clone(), callbacks);
    }

    /** Sends a processor; {@code executor} (never rejecting) completes the returned stage. */
    private <T> CompletableFuture<T> submit(Policy policy, String key, DecideProcessor processor,
                                            Function<DecisionResult, T> mapping, Executor executor) {
        CallbackFuture<T> stage = new CallbackFuture<>(callbacks);
        try {
            map(policy).async.submit(key, processor, executor, (result, failure) -> {
                if (failure != null) {
                    stage.completeExceptionally(unwrap(failure));
                } else {
                    stage.complete(mapping.apply(result));
                }
            });
        } catch (RuntimeException e) {
            stage.completeExceptionally(e);
        }
        return stage;
    }

    /**
     * Returns how many keys of a policy this member owns (Hazelcast's {@code LocalMapStats} owned entry count of
     * {@code gridlimit.<policy>}): the active keys held here, counting expired entries not yet swept. For a
     * metrics gauge.
     *
     * @param policyName the policy name
     * @return the count, or empty on a client, which owns no entries
     * @throws NullPointerException if {@code policyName} is null
     * @throws IllegalStateException if this limiter is closed
     */
    public OptionalLong localOwnedKeyCount(String policyName) {
        Objects.requireNonNull(policyName, "policyName");
        checkOpen();
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            return OptionalLong.empty(); // a client's LocalMapStats are empty, not its share
        }
        return OptionalLong.of(map(policyName).map.getLocalMapStats().getOwnedEntryCount());
    }

    /** @return the Hazelcast instance decisions go through (not owned by this limiter) */
    public HazelcastInstance instance() {
        return instance;
    }

    /** @return the name of the async path taken for a policy: "member", "client" or "public" (diagnostics) */
    String asyncPath(Policy policy) {
        return map(policy).async.path();
    }

    /** @return the prefix of this limiter's callback thread names */
    String threadPrefix() {
        return threadPrefix;
    }

    /**
     * Closes the limiter: no new decision is accepted; the callback pool finishes what is queued (waiting up to
     * 5 s, unless called from one of its own threads) and stops. A decision still in flight completes its stage
     * on the thread that receives the answer. Idempotent. The Hazelcast instance keeps running.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pool.shutdown();
        if (Thread.currentThread() instanceof CallbackThread t && t.owner == this) {
            return;
        }
        try {
            pool.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private PolicyMap map(Policy policy) {
        if (catalog != null) {
            catalog.remember(policy);
        }
        return map(policy.name());
    }

    private PolicyMap map(String policyName) {
        PolicyMap found = maps.get(policyName);
        if (found != null) {
            return found;
        }
        return maps.computeIfAbsent(policyName, n -> {
            IMap<String, LimiterState> map = instance.getMap(GridLimitHazelcast.mapName(n));
            return new PolicyMap(map, AsyncSubmitter.forMap(map));
        });
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this HazelcastRateLimiter is closed");
        }
    }

    /**
     * Checks a key (SPEC §6): non-empty, at most {@link #MAX_KEY_BYTES} bytes in UTF-8. The message gives the
     * size, never the key, which may be personal data.
     */
    static void checkKey(String key) {
        Objects.requireNonNull(key, "key");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("key must not be empty");
        }
        // a char takes at most 3 UTF-8 bytes (a surrogate pair 4 for 2 chars), so short keys need no count
        if (key.length() * 3 > MAX_KEY_BYTES) {
            int bytes = key.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_KEY_BYTES) {
                throw new IllegalArgumentException(
                        "key must be at most " + MAX_KEY_BYTES + " UTF-8 bytes, got " + bytes + " bytes");
            }
        }
    }

    /** Checks a cost (SPEC §1): in [1, 10^15]. */
    static void checkCost(long cost) {
        if (cost < 1 || cost > MAX_COST) {
            throw new IllegalArgumentException("cost must be in [1, " + MAX_COST + "], got " + cost);
        }
    }

    private static long[] checkCosts(long[] costs) {
        Objects.requireNonNull(costs, "costs");
        if (costs.length < 1 || costs.length > DecideProcessor.MAX_BATCH) {
            throw new IllegalArgumentException(
                    "costs must hold 1 to " + DecideProcessor.MAX_BATCH + " costs, got " + costs.length);
        }
        long[] copy = costs.clone();
        for (int i = 0; i < copy.length; i++) {
            if (copy[i] < 1 || copy[i] > MAX_COST) {
                throw new IllegalArgumentException(
                        "costs[" + i + "] must be in [1, " + MAX_COST + "], got " + copy[i]);
            }
        }
        return copy;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Builds a {@link HazelcastRateLimiter}; not thread-safe. */
    public static final class Builder {
        private final HazelcastInstance instance;
        private int asyncThreads = DEFAULT_ASYNC_THREADS;
        private boolean coalesceHotKeys = true;

        private Builder(HazelcastInstance instance) {
            this.instance = instance;
        }

        /**
         * Sets the size of the callback pool that completes async stages.
         *
         * @param threads in [1, 256]; default {@link #DEFAULT_ASYNC_THREADS}
         * @return this builder
         * @throws IllegalArgumentException if {@code threads} is out of range
         */
        public Builder asyncThreads(int threads) {
            if (threads < 1 || threads > MAX_ASYNC_THREADS) {
                throw new IllegalArgumentException(
                        "asyncThreads must be in [1, " + MAX_ASYNC_THREADS + "], got " + threads);
            }
            this.asyncThreads = threads;
            return this;
        }

        /**
         * Turns hot-key coalescing of {@link #tryAcquireAsync} on or off (see the class javadoc). Decisions are
         * the same either way; off sends one invocation per request.
         *
         * @param coalesce true to coalesce concurrent async decisions per (policy, key); default true
         * @return this builder
         */
        public Builder coalesceHotKeys(boolean coalesce) {
            this.coalesceHotKeys = coalesce;
            return this;
        }

        /**
         * Builds the limiter and starts its callback pool.
         *
         * @return a new limiter, never null
         */
        public HazelcastRateLimiter build() {
            return new HazelcastRateLimiter(instance, asyncThreads, coalesceHotKeys);
        }
    }

    private record PolicyMap(IMap<String, LimiterState> map, AsyncSubmitter async) {
    }

    /** A callback pool thread; knows its limiter so that {@link #close()} does not wait on itself. */
    private static final class CallbackThread extends Thread {
        final HazelcastRateLimiter owner;

        CallbackThread(HazelcastRateLimiter owner, Runnable task, String name) {
            super(task, name);
            this.owner = owner;
        }
    }

    /**
     * A {@link CompletableFuture} whose default executor, and that of every stage derived from it, is the
     * callback pool: {@code CompletableFuture}'s own default is the common pool, or a new thread per task where
     * the common pool has parallelism 1.
     */
    private static final class CallbackFuture<T> extends CompletableFuture<T> {
        private final Executor executor;

        CallbackFuture(Executor executor) {
            this.executor = executor;
        }

        @Override
        public Executor defaultExecutor() {
            return executor;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CallbackFuture<>(executor);
        }
    }
}
