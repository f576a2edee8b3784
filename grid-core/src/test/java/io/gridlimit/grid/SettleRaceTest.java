package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The race target of docs/SPEC.md §10, on real members: with the clock frozen, 16 threads mix reservations (all
 * admitted) and settles on one key, async and blocking, through a member that owns the key and one that does not;
 * the key's final state equals that of the same actual costs applied one after another, exactly, for every
 * algorithm (the backups' state is the primary's: {@code owner.SettleProcessorTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SettleRaceTest {
    private static final int THREADS = 16;
    private static final int RESERVATIONS_PER_THREAD = 40;
    private GridTestSupport.Cluster cluster;
    private HazelcastRateLimiter viaFirst;
    private HazelcastRateLimiter viaSecond;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(2, 1);
        cluster.startMember(T0);
        cluster.startMember(T0);
        viaFirst = HazelcastRateLimiter.create(cluster.members.get(0));
        viaSecond = HazelcastRateLimiter.create(cluster.members.get(1));
    }

    @AfterAll
    void stop() {
        viaFirst.close();
        viaSecond.close();
        cluster.close();
    }

    static Policy policy(Algorithm algorithm) {
        Duration hour = Duration.ofHours(1);
        String name = "race-" + algorithm.configName();
        Band band = switch (algorithm) {
            case TOKEN_BUCKET -> Band.tokenBucket(name, 100_000, 1, hour);
            case GCRA -> Band.gcra(name, 100_000, 1, hour);
            case FIXED_WINDOW -> Band.fixedWindow(name, 100_000, hour);
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(name, 100_000, hour);
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(name, 100_000, hour);
            case CALENDAR -> Band.calendar(name, 100_000, io.gridlimit.calendar.CalendarPeriods.daily(
                    java.time.ZoneId.of("Europe/Berlin")));
        };
        return Policy.builder(name).single(band).build();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void concurrentReservationsAndSettlesEqualTheActualCostsInSequence(Algorithm algorithm) throws Exception {
        Policy policy = policy(algorithm);
        String key = "hot";
        ConcurrentLinkedQueue<Long> actuals = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                Random random = new Random(thread);
                HazelcastRateLimiter limiter = thread % 2 == 0 ? viaFirst : viaSecond;
                List<Reservation> open = new ArrayList<>();
                go.await();
                for (int i = 0; i < RESERVATIONS_PER_THREAD; i++) {
                    long cost = 1 + random.nextInt(5);
                    Decision d = i % 3 == 0 ? limiter.reserve(policy, key, cost)
                            : limiter.reserveAsync(policy, key, cost).toCompletableFuture().get();
                    assertThat(d.allowed()).isTrue();
                    open.add(d.reservation());
                    if (random.nextBoolean() && !open.isEmpty()) {
                        settle(limiter, policy, open.remove(random.nextInt(open.size())), random, actuals);
                    }
                }
                while (!open.isEmpty()) {
                    settle(limiter, policy, open.remove(open.size() - 1), random, actuals);
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(actuals).hasSize(THREADS * RESERVATIONS_PER_THREAD);

        LimiterState expected = null;
        for (long actual : actuals) {
            if (actual > 0) {
                Outcome o = RateLimitAlgorithms.apply(expected, policy, actual, T0);
                assertThat(o.decision().allowed()).isTrue();
                expected = o.state();
            }
        }
        IMap<String, LimiterState> map = cluster.members.get(0).getMap(GridLimitHazelcast.mapName(policy.name()));
        LimiterState stored = map.get(key);
        assertThat(stored).isInstanceOf(ReservedState.class);
        assertThat(((ReservedState) stored).inner()).isEqualTo(expected);
        assertThat(((ReservedState) stored).settledIds()).hasSize(THREADS * RESERVATIONS_PER_THREAD);
    }

    private static void settle(HazelcastRateLimiter limiter, Policy policy, Reservation r, Random random,
                               ConcurrentLinkedQueue<Long> actuals) throws Exception {
        long actual = random.nextInt((int) (2 * r.cost() + 1)); // 0 to 2c: give-backs and charges
        Settlement s = random.nextBoolean() ? limiter.settle(policy, r, actual)
                : limiter.settleAsync(policy, r, actual).toCompletableFuture().get();
        assertThat(s).isEqualTo(new Settlement(Settlement.Status.SETTLED, actual, 0));
        // a retry changes nothing
        assertThat(limiter.settle(policy, r, actual + 1).status()).isEqualTo(Settlement.Status.ALREADY_SETTLED);
        actuals.add(actual);
    }
}
