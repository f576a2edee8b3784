package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.time.SystemTimeSource;
import io.gridlimit.time.TimeSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Skewed traffic, side by side in one run (issue 14, item 4): every peer on the same three workloads
 * ({@link SkewedKeys}: {@code uniform} 10 000 keys, {@code hot} one key, {@code zipf} s = 1.1 over 100 000 keys;
 * per-thread precomputed traces, {@link KeyStream}), the same policy ({@link BenchPolicies#skewedTokenBucket()}:
 * capacity 1 000, 1 000 per second, so busy keys can lease), cost 1, {@value GridFloorBenchmark#THREADS} caller
 * threads, one embedded member ({@link BenchMember}) for the grid rows:
 * <ul>
 *   <li>{@link #gridLimitAsync}: GridLimit {@code tryAcquireAsync} without leases (coalescing on, the default),
 *       at most {@value InFlight#PERMITS} in flight per thread, as {@link GridLimitBenchmark#tryAcquireAsync};</li>
 *   <li>{@link #gridLimitLeasesAsync}: the same with quota leases on ({@link BenchLimiters#gridLimit}, the
 *       default lease settings);</li>
 *   <li>{@link #bucket4jTryConsume}: Bucket4j 8.14.0's Hazelcast {@code tryConsume(1)}, synchronous, one proxy per
 *       key built up front, bandwidth capacity 1 000 greedy 1 000 per second (as {@link Bucket4jBenchmark});</li>
 *   <li>{@link #redisLua}: the atomic Lua sliding-window counter of {@link RedisLimiters} (limit 1 000 per 1 s:
 *       Redis has no token-bucket row in the bench), on a throwaway {@code redis-server}, synchronous over a
 *       pool (as {@link RedisBenchmark#luaSlidingWindow});</li>
 *   <li>{@link #inProcess}: the ceiling, the same token bucket in a {@link ConcurrentHashMap#compute} per
 *       decision, no grid (as {@link InProcessBenchmark}).</li>
 * </ul>
 * Each row starts only what it uses (the member for the grid and Bucket4j rows, redis-server for the Redis row),
 * so the in-process and Redis rows do not share the cores with an idle member. The three-member rows are
 * {@link SkewedClusterBenchmark}; what leases admit against the exact limiter is {@link LeaseAccuracy}.
 *
 * <p>Run just this class (15 forks):
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar 'SkewedBenchmark' -f 1 -wi 5 -w 3s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@link Scope#Benchmark}: one limiter, proxy array or map shared by the threads).
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class SkewedBenchmark {
    /** Bucket4j's map of these rows (covered by {@link BenchMember#BUCKET4J_MAPS} in cluster configurations). */
    public static final String BUCKET4J_MAP = "bucket4j.skewed";

    /** The workload, one of {@link SkewedKeys#WORKLOADS}. */
    @Param({"uniform", "hot", "zipf"})
    public String workload;

    private AsyncLatency latency;
    private HazelcastInstance member;
    private HazelcastRateLimiter limiter;
    private Policy policy;
    private BucketProxy[] buckets;
    private RedisServer redis;
    private JedisPool pool;
    private RedisLimiters redisLimiters;
    private final ConcurrentHashMap<String, LimiterState> states = new ConcurrentHashMap<>();
    private final TimeSource clock = SystemTimeSource.systemUtc();

    /**
     * Starts what the trial's row uses.
     *
     * @param params the trial's parameters (the row is the benchmark method's name)
     * @param trialLatency the trial's count of asynchronous decisions in flight, waited for before teardown
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params, AsyncLatency trialLatency) {
        latency = trialLatency;
        policy = BenchPolicies.skewedTokenBucket();
        states.clear();
        String row = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        try {
            switch (row) {
                case "gridLimitAsync" -> {
                    member = BenchMember.start();
                    limiter = BenchLimiters.gridLimit(member, false);
                }
                case "gridLimitLeasesAsync" -> {
                    member = BenchMember.start();
                    limiter = BenchLimiters.gridLimit(member, true);
                }
                case "bucket4jTryConsume" -> {
                    member = BenchMember.start();
                    buckets = bucket4jProxies(member.getMap(BUCKET4J_MAP), workload);
                }
                case "redisLua" -> {
                    redis = RedisServer.start();
                    JedisPoolConfig config = new JedisPoolConfig();
                    config.setMaxTotal(GridFloorBenchmark.THREADS * 2);
                    config.setMaxIdle(GridFloorBenchmark.THREADS * 2);
                    pool = new JedisPool(config, "127.0.0.1", redis.port());
                    redisLimiters = new RedisLimiters(pool, BenchPolicies.SKEWED_CAPACITY, 1);
                }
                case "inProcess" -> {
                    // nothing to start: the map is empty
                }
                default -> throw new IllegalArgumentException("no skewed row named '" + row + "'");
            }
        } catch (RuntimeException | Error e) {
            tearDown();
            throw e;
        }
    }

    /** Stops what the trial started, once no asynchronous decision is in flight. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (latency != null) {
            latency.awaitQuiet(AsyncLatency.QUIET_WAIT_MILLIS);
        }
        if (limiter != null) {
            if (limiter.leaseStats() != null) {
                // what the leases did over the whole trial (warm-up included), for bench/README.md
                System.out.println("[leases " + workload + "] " + limiter.leaseStats());
            }
            limiter.close();
            limiter = null;
        }
        if (member != null) {
            member.shutdown();
            member = null;
        }
        if (pool != null) {
            pool.close();
            pool = null;
        }
        if (redis != null) {
            redis.close();
            redis = null;
        }
    }

    /**
     * Bucket4j's bandwidth equal to {@link BenchPolicies#skewedTokenBucket()}: capacity 1 000, greedy refill of
     * 1 000 per 1 s.
     *
     * @return a new configuration, never null
     */
    static BucketConfiguration bucket4jConfiguration() {
        return BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(BenchPolicies.SKEWED_CAPACITY)
                        .refillGreedy(BenchPolicies.SKEWED_CAPACITY, Duration.ofSeconds(1)))
                .build();
    }

    /**
     * One synchronous Bucket4j proxy per key index a workload can draw ({@link Bucket4jBenchmark#proxyManager}:
     * entries expire after the time to refill plus 1 s), built up front.
     *
     * @param map the buckets' map
     * @param workload the workload
     * @return proxies indexed by key index
     */
    static BucketProxy[] bucket4jProxies(IMap<String, byte[]> map, String workload) {
        HazelcastProxyManager<String> proxyManager = Bucket4jBenchmark.proxyManager(map);
        BucketConfiguration configuration = bucket4jConfiguration();
        int size = SkewedKeys.HOT.equals(workload) ? SkewedKeys.HOT_INDEX + 1 : SkewedKeys.keysOf(workload);
        BucketProxy[] proxies = new BucketProxy[size];
        for (int i = 0; i < size; i++) {
            proxies[i] = proxyManager.builder().build(SkewedKeys.key(i), () -> configuration);
        }
        return proxies;
    }

    /**
     * One asynchronous GridLimit decision without leases, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @param keys this thread's keys
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> gridLimitAsync(InFlight inFlight, KeyStream keys) {
        return submit(inFlight, keys);
    }

    /**
     * One asynchronous GridLimit decision with quota leases on, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @param keys this thread's keys
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> gridLimitLeasesAsync(InFlight inFlight, KeyStream keys) {
        return submit(inFlight, keys);
    }

    /**
     * @param keys this thread's keys
     * @return whether Bucket4j's synchronous {@code tryConsume(1)} consumed
     */
    @Benchmark
    public boolean bucket4jTryConsume(KeyStream keys) {
        return buckets[keys.nextIndex()].tryConsume(1);
    }

    /**
     * @param keys this thread's keys
     * @return whether the atomic Redis Lua sliding-window counter admitted
     */
    @Benchmark
    public boolean redisLua(KeyStream keys) {
        return redisLimiters.luaSlidingWindow(keys.next());
    }

    /**
     * @param keys this thread's keys
     * @return one in-process token-bucket decision of cost 1
     */
    @Benchmark
    public Decision inProcess(KeyStream keys) {
        Decision[] decision = new Decision[1];
        states.compute(keys.next(), (key, state) -> {
            Outcome outcome = RateLimitAlgorithms.apply(state, policy, 1, clock.nowNanos());
            decision[0] = outcome.decision();
            return outcome.write() ? outcome.state() : state;
        });
        return decision[0];
    }

    private CompletionStage<Decision> submit(InFlight inFlight, KeyStream keys) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.tryAcquireAsync(policy, keys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }
}
