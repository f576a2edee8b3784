package io.gridlimit.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.FixedWindowState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.app.support.SharedClock;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.json.JsonMapper;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The all-or-nothing target of docs/SPEC.md §10 over real HTTP: 10,000 atomic batches through the decision API while
 * one decision or settle in five fails on the owner (its clock throws before the state is touched: a grid
 * failure). A batch answered 200 with every check admitted stands; one answered 200 with a denial, or 503, is given
 * back whole, the give-backs retried through the failures. Afterwards every key holds exactly the cost of the
 * batches that stood, and no give-back was lost.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AtomicBatchFailureTest implements TestPropertyProvider {
    private static final int BATCHES = Integer.getInteger("gridlimit.test.atomicBatches", 10_000);
    private static final int THREADS = 4;
    private static final int BUCKET_KEYS = 5;
    private static final int WINDOW_KEYS = 40;
    private static final long CAPACITY = 50_000;

    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient client;

    @Inject
    FlakyClock clock;

    @Inject
    HazelcastInstance member;

    @Inject
    MeterRegistry meters;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v).replace("[", "")
                .replace("]", "")));
        p.remove(SharedClock.PROPERTY);
        p.put("gridlimit-svc-test.flaky-clock", "true");
        p.put("gridlimit.policies.bucket.algorithm", "token-bucket");
        p.put("gridlimit.policies.bucket.capacity", Long.toString(CAPACITY));
        p.put("gridlimit.policies.bucket.refill-tokens", "1");
        p.put("gridlimit.policies.bucket.refill-period", "365d");
        p.put("gridlimit.policies.window.algorithm", "fixed-window");
        p.put("gridlimit.policies.window.limit", "6");
        p.put("gridlimit.policies.window.window", "1h");
        return p;
    }

    /** A frozen clock whose reading fails, while failing, one time in five. */
    static final class FlakyClock implements TimeSource {
        volatile boolean failing;

        @Override
        public long nowNanos() {
            if (failing && ThreadLocalRandom.current().nextInt(5) == 0) {
                throw new IllegalStateException("injected grid failure");
            }
            return SharedClock.START.getEpochSecond() * 1_000_000_000L;
        }
    }

    @Factory
    @Requires(property = "gridlimit-svc-test.flaky-clock", value = "true")
    static class FlakyClockFactory {
        @Singleton
        @Replaces(TimeSource.class)
        FlakyClock flakyClock() {
            return new FlakyClock();
        }
    }

    record Check(String policy, String key, long cost) {
    }

    private double count(String name, String... tags) {
        return meters.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    @SuppressWarnings("unchecked")
    void tenThousandAtomicBatchesWithGridFailuresLeaveOnlyWhatStood() throws Exception {
        Map<String, AtomicLong> standing = new ConcurrentHashMap<>();
        AtomicLong stoodChecks = new AtomicLong();
        AtomicLong answered503 = new AtomicLong();
        AtomicLong deniedBatches = new AtomicLong();
        AtomicLong stoodBatches = new AtomicLong();
        clock.failing = true;
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                Random random = new Random(thread);
                for (int b = thread; b < BATCHES; b += THREADS) {
                    List<Check> checks = new ArrayList<>();
                    int n = 1 + random.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        checks.add(random.nextBoolean()
                                ? new Check("bucket", "b" + random.nextInt(BUCKET_KEYS), 1 + random.nextInt(9))
                                : new Check("window", "w" + random.nextInt(WINDOW_KEYS), 1 + random.nextInt(2)));
                    }
                    StringBuilder body = new StringBuilder("{\"atomic\":true,\"checks\":[");
                    for (int i = 0; i < n; i++) {
                        Check c = checks.get(i);
                        body.append(i == 0 ? "" : ",").append("{\"policy\":\"").append(c.policy())
                                .append("\",\"key\":\"").append(c.key()).append("\",\"cost\":").append(c.cost())
                                .append('}');
                    }
                    body.append("]}");
                    HttpResponse<String> r = Http.exchange(client.toBlocking(), HttpRequest.POST(
                            "/v1/ratelimit/check/batch", body.toString()).contentType(MediaType.APPLICATION_JSON));
                    if (r.code() == 503) {
                        answered503.incrementAndGet();
                        continue;
                    }
                    assertThat(r.code()).isEqualTo(200);
                    List<Map<String, Object>> decisions = (List<Map<String, Object>>) json.readValue(Http.body(r),
                            Map.class).get("decisions");
                    boolean allAdmitted = decisions.stream().allMatch(d -> Boolean.TRUE.equals(d.get("allowed")));
                    for (Map<String, Object> d : decisions) {
                        assertThat(d.get("givenBack")).isEqualTo(!allAdmitted && Boolean.TRUE.equals(d.get("allowed")));
                    }
                    if (allAdmitted) {
                        stoodBatches.incrementAndGet();
                        for (Check c : checks) {
                            standing.computeIfAbsent(c.policy() + "/" + c.key(), k -> new AtomicLong())
                                    .addAndGet(c.cost());
                            stoodChecks.incrementAndGet();
                        }
                    } else {
                        deniedBatches.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(10, TimeUnit.MINUTES);
        }
        pool.shutdown();
        clock.failing = false;
        assertThat(answered503.get()).as("grid failures happened").isPositive();
        assertThat(deniedBatches.get()).as("denials happened").isPositive();
        assertThat(stoodBatches.get()).as("batches stood").isPositive();

        // every admission the API saw but did not keep is given back (retried through the failures); checks of a
        // batch answered 503 that were in flight are given back by the limiter when they arrive (reason=late)
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            double seen = count(GridLimitMetrics.DECISIONS, "source", "api", "outcome", "allowed");
            double givenBack = count(GridLimitMetrics.GIVE_BACKS, "reason", "denied", "result", "given-back")
                    + count(GridLimitMetrics.GIVE_BACKS, "reason", "failed", "result", "given-back");
            double lost = count(GridLimitMetrics.GIVE_BACKS, "reason", "denied", "result", "lost")
                    + count(GridLimitMetrics.GIVE_BACKS, "reason", "failed", "result", "lost");
            double twice = count(GridLimitMetrics.GIVE_BACKS, "reason", "denied", "result", "already-settled")
                    + count(GridLimitMetrics.GIVE_BACKS, "reason", "failed", "result", "already-settled");
            assertThat(givenBack + lost + twice).as("given back %.0f, lost %.0f, twice %.0f, seen %.0f, stood %d,"
                    + " late %.0f", givenBack, lost, twice, seen, stoodChecks.get(),
                    count(GridLimitMetrics.GIVE_BACKS, "reason", "late")).isEqualTo(seen - stoodChecks.get());
            for (int i = 0; i < BUCKET_KEYS; i++) {
                assertThat(CAPACITY - tokens(member, "b" + i)).as("bucket key b" + i)
                        .isEqualTo(stood(standing, "bucket/b" + i));
            }
            for (int i = 0; i < WINDOW_KEYS; i++) {
                assertThat(windowCount(member, "w" + i)).as("window key w" + i)
                        .isEqualTo(stood(standing, "window/w" + i));
            }
        });
        System.out.printf("atomic batches: %d stood, %d denied and given back, %d answered 503; give-backs: %.0f"
                        + " denied, %.0f failed, %.0f late, %.0f lost, %.0f already settled%n", stoodBatches.get(),
                deniedBatches.get(), answered503.get(), count(GridLimitMetrics.GIVE_BACKS, "reason", "denied"),
                count(GridLimitMetrics.GIVE_BACKS, "reason", "failed"),
                count(GridLimitMetrics.GIVE_BACKS, "reason", "late"),
                count(GridLimitMetrics.GIVE_BACKS, "result", "lost"),
                count(GridLimitMetrics.GIVE_BACKS, "result", "already-settled"));
        assertThat(count(GridLimitMetrics.GIVE_BACKS, "result", "lost")).as("no give-back lost").isZero();
        assertThat(count(GridLimitMetrics.GIVE_BACKS, "result", "already-settled")).as("none given back twice")
                .isZero();
    }

    private static long stood(Map<String, AtomicLong> standing, String key) {
        AtomicLong v = standing.get(key);
        return v == null ? 0 : v.get();
    }

    private static LimiterState inner(HazelcastInstance member, String policy, String key) {
        LimiterState s = member.<String, LimiterState>getMap(GridLimitHazelcast.mapName(policy)).get(key);
        return s instanceof ReservedState r ? r.inner() : s;
    }

    private static long tokens(HazelcastInstance member, String key) {
        LimiterState s = inner(member, "bucket", key);
        return s == null ? CAPACITY : ((TokenBucketState) s).tokens();
    }

    private static long windowCount(HazelcastInstance member, String key) {
        LimiterState s = inner(member, "window", key);
        return s == null ? 0 : ((FixedWindowState) s).count();
    }
}
