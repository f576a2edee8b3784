package io.gridlimit.bench;

import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The peer: Bucket4j 8.14.0's Hazelcast integration ({@link HazelcastProxyManager}, EntryProcessor based, its
 * custom serializers registered on the member by {@link BenchMember#config()}) on the same kind of embedded member,
 * with the same {@value BenchKeys#COUNT} uniform keys and {@value GridFloorBenchmark#THREADS} caller threads as
 * {@link GridLimitBenchmark}. The bandwidth equals GridLimit's {@code token-bucket} policy: capacity 100, greedy
 * refill of 100 per second; entries expire after the time to refill plus 1 s (Bucket4j's
 * {@code basedOnTimeForRefillingBucketUpToMax}), as GridLimit's carry a TTL. At the throughputs reached here every
 * key sees far fewer than 100 requests per second, so both limiters admit every request.
 *
 * <p>One proxy per key is built up front (Bucket4j's proxies are reusable), which spares Bucket4j a per-request
 * allocation: its best case. {@link #tryConsume} is {@code BucketProxy.tryConsume(1)} (synchronous, one
 * {@code executeOnKey}); {@link #tryConsumeAsync} is {@code AsyncBucketProxy.tryConsume(1)} bounded to
 * {@value InFlight#PERMITS} in flight per thread. Bucket4j completes its futures through Hazelcast's default
 * executor, which on 2 CPUs or fewer is a new thread per task: that is Bucket4j's behaviour as shipped, measured
 * without JVM flags; {@link #tryConsumeAsyncCommonPool2} repeats it with the common pool at 2 threads. Every fork
 * gets Hazelcast's recommended {@code --add-opens} flags, as all grid benchmarks do.
 *
 * <p>Run just this class:
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar Bucket4jBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@link Scope#Benchmark}).
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class Bucket4jBenchmark {
    /** The map Bucket4j's buckets live in. */
    public static final String MAP = "bucket4j.bench";

    private BucketProxy[] buckets;
    private AsyncBucketProxy[] asyncBuckets;

    /**
     * Builds the proxy manager and one synchronous and one asynchronous proxy per key.
     *
     * @param member the started member
     */
    @Setup(Level.Trial)
    public void setUp(EmbeddedMember member) {
        HazelcastProxyManager<String> proxyManager = proxyManager(member.instance().getMap(MAP));
        BucketConfiguration configuration = configuration();
        buckets = new BucketProxy[BenchKeys.COUNT];
        asyncBuckets = new AsyncBucketProxy[BenchKeys.COUNT];
        for (int i = 0; i < BenchKeys.COUNT; i++) {
            buckets[i] = proxyManager.builder().build(BenchKeys.get(i), () -> configuration);
            asyncBuckets[i] = proxyManager.asAsync().builder().build(BenchKeys.get(i), configuration);
        }
    }

    /**
     * Bucket4j's EntryProcessor-based proxy manager on a map, entries expiring after the time to refill plus 1 s
     * (as every Bucket4j row of the bench uses it).
     *
     * @param map the buckets' map (a member's or a client's proxy)
     * @return a new proxy manager, never null
     */
    static HazelcastProxyManager<String> proxyManager(IMap<String, byte[]> map) {
        return Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
    }

    /** @return the bandwidth equal to GridLimit's {@code token-bucket} policy: capacity 100, greedy 100 per 1 s */
    static BucketConfiguration configuration() {
        return BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(BenchPolicies.RATE_PER_SECOND)
                        .refillGreedy(BenchPolicies.RATE_PER_SECOND, BenchPolicies.BUCKET4J_EQUIVALENT))
                .build();
    }

    /**
     * One synchronous proxy per benchmark key ({@link BenchKeys#get}), built up front: proxies are reusable.
     *
     * @param map the buckets' map (a member's or a client's proxy)
     * @return {@value BenchKeys#COUNT} proxies, index = key number
     */
    static BucketProxy[] syncProxies(IMap<String, byte[]> map) {
        HazelcastProxyManager<String> proxyManager = proxyManager(map);
        BucketConfiguration configuration = configuration();
        BucketProxy[] proxies = new BucketProxy[BenchKeys.COUNT];
        for (int i = 0; i < BenchKeys.COUNT; i++) {
            proxies[i] = proxyManager.builder().build(BenchKeys.get(i), () -> configuration);
        }
        return proxies;
    }

    /**
     * {@code tryConsume(1)} on a random key's bucket, waiting for the answer.
     *
     * @return whether the token was consumed
     */
    @Benchmark
    public boolean tryConsume() {
        return buckets[BenchKeys.nextIndex()].tryConsume(1);
    }

    /**
     * Asynchronous {@code tryConsume(1)} on a random key's bucket, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @return the pending answer
     */
    @Benchmark
    public CompletionStage<Boolean> tryConsumeAsync(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(asyncBuckets[BenchKeys.nextIndex()].tryConsume(1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * {@link #tryConsumeAsync} in a fork whose common ForkJoin pool has 2 threads
     * ({@link BenchMember#COMMON_POOL_2}): Bucket4j's async path once a user has set that flag.
     *
     * @param inFlight this thread's permits
     * @return the pending answer
     */
    @Benchmark
    @Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG,
        BenchMember.OPEN_NIO, BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL,
        BenchMember.COMMON_POOL_2})
    public CompletionStage<Boolean> tryConsumeAsyncCommonPool2(InFlight inFlight) {
        return tryConsumeAsync(inFlight);
    }
}
