package io.gridlimit.bench;

import io.gridlimit.api.Decision;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * What every three-member benchmark class shares ({@link ClusterBenchmark}, {@link ClusterBackupsBenchmark}): the
 * trial's cluster ({@link ClusterRows}, started for the concrete class's {@code topology} and {@code backups}
 * parameters), its teardown once no asynchronous decision is in flight, and the rows both classes measure. JMH
 * generates these benchmark methods under each concrete class's name. Thread-safe once set up.
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public abstract class ClusterTrial {
    /** The trial's cluster and the rows' objects; null before setup and after teardown. */
    protected ClusterRows rows;
    private AsyncLatency latency;

    /** @return the {@code topology} parameter: {@code members-3} or {@code client-3} */
    protected abstract String topology();

    /** @return the {@code backups} parameter ({@link BackupMode}) */
    protected abstract String backups();

    /**
     * Starts the cluster and the rows' objects.
     *
     * @param params the trial's parameters (for the member log names)
     * @param trialLatency the trial's count of asynchronous decisions in flight, waited for before teardown
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params, AsyncLatency trialLatency) {
        latency = trialLatency;
        rows = ClusterRows.start(params, topology(), backups());
    }

    /** Once no asynchronous decision is in flight, stops the limiter, the fork's member or client and the children. */
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
