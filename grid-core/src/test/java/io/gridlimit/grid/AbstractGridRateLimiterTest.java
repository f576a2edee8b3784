package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.EntryView;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.FixedWindowState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.owner.DecideProcessor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One suite for every way of reaching the grid: an embedded member and a Hazelcast client run it alike
 * ({@link EmbeddedGridRateLimiterTest}, {@link ClientGridRateLimiterTest}). A two-member loopback cluster with one
 * synchronous backup; every member's clock is a frozen {@link io.gridlimit.time.ManualTimeSource} moved only by
 * the tests. Each test uses policies of its own names, so tests share the cluster without sharing state.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractGridRateLimiterTest {
    GridTestSupport.Cluster cluster;
    HazelcastInstance caller;
    HazelcastRateLimiter limiter;

    /** @return the instance decisions go through: a member or a client of {@code cluster} */
    abstract HazelcastInstance connect(GridTestSupport.Cluster cluster);

    /** @return the async path the limiter must take through {@link #caller} */
    abstract String expectedAsyncPath();

    @BeforeAll
    void startCluster() {
        cluster = new GridTestSupport.Cluster(2, 1);
        cluster.startMember(T0);
        cluster.startMember(T0);
        caller = connect(cluster);
        limiter = HazelcastRateLimiter.create(caller);
    }

    @AfterAll
    void stopCluster() {
        if (limiter != null) {
            limiter.close();
        }
        cluster.close();
    }

    @BeforeEach
    void freezeClocks() {
        cluster.setNanos(T0);
    }

    IMap<String, LimiterState> map(Policy policy) {
        return caller.getMap(GridLimitHazelcast.mapName(policy.name()));
    }

    static List<Policy> policies(String prefix) {
        return GridTestSupport.policies(prefix, 5);
    }

    static List<Policy> pureP() {
        return policies("pure-");
    }

    /**
     * A sequence of requests through the grid (sync, async and batched, with time moving forwards and back)
     * gives exactly the pure algorithm's decisions, and the grid holds exactly the pure algorithm's state.
     */
    @ParameterizedTest
    @MethodSource("pureP")
    void gridDecisionsAndStatesEqualThePureAlgorithms(Policy policy) throws Exception {
        String key = "user:alice";
        LimiterState expected = null;
        long now = T0;
        long[][] steps = { // {advance ms, cost, mode: 0 sync, 1 async, 2 batch of (cost, 1)}
            {0, 1, 0}, {0, 3, 1}, {0, 2, 0}, {600_000, 1, 0}, {0, 1, 2}, {-60_000, 1, 1}, {-1, 6, 0},
            {1_800_000, 2, 2}, {7_200_000, 5, 0}, {0, 1, 1}};
        for (long[] step : steps) {
            now += step[0] * 1_000_000L;
            cluster.setNanos(now);
            if (step[2] == 2) {
                long[] costs = {step[1], 1};
                Decision[] got = limiter.tryAcquireAll(policy, key, costs);
                Outcome[] want = RateLimitAlgorithms.applyAll(expected, policy, costs, now);
                assertThat(got).containsExactly(want[0].decision(), want[1].decision());
                expected = want[1].state();
            } else {
                Decision got = step[2] == 0 ? limiter.tryAcquire(policy, key, step[1])
                        : limiter.tryAcquireAsync(policy, key, step[1]).toCompletableFuture().get(30, TimeUnit.SECONDS);
                Outcome want = RateLimitAlgorithms.apply(expected, policy, step[1], now);
                assertThat(got).as("step %s", java.util.Arrays.toString(step)).isEqualTo(want.decision());
                expected = want.state();
            }
            assertThat(map(policy).get(key)).isEqualTo(expected);
        }
    }

    static List<Policy> raceP() {
        return GridTestSupport.policies("race-", 50);
    }

    /** 8 threads send limit + 100 requests at one key: exactly {@code limit} are admitted, each seeing its own remaining. */
    @ParameterizedTest
    @MethodSource("raceP")
    void concurrentRequestsAtOneKeyAdmitExactlyTheLimit(Policy policy) throws Exception {
        int limit = 50;
        int requests = limit + 100;
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger sent = new AtomicInteger();
            List<Future<List<Decision>>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                final boolean async = t % 2 == 1;
                results.add(threads.submit(() -> {
                    go.await();
                    List<Decision> mine = new ArrayList<>();
                    while (sent.incrementAndGet() <= requests) {
                        mine.add(async
                                ? limiter.tryAcquireAsync(policy, "hot", 1).toCompletableFuture().get(30, TimeUnit.SECONDS)
                                : limiter.tryAcquire(policy, "hot", 1));
                    }
                    return mine;
                }));
            }
            go.countDown();
            List<Decision> all = new ArrayList<>();
            for (Future<List<Decision>> f : results) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }
            assertThat(all).hasSize(requests);
            List<Long> admittedRemaining = all.stream().filter(Decision::allowed).map(Decision::remaining).sorted()
                    .toList();
            List<Long> expectedRemaining = new ArrayList<>();
            for (long r = 0; r < limit; r++) {
                expectedRemaining.add(r);
            }
            assertThat(admittedRemaining).isEqualTo(expectedRemaining);
            assertThat(all.stream().filter(d -> !d.allowed())).hasSize(requests - limit)
                    .allSatisfy(d -> assertThat(d.remaining()).isZero());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void invalidKeysAndCostsAreRejectedBeforeTheGridIsTouched() {
        Policy policy = Policy.builder("valid").tokenBucket(5, 1, Duration.ofHours(1)).build();
        cluster.resetReads();
        String tooLong = "a".repeat(1025);
        String tooLongWide = "\u00e9".repeat(513); // 1026 UTF-8 bytes in 513 chars

        assertThatThrownBy(() -> limiter.tryAcquire(policy, "", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must not be empty");
        assertThatThrownBy(() -> limiter.tryAcquire(policy, tooLong, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must be at most 1024 UTF-8 bytes, got 1025 bytes");
        assertThatThrownBy(() -> limiter.tryAcquireAsync(policy, tooLongWide, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must be at most 1024 UTF-8 bytes, got 1026 bytes");
        assertThatThrownBy(() -> limiter.tryAcquire(policy, "k", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cost must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> limiter.tryAcquireAsync(policy, "k", -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -1");
        assertThatThrownBy(() -> limiter.tryAcquire(policy, "k", 1_000_000_000_000_001L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 1000000000000001");
        assertThatThrownBy(() -> limiter.tryAcquireAll(policy, "k", new long[] {1, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(
                        "costs[1] must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> limiter.tryAcquireAllAsync(policy, "", new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must not be empty");
        assertThatThrownBy(() -> limiter.tryAcquire(policy, null, 1)).isInstanceOf(NullPointerException.class);

        assertThat(cluster.totalReads()).as("no processor ran").isZero();
        assertThat(map(policy).size()).as("nothing written").isZero();

        // the bounds themselves are valid: a 1024-byte key, and the largest cost (denied: above the capacity)
        assertThat(limiter.tryAcquire(policy, "\u00e9".repeat(512), 1).allowed()).isTrue();
        Decision huge = limiter.tryAcquire(policy, "k", 1_000_000_000_000_000L);
        assertThat(huge.allowed()).isFalse();
        assertThat(huge.isUnsatisfiable()).isTrue();
        assertThat(map(policy).containsKey("k")).as("a denial writes nothing").isFalse();
        assertThat(map(policy).size()).isEqualTo(1);
    }

    /**
     * Every write path stores the state with the TTL of SPEC §8 plus Hazelcast's 1 s expiry granularity: the entry
     * never expires before the state equals a fresh one.
     */
    /** Every hit counts through the grid as the pure algorithm counts it (docs/SPEC.md §3). */
    @Test
    void hitsCountOnTheOwnerAsThePureAlgorithmDoes() throws Exception {
        Policy window = Policy.builder("hit-fw").fixedWindow(3, Duration.ofSeconds(10)).build();
        long[] costs = {2, 2, 1, 0, 4};
        LimiterState expected = null;
        for (long cost : costs) {
            Outcome pure = RateLimitAlgorithms.hit(expected, window, cost, T0);
            Decision got = limiter.hitAsync(window, "k", cost, null).toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(got).as("cost %d", cost).isEqualTo(pure.decision());
            if (pure.write()) {
                expected = pure.state();
            }
            assertThat(map(window).get("k")).isEqualTo(expected);
        }
        assertThat(expected).isEqualTo(new FixedWindowState(T0, 9, 10_000_000_000L));
        // a decision of the same key after those hits sees them: 9 counted, nothing left this window
        assertThat(limiter.tryAcquire(window, "k", 1).allowed()).isFalse();
        Policy bucket = Policy.builder("hit-tb").tokenBucket(3, 1, Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> limiter.hitAsync(bucket, "k", 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot count every hit");
        assertThatThrownBy(() -> limiter.hitAsync(window, "", 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must not be empty");
    }

    @Test
    void everyWritePathSetsTheTtl() throws Exception {
        // capacity 10, 3 tokens per 7 s: one token short is full again after ceil(7/3 s) = 2 333 333 334 ns
        Policy bucket = Policy.builder("ttl-tb").tokenBucket(10, 3, Duration.ofSeconds(7)).build();
        long before = System.currentTimeMillis();
        limiter.tryAcquire(bucket, "sync", 1);
        assertTtl(bucket, "sync", 2_333_333_334L, before);

        before = System.currentTimeMillis();
        limiter.tryAcquireAsync(bucket, "async", 2).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTtl(bucket, "async", 4_666_666_667L, before);

        before = System.currentTimeMillis();
        limiter.tryAcquireAll(bucket, "batch", new long[] {1, 20, 2});
        assertTtl(bucket, "batch", 7_000_000_000L, before);

        // a 1 ms window at its very start: the state is stale after exactly 1 ms, the minimum TTL
        Policy tiny = Policy.builder("ttl-fw").fixedWindow(1, Duration.ofMillis(1)).build();
        // Its entry lives 1 ms to 1 s of real time (the expiration time is rounded down to a whole second), so a
        // loaded machine may read it after it expired: a fresh key until one is read in time, at most 20
        EntryView<String, LimiterState> tinyView = null;
        for (int attempt = 0; tinyView == null && attempt < 20; attempt++) {
            before = System.currentTimeMillis();
            limiter.tryAcquire(tiny, "min" + attempt, 1);
            tinyView = map(tiny).getEntryView("min" + attempt);
            if (tinyView != null) {
                assertTtl(tinyView, "min" + attempt, 1_000_000L, before, System.currentTimeMillis());
            }
        }
        assertThat(tinyView).as("a 1 ms state read before it expired in 20 tries").isNotNull();

        // a denied request after a clock step back writes the rebased state with a recomputed TTL (SPEC §2)
        Policy window = Policy.builder("ttl-fw2").fixedWindow(2, Duration.ofSeconds(10)).build();
        // 10 s windows are aligned to epoch 0: T0 + 9 s opens the window after [T0 - 1 s, T0 + 9 s)
        cluster.setNanos(T0 + 9_000_000_000L);
        limiter.tryAcquire(window, "rebase", 2);
        cluster.setNanos(T0 + 8_500_000_000L); // step back: the counts move into the earlier window, 0.5 s left
        before = System.currentTimeMillis();
        Decision denied = limiter.tryAcquire(window, "rebase", 1);
        assertThat(denied.allowed()).isFalse();
        Outcome expected = RateLimitAlgorithms.apply(
                RateLimitAlgorithms.apply(null, window, 2, T0 + 9_000_000_000L).state(), window, 1,
                T0 + 8_500_000_000L);
        assertThat(expected.write()).isTrue();
        assertThat(map(window).get("rebase")).isEqualTo(expected.state());
        assertTtl(window, "rebase", expected.ttlNanos(), before);
    }

    /** Reads the entry's expiry metadata and checks it against the state's TTL. */
    void assertTtl(Policy policy, String key, long ttlNanos, long wallBeforeMillis) {
        long wallAfterMillis = System.currentTimeMillis();
        EntryView<String, LimiterState> view = map(policy).getEntryView(key);
        assertThat(view).as("entry %s", key).isNotNull();
        assertTtl(view, key, ttlNanos, wallBeforeMillis, wallAfterMillis);
    }

    /** As above, for an entry view read between {@code wallBeforeMillis} and {@code wallAfterMillis}. */
    static void assertTtl(EntryView<String, LimiterState> view, String key, long ttlNanos, long wallBeforeMillis,
                          long wallAfterMillis) {
        long ttlMillis = DecideProcessor.ttlMillis(ttlNanos);
        long storedMillis = DecideProcessor.storedTtlMillis(ttlNanos);
        // Hazelcast 5.x keeps the TTL in whole seconds (ExpirationTimeSetter.toSeconds) ...
        assertThat(view.getTtl()).as("ttl of %s", key).isEqualTo(storedMillis / 1000 * 1000);
        // ... and the expiration time rounded down to a whole second: thanks to the margin, never before the TTL
        assertThat(view.getExpirationTime()).as("expiration of %s", key)
                .isGreaterThanOrEqualTo(wallBeforeMillis + ttlMillis)
                .isLessThanOrEqualTo(wallAfterMillis + storedMillis);
    }

    @Test
    void policyChangesClampTokensKeepCountsAndCarryAChangedWindow() {
        Duration hour = Duration.ofHours(1);
        Policy bucket10 = Policy.builder("change-tb").tokenBucket(10, 1, hour).build();
        Policy bucket5 = Policy.builder("change-tb").tokenBucket(5, 1, hour).build();
        assertThat(limiter.tryAcquire(bucket10, "k", 2).remaining()).isEqualTo(8);
        long before = System.currentTimeMillis();
        Decision clamped = limiter.tryAcquire(bucket5, "k", 1);
        assertThat(clamped.allowed()).isTrue();
        assertThat(clamped.limit()).isEqualTo(5);
        assertThat(clamped.remaining()).as("8 tokens clamped to 5, one taken").isEqualTo(4);
        assertTtl(bucket5, "k", 3_600_000_000_000L, before);

        Policy window10 = Policy.builder("change-fw").fixedWindow(10, hour).build();
        Policy window8 = Policy.builder("change-fw").fixedWindow(8, hour).build();
        assertThat(limiter.tryAcquire(window10, "k", 6).remaining()).isEqualTo(4);
        Decision kept = limiter.tryAcquire(window8, "k", 1);
        assertThat(kept.allowed()).isTrue();
        assertThat(kept.remaining()).as("6 counted against the new limit of 8, one more").isEqualTo(1);
        assertThat(limiter.tryAcquire(window8, "k", 2).allowed()).isFalse();

        Policy window30 = Policy.builder("change-fw").fixedWindow(8, Duration.ofMinutes(30)).build();
        before = System.currentTimeMillis();
        Decision carried = limiter.tryAcquire(window30, "k", 1);
        assertThat(carried.allowed()).isTrue();
        // a changed window carries the share left (SPEC §4): 1 of 8 left -> floor(1·8/8) = 1 of 8, then taken
        assertThat(carried.remaining()).as("a changed window carries the share left").isEqualTo(0);
        // T0 is 1 s into a 30 min window
        assertTtl(window30, "k", 1_799_000_000_000L, before);
    }

    @Test
    void asyncCallbacksRunOnTheLimitersThreads() throws Exception {
        Policy policy = Policy.builder("async-threads").tokenBucket(1_000_000, 1, Duration.ofHours(1)).build();
        assertThat(limiter.asyncPath(policy)).isEqualTo(expectedAsyncPath());
        String prefix = limiter.threadPrefix();
        String caller = Thread.currentThread().getName();
        int onPool = 0;
        for (int i = 0; i < 200; i++) {
            CompletableFuture<Decision> stage = limiter.tryAcquireAsync(policy, "k" + i, 1).toCompletableFuture();
            AtomicReference<String> dependent = new AtomicReference<>();
            CompletableFuture<Void> plain = stage.thenAccept(d -> dependent.set(Thread.currentThread().getName()));
            CompletableFuture<String> asyncDependent = stage.thenApplyAsync(d -> Thread.currentThread().getName());
            assertThat(asyncDependent.get(30, TimeUnit.SECONDS)).as("default executor").startsWith(prefix);
            plain.get(30, TimeUnit.SECONDS);
            // registered before completion: the completing pool thread; after: the registering thread itself
            // (CompletableFuture's rule); never a Hazelcast thread, a common-pool thread or a new thread
            if (!dependent.get().equals(caller)) {
                assertThat(dependent.get()).as("completing thread").startsWith(prefix);
                onPool++;
            }
        }
        assertThat(onPool).as("dependents run by the completing pool thread").isPositive();
    }

    /**
     * With a caller's executor (an HTTP event loop), the answer is handed from Hazelcast's thread straight to that
     * executor, never through the limiter's pool; coalesced or not. A rejecting executor still completes the stage.
     */
    @Test
    void asyncWithAnExecutorCompletesOnThatExecutorStraightFromHazelcast() throws Exception {
        assertThat(limiter.coalescesHotKeys()).as("the default").isTrue();
        Policy policy = Policy.builder("async-executor").tokenBucket(1_000_000, 1, Duration.ofHours(1)).build();
        ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-loop"));
        List<String> handedBy = Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.Executor recording = task -> {
            handedBy.add(Thread.currentThread().getName());
            loop.execute(task);
        };
        try (HazelcastRateLimiter uncoalesced = HazelcastRateLimiter.builder(limiter.instance())
                .coalesceHotKeys(false).build()) {
            for (HazelcastRateLimiter l : List.of(limiter, uncoalesced)) {
                handedBy.clear();
                List<CompletableFuture<String>> completedOn = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    CompletableFuture<Decision> stage =
                            l.tryAcquireAsync(policy, "k" + (i % 5), 1, recording).toCompletableFuture();
                    completedOn.add(stage.thenApply(d -> Thread.currentThread().getName()));
                }
                for (CompletableFuture<String> f : completedOn) {
                    String thread = f.get(30, TimeUnit.SECONDS);
                    // registered before completion: runs where the stage completed; after: on this thread
                    assertThat(thread).isIn("caller-loop", Thread.currentThread().getName());
                }
                assertThat(handedBy).as("threads that handed answers to the executor").isNotEmpty()
                        .noneMatch(name -> name.startsWith(l.threadPrefix()));
            }
            java.util.concurrent.Executor rejecting = task -> {
                throw new java.util.concurrent.RejectedExecutionException("loop shut down");
            };
            assertThat(limiter.tryAcquireAsync(policy, "rejected", 1, rejecting).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS).allowed()).isTrue();
            assertThat(uncoalesced.tryAcquireAsync(policy, "rejected", 1, rejecting).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS).allowed()).isTrue();
        } finally {
            loop.shutdownNow();
        }
    }

    /** 20 000 async decisions, at most 1 000 in flight: the JVM starts no thread per task. */
    @Test
    void asyncBurstKeepsTheThreadCountBounded() throws Exception {
        Policy policy = Policy.builder("async-burst").fixedWindow(1_000_000_000L, Duration.ofHours(1)).build();
        limiter.tryAcquireAsync(policy, "warm-up", 1).toCompletableFuture().get(30, TimeUnit.SECONDS);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        threads.resetPeakThreadCount();
        int liveBefore = threads.getThreadCount();
        long startedBefore = threads.getTotalStartedThreadCount();
        Semaphore inFlight = new Semaphore(1_000);
        AtomicInteger admitted = new AtomicInteger();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        int total = 20_000;
        CountDownLatch done = new CountDownLatch(total);
        for (int i = 0; i < total; i++) {
            inFlight.acquire();
            limiter.tryAcquireAsync(policy, "burst-" + (i % 512), 1).whenComplete((d, t) -> {
                if (t != null) {
                    failures.add(t);
                } else if (d.allowed()) {
                    admitted.incrementAndGet();
                }
                inFlight.release();
                done.countDown();
            });
        }
        assertThat(done.await(120, TimeUnit.SECONDS)).isTrue();
        assertThat(failures).isEmpty();
        assertThat(admitted.get()).isEqualTo(total);
        long started = threads.getTotalStartedThreadCount() - startedBefore;
        int peak = threads.getPeakThreadCount();
        assertThat(started).as("threads started during the burst").isLessThan(50);
        assertThat(peak).as("peak live threads (%d before)", liveBefore).isLessThan(liveBefore + 50);
    }

    @Test
    void localOwnedKeyCountIsTheLocalMapStatsOwnedEntryCount() {
        Policy policy = Policy.builder("owned").fixedWindow(5, Duration.ofHours(1)).build();
        for (int i = 0; i < 40; i++) {
            limiter.tryAcquire(policy, "o" + i, 1);
        }
        long ownedByCaller = 0;
        for (int i = 0; i < 40; i++) {
            if (cluster.members.contains(caller) && cluster.ownerOf("o" + i) == caller) {
                ownedByCaller++;
            }
        }
        if (cluster.members.contains(caller)) {
            assertThat(limiter.localOwnedKeyCount(policy.name())).hasValue(ownedByCaller);
            assertThat(ownedByCaller).isBetween(1L, 39L);
        } else {
            assertThat(limiter.localOwnedKeyCount(policy.name())).isEmpty();
        }
    }

    @Test
    void aClosedLimiterRefusesNewDecisionsAndFinishesStartedOnes() throws Exception {
        Policy policy = Policy.builder("closing").tokenBucket(5, 1, Duration.ofHours(1)).build();
        HazelcastRateLimiter own = HazelcastRateLimiter.builder(caller).asyncThreads(1).build();
        CompletableFuture<Decision> started = own.tryAcquireAsync(policy, "k", 1).toCompletableFuture();
        own.close();
        own.close();
        assertThat(started.get(30, TimeUnit.SECONDS).remaining()).isEqualTo(4);
        assertThatThrownBy(() -> own.tryAcquire(policy, "k", 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> own.tryAcquireAsync(policy, "k", 1)).isInstanceOf(IllegalStateException.class);
        assertThat(limiter.tryAcquire(policy, "k", 1).remaining()).as("the instance keeps running").isEqualTo(3);
    }
}
