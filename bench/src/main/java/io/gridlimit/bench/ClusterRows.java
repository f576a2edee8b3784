package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.github.bucket4j.distributed.BucketProxy;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What every cluster row of one trial works on ({@link ClusterBenchmark}, {@link ClusterBackupsBenchmark}): a
 * {@link BenchCluster} of the trial's topology and backup mode, a GridLimit limiter on the benchmark's member or
 * client ({@link HazelcastRateLimiter#create}, the {@code token-bucket} policy of {@link BenchPolicies}), the
 * no-op floor's map (GridLimit's {@code gridlimit.bench-token-bucket}, whose {@value BenchKeys#COUNT} keys get
 * one real decision each at start, as {@link GridFloorBenchmark} does; a state that took 1 token of 100 per second
 * carries a TTL of 10 ms, so the floor, like the embedded one, meets live and expired records alike, and its map's
 * size is not checked here: members expire entries in the background, so it is any number up to the key count) and
 * one Bucket4j proxy per key ({@link Bucket4jBenchmark#syncProxies}, same bandwidth as the token bucket, on
 * {@link Bucket4jBenchmark#MAP}). Keys and calls are those of the embedded rows. Before returning, {@link #start}
 * runs the trial's own call for a while ({@link #prewarm}). Thread-safe once started.
 */
final class ClusterRows implements AutoCloseable {
    /** Pre-population decisions in flight at once. */
    private static final int PREFILL_IN_FLIGHT = 256;
    /** System property: seconds of the cluster pre-warm-up ({@link #prewarm}); default {@value #PREWARM_SECONDS}. */
    static final String PREWARM_PROPERTY = "gridlimit.bench.clusterWarmupSeconds";
    /** Default seconds of the cluster pre-warm-up. */
    static final int PREWARM_SECONDS = 10;
    /** Threads of the cluster pre-warm-up. */
    static final int PREWARM_THREADS = 32;

    private final BenchCluster cluster;
    private final HazelcastRateLimiter limiter;
    private final Policy policy;
    private final IMap<String, Object> floorMap;
    private final BucketProxy[] buckets;

    private ClusterRows(BenchCluster cluster, HazelcastRateLimiter limiter) {
        this.cluster = cluster;
        this.limiter = limiter;
        HazelcastInstance instance = cluster.instance();
        this.policy = BenchPolicies.of("token-bucket");
        prefill();
        this.floorMap = instance.getMap(GridLimitHazelcast.mapName(policy.name()));
        this.buckets = Bucket4jBenchmark.syncProxies(instance.getMap(Bucket4jBenchmark.MAP));
    }

    /**
     * Starts the cluster and the rows' objects; on failure everything started is stopped again.
     *
     * @param params the trial's JMH parameters (the log file names and the pre-warm-up's call)
     * @param topology {@code members-3} or {@code client-3}
     * @param backups {@code sync}, {@code async} or {@code none}
     * @return the started rows, never null
     * @throws IllegalArgumentException if a parameter value is unknown
     * @throws IllegalStateException if the cluster does not form or the pre-population fails
     */
    static ClusterRows start(BenchmarkParams params, String topology, String backups) {
        BackupMode mode = BackupMode.of(backups);
        String benchmark = params.getBenchmark().replace("io.gridlimit.bench.", "");
        String label = (benchmark + "-" + topology + "-" + mode.label() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000000)))
                .replaceAll("[^A-Za-z0-9._-]", "_");
        BenchCluster cluster = BenchCluster.start(label, topology, mode);
        HazelcastRateLimiter limiter = null;
        try {
            limiter = HazelcastRateLimiter.create(cluster.instance());
            ClusterRows rows = new ClusterRows(cluster, limiter);
            rows.prewarm(benchmark.substring(benchmark.lastIndexOf('.') + 1), prewarmSeconds());
            return rows;
        } catch (RuntimeException | Error e) {
            if (limiter != null) {
                limiter.close();
            }
            cluster.close();
            throw e;
        }
    }

    /**
     * Warms the cluster's JVMs before JMH's warm-up: {@value #PREWARM_THREADS} threads run the trial's own call
     * (the async row's call waits for each decision) for the given time. JMH's warm-up iterations warm the fork,
     * but the child members see only their share of a slow synchronous row's calls, so their JIT lags: a smoke run
     * of {@code members-3} {@code gridLimitTryAcquire} still climbed from 1.5 k to 9.4 k/s over 5 x 3 s warm-up and
     * 3 x 3 s measured iterations without this. Not measured by JMH.
     *
     * @param method the benchmark method of the trial
     * @param seconds how long, 0 for none
     */
    private void prewarm(String method, int seconds) {
        if (seconds <= 0) {
            return;
        }
        Runnable call = switch (method) {
            case "gridLimitTryAcquire" -> this::tryAcquire;
            case "gridLimitTryAcquireAsync" ->
                () -> limiter.tryAcquireAsync(policy, BenchKeys.next(), 1).toCompletableFuture().join();
            case "floorExecuteOnKey" -> this::floorExecuteOnKey;
            case "bucket4jTryConsume" -> this::bucket4jTryConsume;
            default -> throw new IllegalArgumentException("no cluster row named '" + method + "'");
        };
        runFor("cluster pre-warm-up of " + method, PREWARM_THREADS, seconds, t -> call);
    }

    /**
     * Runs {@code threads} threads for {@code seconds}, thread {@code t} calling {@code body.apply(t)} over and over,
     * and waits for them: the pre-warm-up of every cluster and batching trial.
     *
     * @param what what runs, for the failure's message
     * @param threads the number of threads
     * @param seconds how long
     * @param body each thread's call (one object per thread: it may keep the thread's own position)
     * @throws IllegalStateException when a call failed (the first failure is the cause) or the wait was interrupted
     */
    static void runFor(String what, int threads, long seconds, java.util.function.IntFunction<Runnable> body) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(seconds);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Runnable call = body.apply(t);
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() - deadline < 0 && failure.get() == null) {
                        call.run();
                    }
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }, "prewarm-" + t);
            thread.start();
            started.add(thread);
        }
        for (Thread thread : started) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during the " + what, e);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(what + " failed", failure.get());
        }
    }

    /** @return {@value #PREWARM_PROPERTY}, else {@value #PREWARM_SECONDS} */
    static int prewarmSeconds() {
        String value = System.getProperty(PREWARM_PROPERTY);
        if (value == null || value.isBlank()) {
            return PREWARM_SECONDS;
        }
        try {
            int seconds = Integer.parseInt(value.trim());
            if (seconds >= 0 && seconds <= 600) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(PREWARM_PROPERTY + " must be an integer in [0, 600], got '" + value + "'");
    }

    /** One decision per key, at most {@value #PREFILL_IN_FLIGHT} in flight; fails on the first failed one. */
    private void prefill() {
        Semaphore permits = new Semaphore(PREFILL_IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < BenchKeys.COUNT && failure.get() == null; i++) {
            permits.acquireUninterruptibly();
            limiter.tryAcquireAsync(policy, BenchKeys.get(i), 1).whenComplete((d, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                permits.release();
            });
        }
        permits.acquireUninterruptibly(PREFILL_IN_FLIGHT);
        if (failure.get() != null) {
            throw new IllegalStateException("pre-population of " + policy.name() + " failed", failure.get());
        }
    }

    /** @return one synchronous GridLimit token-bucket decision of cost 1 on a random key */
    Decision tryAcquire() {
        return limiter.tryAcquire(policy, BenchKeys.next(), 1);
    }

    /**
     * One asynchronous GridLimit token-bucket decision of cost 1 on a random key, bounded in flight.
     *
     * @param inFlight the calling thread's permits
     * @return the pending decision
     */
    CompletionStage<Decision> tryAcquireAsync(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.tryAcquireAsync(policy, BenchKeys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /** @return the result (null) of one synchronous no-op EntryProcessor on a random key */
    Object floorExecuteOnKey() {
        return floorMap.executeOnKey(BenchKeys.next(), NoOpProcessor.INSTANCE);
    }

    /** @return whether Bucket4j's synchronous {@code tryConsume(1)} on a random key's bucket consumed */
    boolean bucket4jTryConsume() {
        return buckets[BenchKeys.nextIndex()].tryConsume(1);
    }

    /** Closes the limiter and stops the cluster (children included). */
    @Override
    public void close() {
        try {
            limiter.close();
        } finally {
            cluster.close();
        }
    }
}
