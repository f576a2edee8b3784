package io.gridlimit.bench;

import org.openjdk.jmh.annotations.Param;

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
 * Thread-safe once set up ({@code Scope.Benchmark}, from {@link ClusterTrial}).
 */
public class ClusterBackupsBenchmark extends ClusterTrial {
    /** Only {@code members-3}: this fork is one of the 3 members. */
    @Param({"members-3"})
    public String topology;

    /** {@code async} or {@code none} ({@code sync} is in {@link ClusterBenchmark}). */
    @Param({"async", "none"})
    public String backups;

    @Override
    protected String topology() {
        return topology;
    }

    @Override
    protected String backups() {
        return backups;
    }
}
