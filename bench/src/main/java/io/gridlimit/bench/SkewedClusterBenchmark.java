package io.gridlimit.bench;

import io.github.bucket4j.distributed.BucketProxy;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
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

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The Zipf workload on three member JVMs ({@link BenchCluster}, {@code members-3}: this fork is one of the 3
 * members, sync backup, as {@link ClusterBenchmark}'s rows), issue 14's "three members, Zipf" target: GridLimit
 * {@code tryAcquireAsync} without leases ({@link #gridLimitAsync}) and with them ({@link #gridLimitLeasesAsync}), and Bucket4j's synchronous {@code tryConsume(1)}
 * ({@link #bucket4jTryConsume}). Same policy, keys, threads and in-flight bound as {@link SkewedBenchmark}'s
 * {@code zipf} rows; only the row's own limiter or proxies are built.
 *
 * <p>Before JMH's warm-up each trial runs its own call on {@value ClusterRows#PREWARM_THREADS} threads for the
 * cluster pre-warm-up ({@code gridlimit.bench.clusterWarmupSeconds}, default 10 s, as every cluster row), on Zipf
 * keys of other seeds; not measured.
 *
 * <p><b>Caveat:</b> 3 member JVMs plus the load driver on a 2-core machine oversubscribe the CPU: these rows
 * compare only with each other (same topology, same run).
 *
 * <p>Run just this class (3 forks):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar 'SkewedClusterBenchmark' -f 1 -wi 5 -w 3s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up.
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class SkewedClusterBenchmark {
    /** Seed of pre-warm-up thread 0's trace (distinct from {@link KeyStream#SEED_BASE}'s). */
    static final long PREWARM_SEED_BASE = 0x9A3E_2026L;

    /** Only {@code zipf}. */
    @Param({"zipf"})
    public String workload;

    /** Only {@code members-3}. */
    @Param({"members-3"})
    public String topology;

    /** Only {@code sync}, the default. */
    @Param({"sync"})
    public String backups;

    private AsyncLatency latency;
    private BenchCluster cluster;
    private HazelcastRateLimiter limiter;
    private BucketProxy[] buckets;
    private Policy policy;

    /**
     * Starts the cluster and the row's limiter or proxies, then pre-warms.
     *
     * @param params the trial's parameters (the row, the log file names)
     * @param trialLatency the trial's count of asynchronous decisions in flight
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params, AsyncLatency trialLatency) {
        latency = trialLatency;
        policy = BenchPolicies.skewedTokenBucket();
        String row = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        String label = ("SkewedClusterBenchmark." + row + "-" + topology + "-" + backups + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000000)))
                .replaceAll("[^A-Za-z0-9._-]", "_");
        try {
            cluster = BenchCluster.start(label, topology, BackupMode.of(backups));
            IntConsumer call = switch (row) {
                case "gridLimitAsync", "gridLimitLeasesAsync" -> {
                    limiter = BenchLimiters.gridLimit(cluster.instance(), row.equals("gridLimitLeasesAsync"));
                    yield i -> limiter.tryAcquireAsync(policy, SkewedKeys.key(i), 1).toCompletableFuture().join();
                }
                case "bucket4jTryConsume" -> {
                    buckets = SkewedBenchmark.bucket4jProxies(
                            cluster.instance().getMap(SkewedBenchmark.BUCKET4J_MAP), workload);
                    yield i -> buckets[i].tryConsume(1);
                }
                default -> throw new IllegalArgumentException("no skewed cluster row named '" + row + "'");
            };
            prewarm(row, call, ClusterRows.prewarmSeconds());
        } catch (RuntimeException | Error e) {
            tearDown();
            throw e;
        }
    }

    /** Once no asynchronous decision is in flight, closes the limiter and stops the cluster. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (latency != null) {
            latency.awaitQuiet(AsyncLatency.QUIET_WAIT_MILLIS);
        }
        if (limiter != null) {
            limiter.close();
            limiter = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /**
     * @param inFlight this thread's permits
     * @param keys this thread's keys
     * @return one pending GridLimit decision without leases
     */
    @Benchmark
    public CompletionStage<Decision> gridLimitAsync(InFlight inFlight, KeyStream keys) {
        return submit(inFlight, keys);
    }

    /**
     * @param inFlight this thread's permits
     * @param keys this thread's keys
     * @return one pending GridLimit decision with leases on
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

    private CompletionStage<Decision> submit(InFlight inFlight, KeyStream keys) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.tryAcquireAsync(policy, keys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /** {@value ClusterRows#PREWARM_THREADS} threads run {@code call} on their own Zipf traces for {@code seconds}. */
    private void prewarm(String row, IntConsumer call, int seconds) {
        if (seconds <= 0) {
            return;
        }
        ClusterRows.runFor("cluster pre-warm-up of " + row, ClusterRows.PREWARM_THREADS, seconds, t -> {
            int[] trace = SkewedKeys.trace(workload, PREWARM_SEED_BASE + t, 1 << 16);
            int[] next = {0};
            return () -> call.accept(trace[next[0]++ & (trace.length - 1)]);
        });
    }
}
