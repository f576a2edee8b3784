package io.gridlimit.bench;

import io.gridlimit.api.Decision;
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
import java.util.concurrent.TimeUnit;

/**
 * The backup trade-off on three member JVMs, this fork being one member ({@code members-3}, {@link BenchCluster}):
 * the GridLimit token bucket (sync and async) and Bucket4j's sync {@code tryConsume} with an asynchronous backup
 * ({@code async}: backup-count 0, async-backup-count 1) and with none ({@code none}), on every member's
 * {@code gridlimit.*} and {@code bucket4j.*} maps ({@link BackupMode}). Their {@code sync} rows, the production
 * default, are {@link ClusterBenchmark}'s {@code members-3} rows of the same method names: read the three modes
 * side by side. Same threads, keys, policy and calls as every cluster row ({@link ClusterRows}). What the faster
 * modes cost is not measured here: with {@code async} a member lost right after a decision may lose that update,
 * with {@code none} it loses every state it owned.
 *
 * <p>Before JMH's warm-up each trial runs its own call on 32 threads for 10 s (system property
 * {@code gridlimit.bench.clusterWarmupSeconds}, inherited by the forks; {@code bench/run.sh} sets it from
 * {@code CLUSTER_WARMUP_SECONDS}) so that the child JVMs' JIT catches up; that time is not measured.
 *
 * <p><b>Caveat:</b> 3 member JVMs plus the load driver on a 2-core machine oversubscribe the CPU: these rows
 * measure contention for 2 cores as much as the network hop and the backup, and compare only with each other.
 *
 * <p>Run just this class (6 forks, each forms its own cluster):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar ClusterBackupsBenchmark -f 1 -wi 5 -w 3s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@link Scope#Benchmark}).
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class ClusterBackupsBenchmark {
    /** Only {@code members-3}: this fork is one of the 3 members. */
    @Param({"members-3"})
    public String topology;

    /** {@code async} or {@code none} ({@code sync} is in {@link ClusterBenchmark}). */
    @Param({"async", "none"})
    public String backups;

    private ClusterRows rows;
    private AsyncLatency latency;

    /**
     * Starts the cluster and the rows' objects.
     *
     * @param params the trial's parameters (for the member log names)
     * @param trialLatency the trial's count of asynchronous decisions in flight, waited for before teardown
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params, AsyncLatency trialLatency) {
        latency = trialLatency;
        rows = ClusterRows.start(params, topology, backups);
    }

    /** Once no asynchronous decision is in flight, stops the limiter, the fork's member and the child JVMs. */
    @TearDown(Level.Trial)
    public void tearDown() {
        // JMH runs this on the first thread done with the last iteration; others may still drain decisions
        latency.awaitQuiet(AsyncLatency.QUIET_WAIT_MILLIS);
        if (rows != null) {
            rows.close();
            rows = null;
        }
    }

    /** @return one synchronous GridLimit decision (token bucket, cost 1, random key) */
    @Benchmark
    public Decision gridLimitTryAcquire() {
        return rows.tryAcquire();
    }

    /**
     * @param inFlight this thread's permits
     * @return one pending asynchronous GridLimit decision (token bucket, cost 1, random key)
     */
    @Benchmark
    public CompletionStage<Decision> gridLimitTryAcquireAsync(InFlight inFlight) {
        return rows.tryAcquireAsync(inFlight);
    }

    /** @return whether Bucket4j's synchronous {@code tryConsume(1)} on a random key consumed */
    @Benchmark
    public boolean bucket4jTryConsume() {
        return rows.bucket4jTryConsume();
    }
}
