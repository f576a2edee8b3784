package io.gridlimit.bench;

import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
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

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The floor of the grid: a {@link NoOpProcessor} run on one embedded member, on the map GridLimit's token-bucket
 * policy uses ({@code gridlimit.bench-token-bucket}, with GridLimit's map config), whose {@value BenchKeys#COUNT}
 * keys first receive one real GridLimit decision each so the processor meets the same records; same uniform keys
 * and {@value #THREADS} caller threads as {@link GridLimitBenchmark} and {@link Bucket4jBenchmark}. No decision can
 * be cheaper than this through Hazelcast's EntryProcessor path; ratios against it show what the algorithm, the
 * state's (de)serialization and the write with TTL add.
 *
 * <ul>
 *   <li>{@link #executeOnKey}: synchronous, the caller waits for the partition thread;</li>
 *   <li>{@link #submitToKey}: asynchronous through the public {@code IMap.submitToKey}, at most
 *       {@value InFlight#PERMITS} in flight per thread, the permit returned on the completing thread. Hazelcast
 *       completes every such future through its default executor: on 2 CPUs or fewer (common pool parallelism 1)
 *       that is a new thread per call, which is what this measures on such a machine without JVM flags;</li>
 *   <li>{@link #submitToKeyCommonPool2}: the same with the common pool at 2 threads;</li>
 *   <li>{@link #invocationFuture}: the path GridLimit's async API takes on a member (Hazelcast internals:
 *       {@code MapProxyImpl.executeOnKeyInternal}, a callback registered with a direct executor on the invocation
 *       future), without GridLimit's hop to its own callback pool: the floor of {@code tryAcquireAsync}.</li>
 *   <li>{@link #rewriteExecuteOnKey} and {@link #rewriteInvocationFuture}: the write floor, the same two paths with
 *       a {@link RewriteProcessor}, which writes the stored state back unchanged with a TTL: what a Hazelcast
 *       write of the same state costs without GridLimit's algorithm, policy, time reading and result.</li>
 * </ul>
 *
 * <p>Every fork gets Hazelcast's recommended {@code --add-opens} flags, as all grid benchmarks do. Run just this
 * class:
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar GridFloorBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@link Scope#Benchmark}: one map proxy shared by the benchmark threads).
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class GridFloorBenchmark {
    /** Caller threads of every grid benchmark. */
    public static final int THREADS = 4;

    private IMap<String, Object> map;
    private MapProxyImpl<String, Object> proxy;

    /**
     * Gets GridLimit's token-bucket map and gives every key one decision, so each holds a real state.
     *
     * @param member the started member
     */
    @Setup(Level.Trial)
    public void setUp(EmbeddedMember member) {
        Policy policy = BenchPolicies.of("token-bucket");
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(member.instance())) {
            for (int i = 0; i < BenchKeys.COUNT; i++) {
                limiter.tryAcquire(policy, BenchKeys.get(i), 1);
            }
        }
        map = member.instance().getMap(GridLimitHazelcast.mapName(policy.name()));
        if (map.size() != BenchKeys.COUNT) {
            throw new IllegalStateException("expected " + BenchKeys.COUNT + " states, found " + map.size());
        }
        proxy = (MapProxyImpl<String, Object>) map;
    }

    /**
     * One synchronous no-op EntryProcessor call on a random key.
     *
     * @return the processor's result (null)
     */
    @Benchmark
    public Object executeOnKey() {
        return map.executeOnKey(BenchKeys.next(), NoOpProcessor.INSTANCE);
    }

    /**
     * One asynchronous no-op EntryProcessor call through the public {@code submitToKey}, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @return the pending result
     */
    @Benchmark
    public CompletionStage<Object> submitToKey(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(map.submitToKey(BenchKeys.next(), NoOpProcessor.INSTANCE));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * {@link #submitToKey} in a fork whose common ForkJoin pool has 2 threads ({@link BenchMember#COMMON_POOL_2}).
     *
     * @param inFlight this thread's permits
     * @return the pending result
     */
    @Benchmark
    @Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG,
        BenchMember.OPEN_NIO, BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL,
        BenchMember.COMMON_POOL_2})
    public CompletionStage<Object> submitToKeyCommonPool2(InFlight inFlight) {
        return submitToKey(inFlight);
    }

    /**
     * One asynchronous no-op call on the invocation future itself, bounded in flight: GridLimit's async path
     * without its callback pool.
     *
     * @param inFlight this thread's permits
     * @return the pending (serialized) result
     */
    @Benchmark
    public CompletionStage<?> invocationFuture(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(proxy.executeOnKeyInternal(BenchKeys.next(), NoOpProcessor.INSTANCE));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * One synchronous write-floor call ({@link RewriteProcessor}) on a random key.
     *
     * @return the processor's result (null)
     */
    @Benchmark
    public Object rewriteExecuteOnKey() {
        return map.executeOnKey(BenchKeys.next(), RewriteProcessor.INSTANCE);
    }

    /**
     * One asynchronous write-floor call on the invocation future, bounded in flight (as {@link #invocationFuture}).
     *
     * @param inFlight this thread's permits
     * @return the pending (serialized) result
     */
    @Benchmark
    public CompletionStage<?> rewriteInvocationFuture(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(proxy.executeOnKeyInternal(BenchKeys.next(), RewriteProcessor.INSTANCE));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }
}
