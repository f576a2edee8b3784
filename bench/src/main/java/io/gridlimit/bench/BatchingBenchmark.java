package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import io.gridlimit.bench.grid.BenchDecisions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Issue 14 item 3, "batching per member": does deciding several different keys bound for the same member (or the
 * same partition) in ONE multi-key invocation beat one invocation per key? Token bucket ({@link BenchPolicies}),
 * {@value BenchKeys#COUNT} uniform keys, {@value GridFloorBenchmark#THREADS} caller threads, cost 1; the score is
 * keys decided per second ({@link OperationsPerInvocation} = the batch size), so rows compare directly.
 *
 * <ul>
 *   <li>{@link #individual}: today's path, GridLimit's real {@code DecideProcessor} per key with its real
 *       {@code WriteStateProcessor} backup ({@link BenchDecisions#individual}).</li>
 *   <li>{@link #member16}, {@link #member64}: 16 / 64 distinct keys owned by one member (a random key's owner,
 *       then keys drawn from that member's) in one {@code submitToKeys}-style invocation of a bench-only
 *       {@code BatchDecideProcessor}, whose backup carries every key's computed state
 *       ({@link BenchDecisions#batchMember}). With one member every key qualifies.</li>
 *   <li>{@link #partition16}, {@link #partition32}: 16 / 32 distinct keys of ONE partition (grouped with
 *       {@code getPartitionService().getPartition(key)}) in one operation on that partition
 *       ({@link BenchDecisions#batchPartition}). 10,000 keys over 271 partitions are about 37 per partition, so
 *       64 keys of one partition do not exist; a batch of 32 draws only from partitions holding at least 32.</li>
 * </ul>
 * In flight, every row keeps at most {@value #KEYS_IN_FLIGHT} KEYS per thread (so 64 single invocations, 4 batches
 * of 16, 1 batch of 64): the same number of decisions outstanding, however they travel. Batches are drawn ready
 * made: a real batcher would also wait for a batch to fill, which this leaves out (it flatters batching).
 *
 * <p>Topologies: {@code embedded} (one member in the fork, {@link BenchMember}), {@code members-3} and
 * {@code client-3} ({@link BenchCluster}, sync backup: on 2 cores oversubscribed, compare only within a topology).
 * Note that Hazelcast 5.7's {@code MultipleEntryOperation} sends its backups asynchronously
 * ({@code getSyncBackupCount()} is 0) while a single-key {@code EntryOperation} waits for its synchronous backup:
 * on three members the batched rows also skip that wait. A cluster trial first runs all three calls for
 * {@code gridlimit.bench.clusterWarmupSeconds} (default 10) on 8 threads so the child JVMs' JIT catches up.
 *
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar BatchingBenchmark -f 1 -wi 2 -w 3s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up.
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class BatchingBenchmark {
    /** Keys one benchmark thread keeps in flight at most, as {@link InFlight#PERMITS} decisions. */
    public static final int KEYS_IN_FLIGHT = InFlight.PERMITS;

    /** {@code embedded}, {@code members-3} or {@code client-3}. */
    @Param({"embedded", "members-3", "client-3"})
    public String topology;

    /** Keys still in flight across all threads, waited for before the trial's teardown. */
    private static final AtomicLong OUTSTANDING = new AtomicLong();

    private HazelcastInstance embedded;
    private BenchCluster cluster;
    private BenchDecisions decisions;
    private int[] partitionOf;
    private UUID[] ownerOf;
    private Map<UUID, String[]> keysOfMember;
    private String[][] keysOfPartition;
    /** Indexes of keys whose partition holds at least 16 / 32 keys. */
    private int[] eligible16;
    private int[] eligible32;

    /**
     * Starts the topology, groups the keys by partition and owner, and warms a cluster's JVMs.
     *
     * @param params the trial's parameters (cluster log names)
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        HazelcastInstance instance;
        if ("embedded".equals(topology)) {
            embedded = BenchMember.start();
            instance = embedded;
        } else {
            String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            cluster = BenchCluster.start("batching-" + topology + "-" + method, topology, BackupMode.of("sync"));
            instance = cluster.instance();
        }
        decisions = BenchDecisions.of(instance, BenchPolicies.of("token-bucket"));
        partitionOf = new int[BenchKeys.COUNT];
        ownerOf = new UUID[BenchKeys.COUNT];
        Map<UUID, List<String>> byMember = new HashMap<>();
        Map<Integer, List<String>> byPartition = new HashMap<>();
        for (int i = 0; i < BenchKeys.COUNT; i++) {
            Partition p = instance.getPartitionService().getPartition(BenchKeys.get(i));
            partitionOf[i] = p.getPartitionId();
            ownerOf[i] = p.getOwner().getUuid();
            byMember.computeIfAbsent(ownerOf[i], u -> new ArrayList<>()).add(BenchKeys.get(i));
            byPartition.computeIfAbsent(partitionOf[i], u -> new ArrayList<>()).add(BenchKeys.get(i));
        }
        keysOfMember = new HashMap<>();
        byMember.forEach((u, keys) -> keysOfMember.put(u, keys.toArray(new String[0])));
        int partitions = instance.getPartitionService().getPartitions().size();
        keysOfPartition = new String[partitions][];
        for (int p = 0; p < partitions; p++) {
            keysOfPartition[p] = byPartition.getOrDefault(p, List.of()).toArray(new String[0]);
        }
        eligible16 = eligible(16);
        eligible32 = eligible(32);
        if (cluster != null) {
            prewarm(Integer.getInteger(ClusterRows.PREWARM_PROPERTY, ClusterRows.PREWARM_SECONDS));
        }
    }

    private int[] eligible(int size) {
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < BenchKeys.COUNT; i++) {
            if (keysOfPartition[partitionOf[i]].length >= size) {
                found.add(i);
            }
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("no partition holds " + size + " keys");
        }
        return found.stream().mapToInt(Integer::intValue).toArray();
    }

    /** 8 threads run single decisions and both kinds of batch, each waited for, for the given time. */
    private void prewarm(int seconds) {
        ClusterRows.runFor("pre-warm-up", 8, seconds, t -> {
            int[] round = {0};
            return () -> {
                switch (round[0]++ % 3) {
                    case 0 -> decisions.individual(BenchKeys.next()).join();
                    case 1 -> memberBatch(16).join();
                    default -> partitionBatch(16, eligible16).join();
                }
            };
        });
    }

    /** Stops the topology once no key is in flight (at most 10 s). */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (OUTSTANDING.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (embedded != null) {
            embedded.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** n distinct keys of a random key's owner, in one multi-key invocation. */
    CompletableFuture<Integer> memberBatch(int n) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        UUID owner = ownerOf[random.nextInt(BenchKeys.COUNT)];
        String[] pool = keysOfMember.get(owner);
        Set<String> keys = new HashSet<>(n * 2);
        Set<Integer> partitions = new HashSet<>(n * 2);
        while (keys.size() < n) {
            String key = pool[random.nextInt(pool.length)];
            if (keys.add(key)) {
                partitions.add(partitionOfKey(key));
            }
        }
        return decisions.batchMember(keys, partitions, owner);
    }

    /** n distinct keys of a random eligible key's partition, in one operation on that partition. */
    CompletableFuture<Integer> partitionBatch(int n, int[] eligibleKeys) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int partition = partitionOf[eligibleKeys[random.nextInt(eligibleKeys.length)]];
        String[] pool = keysOfPartition[partition];
        Set<String> keys = new HashSet<>(n * 2);
        while (keys.size() < n) {
            keys.add(pool[random.nextInt(pool.length)]);
        }
        return decisions.batchPartition(keys, partition);
    }

    private int partitionOfKey(String key) {
        // keys are "ip:10.0.x.y" with index x * 256 + y (BenchKeys)
        int dot = key.lastIndexOf('.');
        int x = Integer.parseInt(key, key.lastIndexOf('.', dot - 1) + 1, dot, 10);
        int y = Integer.parseInt(key, dot + 1, key.length(), 10);
        return partitionOf[(x << 8) | y];
    }

    /** One thread's bound on keys in flight; a failed decision fails the iteration. */
    @State(Scope.Thread)
    public static class Keys {
        private final Semaphore permits = new Semaphore(KEYS_IN_FLIGHT);
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        CompletableFuture<Integer> send(int n, java.util.function.Supplier<CompletableFuture<Integer>> call) {
            permits.acquireUninterruptibly(n);
            OUTSTANDING.addAndGet(n);
            CompletableFuture<Integer> stage;
            try {
                stage = call.get();
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((decided, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                OUTSTANDING.addAndGet(-n);
                permits.release(n);
            });
            return stage;
        }

        /** Waits for this thread's keys in flight; rethrows the first failure. */
        @TearDown(Level.Iteration)
        public void drain() {
            permits.acquireUninterruptibly(KEYS_IN_FLIGHT);
            permits.release(KEYS_IN_FLIGHT);
            Throwable first = failure.getAndSet(null);
            if (first != null) {
                throw new IllegalStateException("a decision failed", first);
            }
        }
    }

    /**
     * @param keys this thread's keys in flight
     * @return one pending decision of one random key (today's path)
     */
    @Benchmark
    public CompletableFuture<Integer> individual(Keys keys) {
        return keys.send(1, () -> decisions.individual(BenchKeys.next()));
    }

    /**
     * @param keys this thread's keys in flight
     * @return one pending batch of 16 keys of one member
     */
    @Benchmark
    @OperationsPerInvocation(16)
    public CompletableFuture<Integer> member16(Keys keys) {
        return keys.send(16, () -> memberBatch(16));
    }

    /**
     * @param keys this thread's keys in flight
     * @return one pending batch of 64 keys of one member
     */
    @Benchmark
    @OperationsPerInvocation(64)
    public CompletableFuture<Integer> member64(Keys keys) {
        return keys.send(64, () -> memberBatch(64));
    }

    /**
     * @param keys this thread's keys in flight
     * @return one pending batch of 16 keys of one partition
     */
    @Benchmark
    @OperationsPerInvocation(16)
    public CompletableFuture<Integer> partition16(Keys keys) {
        return keys.send(16, () -> partitionBatch(16, eligible16));
    }

    /**
     * @param keys this thread's keys in flight
     * @return one pending batch of 32 keys of one partition
     */
    @Benchmark
    @OperationsPerInvocation(32)
    public CompletableFuture<Integer> partition32(Keys keys) {
        return keys.send(32, () -> partitionBatch(32, eligible32));
    }
}
