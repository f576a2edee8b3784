package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.async.AsyncDecisions;
import io.gridlimit.grid.async.PolicyMaps;
import io.gridlimit.grid.lease.LocalLeases;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.owner.SettleProcessor;
import io.gridlimit.grid.wire.WireFormat;
import io.gridlimit.internal.Preconditions;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.lease.LeaseSettings;
import io.gridlimit.grid.lease.LeaseStats;
import io.gridlimit.grid.async.GiveBackListener;

/**
 * A {@link RateLimiter} on Hazelcast (SPEC §8): the state of policy {@code p} lives in the IMap
 * {@code gridlimit.p}, and each decision is one EntryProcessor ({@code DecideProcessor}) run on the member that owns
 * the key, which reads its time source once, runs the algorithm once and stores the new state with its TTL; the
 * backup receives that state, never a re-run.
 *
 * <p>Works the same through an embedded member or a Hazelcast client: pass either instance, configured with
 * {@link GridLimitHazelcast}. The instance is not owned: {@link #close()} leaves it running.
 *
 * <p><b>Async callbacks.</b> {@link #tryAcquireAsync} returns a stage completed on a thread of a small fixed-size
 * pool this limiter owns ({@code CallbackPool}: threads {@code gridlimit-async-<n>-<i>}, daemon; its javadoc says
 * why), which is also the stage's default executor, never {@code ForkJoinPool.commonPool()} or a thread per task.
 * A dependent registered after completion runs on the registering thread. Keep callbacks short and non-blocking
 * ({@link Builder#asyncThreads(int)}); move blocking work to its own executor with
 * {@code thenXxxAsync(fn, executor)}.
 *
 * <p><b>Hot-key coalescing</b> (on by default, {@link Builder#coalesceHotKeys(boolean)}): while one
 * {@link #tryAcquireAsync} invocation for a policy and key is in flight, later ones queue and leave together as
 * one EntryProcessor carrying their costs (up to 1024), answered in arrival order with exactly the decisions they
 * would get one after another ({@code Coalescer} states exactness, cost and failures; {@code
 * CoalescingExactnessTest} proves it; bench/README.md measures it). {@link #tryAcquire} is never coalesced.
 *
 * <p><b>Quota leases</b> (off by default, {@link Builder#leases(LeaseSettings)}; docs/SPEC.md §13): the busy keys of
 * token-bucket and GCRA policies are decided by {@link #tryAcquireAsync} and {@link #reserveHereAsync} in process
 * from units the key's owner leased to this limiter, never above the limit; {@link #tryAcquire}, {@link #reserve}
 * and {@link #reserveAsync} always ask the owner. {@link #close()} gives the unused units back.
 *
 * <p>What it offers beyond decisions (its instance, owned-key counts, lease counts, the catalog) is
 * {@link GridOperations}, which code outside grid-core obtains with {@link GridOperations#of}, never by a cast.
 *
 * <p>Thread-safe.
 */
public final class HazelcastRateLimiter implements RateLimiter, GridOperations, AutoCloseable {
    /** Threads of the callback pool by default: the number of CPUs, at least 2, at most 16. */
    public static final int DEFAULT_ASYNC_THREADS =
            Math.min(16, Math.max(2, Runtime.getRuntime().availableProcessors()));
    /** Most threads a callback pool may have. */
    public static final int MAX_ASYNC_THREADS = 256;

    private final HazelcastInstance instance;
    private final PolicyMaps maps;
    private final AsyncDecisions async;
    /** Null when leases are off. */
    private final LocalLeases leases;
    private final AtomicBoolean closed = new AtomicBoolean();

