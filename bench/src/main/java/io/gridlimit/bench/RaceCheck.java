package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.RemoteBucketBuilder;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Admitted versus limit in a race: {@value #THREADS} threads released together send {@value #PER_THREAD}
 * requests each (cost 1) for ONE fresh key whose limit is {@value #LIMIT} per hour (so nothing refills during the
 * race), {@value #ROUNDS} rounds with a new key each, for every limiter of the run: GridLimit (sliding-window
 * counter and token bucket, sync and async), Bucket4j (token bucket, sync) on one embedded member, the atomic Redis
 * Lua sliding-window counter and the seeds' two-pipeline code on a throwaway redis-server. Prints a Markdown table:
 * an exact limiter admits exactly {@value #LIMIT} every round.
 *
 * <p>{@code java --add-opens=... -cp bench/target/benchmarks.jar io.gridlimit.bench.RaceCheck} (run.sh does it).
 */
public final class RaceCheck {
    static final int THREADS = 16;
    static final int PER_THREAD = 25;
    static final long LIMIT = 100;
    static final int ROUNDS = 5;

    private RaceCheck() {
    }

    /**
     * Runs the race and prints the table.
     *
     * @param args ignored
     * @throws Exception if a limiter fails
     */
    public static void main(String[] args) throws Exception {
        HazelcastInstance member = BenchMember.start();
        List<String> rows = new ArrayList<>();
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.builder(member).coalesceHotKeys(true).build();
             RedisServer redis = RedisServer.start()) {
            Duration hour = Duration.ofHours(1);
            Policy counter = Policy.builder("race-swc").slidingWindowCounter(LIMIT, hour).build();
            Policy bucket = Policy.builder("race-tb").tokenBucket(LIMIT, LIMIT, hour).build();
            rows.add(race("GridLimit sliding-window-counter, sync",
                    key -> () -> limiter.tryAcquire(counter, key, 1).allowed()));
            rows.add(race("GridLimit sliding-window-counter, async (coalesced)",
                    key -> () -> limiter.tryAcquireAsync(counter, key, 1).toCompletableFuture().join().allowed()));
            rows.add(race("GridLimit token-bucket, async (coalesced)",
                    key -> () -> limiter.tryAcquireAsync(bucket, key, 1).toCompletableFuture().join().allowed()));

            IMap<String, byte[]> map = member.getMap("bucket4j.race");
            HazelcastProxyManager<String> proxies = Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ofSeconds(1))).build();
            BucketConfiguration b4j = BucketConfiguration.builder()
                    .addLimit(l -> l.capacity(LIMIT).refillGreedy(LIMIT, hour)).build();
            rows.add(race("Bucket4j token bucket, sync tryConsume", key -> {
                RemoteBucketBuilder<String> builder = proxies.builder();
                var proxy = builder.build(key, () -> b4j);
                return () -> proxy.tryConsume(1);
            }));

            JedisPoolConfig config = new JedisPoolConfig();
            config.setMaxTotal(THREADS);
            config.setMaxIdle(THREADS);
            try (JedisPool pool = new JedisPool(config, "127.0.0.1", redis.port())) {
                RedisLimiters redisLimiters = new RedisLimiters(pool, LIMIT, 3600);
                rows.add(race("Redis Lua sliding-window counter (atomic)",
                        key -> () -> redisLimiters.luaSlidingWindow(key)));
                rows.add(race("Redis, seeds' two pipelines (seed 000)",
                        key -> () -> redisLimiters.seedsTwoPipelines(key)));
            }
        } finally {
            member.shutdown();
        }
        System.out.println("| limiter | limit | requests per round | admitted per round (" + ROUNDS + " rounds) |");
        System.out.println("|---|---:|---:|---|");
        rows.forEach(System.out::println);
    }

    interface Attempt {
        boolean tryOnce();
    }

    private static String race(String name, Function<String, Attempt> forKey) throws Exception {
        List<Long> admittedPerRound = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            String key = "race:" + name.hashCode() + ":" + System.nanoTime() + ":" + round;
            Attempt attempt = forKey.apply(key);
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong admitted = new AtomicLong();
            List<CompletableFuture<Void>> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                threads.add(CompletableFuture.runAsync(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (int i = 0; i < PER_THREAD; i++) {
                        if (attempt.tryOnce()) {
                            admitted.incrementAndGet();
                        }
                    }
                }, r -> new Thread(r).start()));
            }
            go.countDown();
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
            admittedPerRound.add(admitted.get());
        }
        return String.format(Locale.ROOT, "| %s | %d | %d | %s |", name, LIMIT, THREADS * PER_THREAD,
                admittedPerRound.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse(""));
    }
}
