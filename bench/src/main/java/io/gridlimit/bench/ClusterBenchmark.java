package io.gridlimit.bench;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Three members as separate JVMs ({@link BenchCluster}), one synchronous backup (the production default), two
 * topologies: {@code members-3} (this JMH fork is one of the 3 members; 2 child JVMs) and {@code client-3} (this
 * fork is a smart client of 3 child-JVM members). Same {@value GridFloorBenchmark#THREADS} caller threads,
 * {@value BenchKeys#COUNT} uniform keys, policy and calls as the embedded rows ({@link ClusterRows}):
 * <ul>
 *   <li>{@link #gridLimitTryAcquire}: GridLimit token bucket, synchronous {@code tryAcquire};</li>
 *   <li>{@link #gridLimitTryAcquireAsync}: the same through {@code tryAcquireAsync}, at most
 *       {@value InFlight#PERMITS} in flight per thread (latency per trial to an HdrHistogram file,
 *       {@link AsyncLatency});</li>
 *   <li>{@link #floorExecuteOnKey}: the no-op EntryProcessor floor, synchronous {@code executeOnKey} (read-only:
 *       it runs no backup in any mode);</li>
 *   <li>{@link #bucket4jTryConsume}: Bucket4j's synchronous {@code tryConsume(1)}, same bandwidth.</li>
 * </ul>
 * The asynchronous and no-backup modes of the members-3 GridLimit and Bucket4j rows are in
 * {@link ClusterBackupsBenchmark}, so a run has 8 + 6 cluster rows instead of a full product. Each trial starts
 * its own cluster (a unique cluster name, free ports) and stops it; member logs go to
 * {@code <gridlimit.bench.out>/cluster-logs/}.
 *
 * <p>Before JMH's warm-up each trial runs its own call on 32 threads for 10 s (system property
 * {@code gridlimit.bench.clusterWarmupSeconds}, inherited by the forks; {@code bench/run.sh} sets it from
 * {@code CLUSTER_WARMUP_SECONDS}) so that the child JVMs' JIT catches up; that time is not measured.
 *
 * <p><b>Caveat:</b> 3 member JVMs plus the load driver on a 2-core machine oversubscribe the CPU: these rows
 * measure contention for 2 cores as much as the network hop, and compare only with each other.
 *
 * <p>Run just this class (8 forks; each forms its cluster in about 10 to 20 s before warming up):
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar ClusterBenchmark -f 1 -wi 5 -w 3s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@code Scope.Benchmark}, from {@link ClusterTrial}).
 */
public class ClusterBenchmark extends ClusterTrial {
    /** {@code members-3} (this fork is a member) or {@code client-3} (this fork is a client). */
    @Param({"members-3", "client-3"})
    public String topology;

    /** Backup mode of every member's maps ({@link BackupMode}); here only {@code sync}, the default. */
    @Param({"sync"})
    public String backups;

    @Override
    protected String topology() {
        return topology;
    }

    @Override
    protected String backups() {
        return backups;
    }

    /** @return the result (null) of one synchronous no-op EntryProcessor on a random key */
    @Benchmark
    public Object floorExecuteOnKey() {
        return rows.floorExecuteOnKey();
    }
}