    private HazelcastRateLimiter(HazelcastInstance instance, int asyncThreads, boolean coalesce,
                                 GiveBackListener listener, LeaseSettings leaseSettings,
                                 java.util.function.LongSupplier ticker, boolean sweep) {
        this.instance = instance;
        this.maps = new PolicyMaps(instance);
        this.async = new AsyncDecisions(maps, asyncThreads, coalesce);
        this.async.listener(listener);
        this.leases = leaseSettings == null ? null : new LocalLeases(maps, async, leaseSettings,
                instance.getLocalEndpoint().getUuid(), ticker, sweep);
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
        checkRequest(policy, key, cost);
        DecisionResult result = map(policy).map().executeOnKey(key,
                new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy)));
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
        checkRequest(policy, key, cost);
        return leases != null ? leases.decide(policy, key, cost, null, false) : async.decide(policy, key, cost, null);
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
        Objects.requireNonNull(executor, "executor");
        checkRequest(policy, key, cost);
        return leases != null ? leases.decide(policy, key, cost, executor, false)
                : async.decide(policy, key, cost, executor);
    }

    /**
     * Decides one request on the owner of the key and, when admitted, takes its cost as a reservation
     * (docs/SPEC.md §10; while a member of the cluster is of a GridLimit before reservations, during a rolling
     * upgrade, the decision carries none), coalesced per (policy, key) like {@link #tryAcquireAsync(Policy, String, long, Executor)}
     * (a coalesced batch of reservations is one {@code DecideProcessor} taking them in arrival order). {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        checkRequest(policy, key, cost);
        return async.reserve(policy, key, cost, executor);
    }

    /**
     * As {@link #reserveAsync(Policy, String, long, Executor)}, for a reservation that is settled or given back
     * through this limiter only: with leases on ({@link Builder#leases(LeaseSettings)}), a busy key's reservation
     * is then taken from a lease in process (docs/SPEC.md §13), and this limiter's {@link #settleAsync} and
     * {@link #giveBack} settle it into the lease. Without leases it is {@code reserveAsync}.
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> reserveHereAsync(Policy policy, String key, long cost, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        checkRequest(policy, key, cost);
        return leases != null && WireFormat.reservations() ? leases.decide(policy, key, cost, executor, true)
                : async.reserve(policy, key, cost, executor);
    }

    /**
     * Takes a reservation with callbacks on this limiter's callback pool. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost) {
        checkRequest(policy, key, cost);
        return async.reserve(policy, key, cost, null);
    }

    /**
     * Takes a reservation, blocking until the owner answers. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     * @throws com.hazelcast.core.HazelcastException (or a subclass) when the grid fails to answer
     */
    @Override
    public Decision reserve(Policy policy, String key, long cost) {
        checkRequest(policy, key, cost);
        DecideProcessor processor = new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy));
        return map(policy).map().executeOnKey(key, WireFormat.reservations() ? processor.reserving() : processor)
                .first();
    }

    /**
     * Counts one hit as one EntryProcessor on the owner of the key (docs/SPEC.md §3, "Every hit counts"), never
     * coalesced and never from a lease. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Decision> hitAsync(Policy policy, String key, long cost, Executor executor) {
        RateLimitAlgorithms.checkHit(policy, cost);
        RateLimiter.checkKey(key);
        checkOpen();
        return async.hit(policy, key, cost, executor);
    }

    /**
     * Settles a reservation as one {@code SettleProcessor} on the owner of its key. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Settlement> settleAsync(Policy policy, Reservation reservation, long actual) {
        RateLimiter.checkReservation(policy, reservation);
        RateLimiter.checkActual(actual);
        checkOpen();
        CompletionStage<Settlement> local = leases == null ? null : leases.settle(reservation, actual);
        if (local != null) {
            return local;
        }
        return async.settle(policy, reservation, actual);
    }

    /**
     * Settles a reservation, blocking until the owner answers. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     * @throws com.hazelcast.core.HazelcastException (or a subclass) when the grid fails to answer
     */
    @Override
    public Settlement settle(Policy policy, Reservation reservation, long actual) {
        RateLimiter.checkReservation(policy, reservation);
        RateLimiter.checkActual(actual);
        checkOpen();
        CompletionStage<Settlement> local = leases == null ? null : leases.settle(reservation, actual);
        if (local != null) {
            return local.toCompletableFuture().join();
        }
        return map(policy).map().executeOnKey(reservation.key(), new SettleProcessor(policy, reservation, actual))
                .settlement();
    }

    /**
     * Gives a reservation back, retrying grid failures (10 ms, doubling up to 1 s) until a settle answers, the
     * reservation's hold has passed since the first attempt (by this JVM's UTC clock: the owner's may differ), or
     * this limiter is closed. {@inheritDoc}
     *
     * @throws IllegalStateException if this limiter is closed
     */
    @Override
    public CompletionStage<Settlement> giveBack(Policy policy, Reservation reservation) {
        RateLimiter.checkReservation(policy, reservation);
        checkOpen();
        CompletionStage<Settlement> local = leases == null ? null : leases.settle(reservation, 0);
        if (local != null) {
            return local;
        }
        return async.giveBack(policy, reservation);
    }

    /** @return how many (policy, key) pairs have a coalesced call in flight; 0 when off (tests) */
    /**
     * What this limiter's quota leases did (docs/SPEC.md §13).
     *
     * @return the counts since this limiter was built, or null when leases are off
     */
    @Override
    public LeaseStats leaseStats() {
        return leases == null ? null : leases.stats();
    }

    /** @return the holder side of leases, or null when off: for tests */
    LocalLeases leases() {
        return leases;
    }

    int coalescingBusyKeys() {
        return async.busyKeys();
    }

    /** @return whether async decisions are coalesced per (policy, key) */
    public boolean coalescesHotKeys() {
        return async.coalesces();
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
        RateLimiter.checkKey(key);
        DecideProcessor processor = batch(policy, costs);
        checkOpen();
        return map(policy).map().executeOnKey(key, processor).decisions().clone();
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
        RateLimiter.checkKey(key);
        DecideProcessor processor = batch(policy, costs);
        checkOpen();
        return async.decideAll(policy, key, processor);
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
    @Override
    public OptionalLong localOwnedKeyCount(String policyName) {
        Objects.requireNonNull(policyName, "policyName");
        checkOpen();
        if (!maps.isMember()) {
            return OptionalLong.empty(); // a client's LocalMapStats are empty, not its share
        }
        return OptionalLong.of(map(policyName).map().getLocalMapStats().getOwnedEntryCount());
    }

    /** @return the Hazelcast instance decisions go through (not owned by this limiter) */
    @Override
    public HazelcastInstance instance() {
        return instance;
    }

    /** @return the name of the async path taken for a policy: "member", "client" or "public" (diagnostics) */
    String asyncPath(Policy policy) {
        return map(policy).async().path();
    }

    /** @return the prefix of this limiter's callback thread names */
    String threadPrefix() {
        return async.threadPrefix();
    }

    /**
     * Closes the limiter: no new decision is accepted; the callback pool finishes what is queued (waiting up to
     * 5 s, unless called from one of its own threads) and stops ({@code CallbackPool.close()}). A decision still
     * in flight completes its stage on the thread that receives the answer. Idempotent. The Hazelcast instance
     * keeps running.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            if (leases != null) {
                leases.close(); // gives back the unused units before the callback pool stops
            }
            async.close();
        }
    }

    private PolicyMaps.PolicyMap map(Policy policy) {
        return maps.get(policy);
    }

    private PolicyMaps.PolicyMap map(String policyName) {
        return maps.get(policyName);
    }

    /** The checks of every single-cost request, in this order: the policy, the key, the cost, this limiter open. */
    private void checkRequest(Policy policy, String key, long cost) {
        Objects.requireNonNull(policy, "policy");
        RateLimiter.checkKey(key);
        RateLimiter.checkCost(cost);
        checkOpen();
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this HazelcastRateLimiter is closed");
        }
    }

    /** A checked batch processor: each cost here, their number by {@link DecideProcessor}; costs copied. */
    private DecideProcessor batch(Policy policy, long[] costs) {
        long[] copy = Objects.requireNonNull(costs, "costs").clone();
        for (int i = 0; i < copy.length; i++) {
            RateLimiter.checkCost("costs[" + i + "]", copy[i]);
        }
        return new DecideProcessor(policy, copy).withPolicyVersion(maps.versionOf(policy));
    }

    /**
     * Makes decisions of the catalog's current policies carry their version (docs/SPEC.md §11): the owner of a key
     * then decides with the newest version it knows, and each {@link Decision#policyVersion()} states the version
     * used. A policy that is not the catalog's current one of its name is decided as given, without a version.
     *
     * @param catalog the grid's policy catalog of this instance, or null to stop
     * @return this limiter
     */
    @Override
    public HazelcastRateLimiter useCatalog(PolicyCatalog catalog) {
        maps.useCatalog(catalog);
        return this;
    }

    /** Builds a {@link HazelcastRateLimiter}; not thread-safe. */
    public static final class Builder {
        private final HazelcastInstance instance;
        private int asyncThreads = DEFAULT_ASYNC_THREADS;
        private boolean coalesceHotKeys = true;
        private GiveBackListener giveBackListener = GiveBackListener.NONE;
        private LeaseSettings leaseSettings;
        /**
         * The holder side's clock for a lease's life (SPEC §13): monotonic, local, never stored in the grid nor used
         * in a decision (the owner decides with its epoch-based TimeSource); a step of the wall clock must not
         * stretch a lease's life on the replica.
         */
        private java.util.function.LongSupplier ticker = System::nanoTime;
        private boolean sweep = true;

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
            this.asyncThreads = (int) Preconditions.checkRange("asyncThreads", threads, 1, MAX_ASYNC_THREADS);
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
         * Sets who hears of the give-backs the limiter makes on its own: admissions taken as reservations whose
         * stage the caller cancelled before they arrived (docs/SPEC.md §10), for metrics.
         *
         * @param listener the listener; default {@link GiveBackListener#NONE}
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder giveBackListener(GiveBackListener listener) {
            this.giveBackListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Builds the limiter and starts its callback pool.
         *
         * @return a new limiter, never null
         */
        /**
         * Turns quota leases on or off (docs/SPEC.md §13; off by default): with {@code true}, busy keys of
         * token-bucket and GCRA policies are decided in process from units their owner leased to this replica,
         * with {@link LeaseSettings#DEFAULTS}.
         *
         * @param on whether to take leases
         * @return this builder
         */
        public Builder leases(boolean on) {
            this.leaseSettings = on ? LeaseSettings.DEFAULTS : null;
            return this;
        }

        /**
         * Turns quota leases on with these settings (docs/SPEC.md §13).
         *
         * @param settings the lease settings
         * @return this builder
         * @throws NullPointerException if {@code settings} is null
         */
        public Builder leases(LeaseSettings settings) {
            this.leaseSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * For tests: the holder's monotonic clock, and no sweeper thread (the test calls the sweep). Outside this
         * package through {@link GridTestHooks}.
         */
        Builder leaseTicker(java.util.function.LongSupplier manual) {
            this.ticker = Objects.requireNonNull(manual, "manual");
            this.sweep = false;
            return this;
        }

        /** For benchmarks with a manual ticker ({@link GridTestHooks}): the sweeper thread on again. */
        Builder leaseSweeper(boolean on) {
            this.sweep = on;
            return this;
        }

        /**
         * Builds the limiter; it owns its callback pool (and, with leases, its ticker and sweeper) until
         * {@link HazelcastRateLimiter#close()}, but not the Hazelcast instance.
         *
         * @return a new limiter, thread-safe
         */
        public HazelcastRateLimiter build() {
            return new HazelcastRateLimiter(instance, asyncThreads, coalesceHotKeys, giveBackListener, leaseSettings,
                    ticker, sweep);
        }
    }

}
