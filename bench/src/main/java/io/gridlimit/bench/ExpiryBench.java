package io.gridlimit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.map.impl.eviction.MapClearExpiredRecordsTask;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.ExpirySweep;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;

/**
 * Expired state leaving memory, and what the sweep costs decisions: two embedded members in this JVM (TCP-IP on
 * 127.0.0.1, 271 partitions, one synchronous backup, {@link BenchMember#clusterConfig}), three expiry settings:
 * <ul>
 *   <li>{@code gridlimit}: what {@link GridLimitHazelcast#configure} sets ({@link ExpirySweep});</li>
 *   <li>{@code hazelcast-default}: the four properties removed again, so Hazelcast's defaults apply (a run every
 *       5 s, at most {@code min(27, 3 × partition threads)} partitions per run, 10 % per partition, backups 10 s
 *       late);</li>
 *   <li>{@code sweep-off} (throughput only): {@code hazelcast.internal.map.expiration.cleanup.enabled=false}.</li>
 * </ul>
 *
 * <p><b>Memory</b> ({@code gridlimit} and {@code hazelcast-default}): {@value #KEYS} keys, each decided once
 * (cost 1) on a fixed window of 100 per 1 s (Hazelcast TTL at most 2 s: the window's rest plus GridLimit's 1 s
 * margin), at most 256 decisions in flight. Then, every second for {@value #SAMPLE_SECONDS} s after the last
 * decision returned, the owned and the backup entries summed over both members. Used heap (after
 * {@code System.gc()}) with the members started and no state, right after the last decision, and
 * {@value #SAMPLE_SECONDS} s later. Target: at most 1 % of {@value #KEYS} held {@value #CHECK_SECOND} s after the
 * last decision, owned and backup each.
 *
 * <p><b>Throughput</b> (all three): {@value #IDLE_KEYS} idle keys first (a sliding-window log of 100 per hour, so
 * they stay, expirable, for the whole trial: the sweep scans them every run), then {@value #THREADS} threads call
 * {@code tryAcquire} (sync) on keys drawn uniformly from the {@value #KEYS} of the 1 s window, so states keep
 * expiring and being written again; {@value #WARMUP_SECONDS} s warm-up, {@value #MEASURE_SECONDS} s measured:
 * decisions per second, and this process's CPU time per decision ({@code getProcessCpuTime}: callers, partition
 * threads, the sweep, the members' I/O). One unrecorded {@code sweep-off} trial first warms the JIT up, then
 * {@value #ROUNDS} rounds, the settings' order rotated each round; ratios are per round (same round, neighbouring
 * trials), and their median. On a shared machine the rounds scatter: compare medians, and read the load average
 * the script records.
 *
 * <p>Command: {@code bench/expiry.sh [output-dir]} (builds {@code bench/target/benchmarks.jar}, runs this class and
 * writes {@code expiry.md}); with the jar built, directly:
 * <pre>
 * java --add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
 *     --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
 *     --add-opens=java.management/sun.management=ALL-UNNAMED \
 *     --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED \
 *     -Xmx2g -cp bench/target/benchmarks.jar io.gridlimit.bench.ExpiryBench
 * </pre>
 * Prints Markdown tables on standard output. Not thread-safe; run from {@code main} only.
 */
public final class ExpiryBench {
    static final int KEYS = 20_000;
    static final int SAMPLE_SECONDS = 30;
    static final int CHECK_SECOND = 15;
    static final int IDLE_KEYS = 100_000;
    static final int THREADS = 4;
    static final int WARMUP_SECONDS = 3;
    static final int MEASURE_SECONDS = 8;
    static final int ROUNDS = 5;
    private static final int IN_FLIGHT = 256;
    private static final Policy WINDOW = Policy.builder("expiry-1s").fixedWindow(100, Duration.ofSeconds(1)).build();
    private static final Policy IDLE = Policy.builder("expiry-idle").slidingWindowLog(100, Duration.ofHours(1)).build();
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final String[] SWEEP_PROPERTIES = {ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY,
        ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY, ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY,
        ExpirySweep.BACKUP_EXPIRY_DELAY_PROPERTY};

    /** The expiry settings compared. */
    enum Sweep {
        GRIDLIMIT, HAZELCAST_DEFAULT, SWEEP_OFF;

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        Config applyTo(Config config) {
            if (this != GRIDLIMIT) {
                Arrays.stream(SWEEP_PROPERTIES).forEach(config.getProperties()::remove);
            }
            if (this == SWEEP_OFF) {
                config.setProperty(MapClearExpiredRecordsTask.PROP_CLEANUP_ENABLED, "false");
            }
            return config;
        }
    }

    private ExpiryBench() {
    }

    /**
     * Runs the memory and the throughput measurements and prints their tables.
     *
     * @param args ignored
     * @throws InterruptedException if interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        BenchMember.logHazelcastAt(Level.WARNING);
        List<Memory> memory = new ArrayList<>();
        for (Sweep sweep : List.of(Sweep.GRIDLIMIT, Sweep.HAZELCAST_DEFAULT)) {
            memory.add(memory(sweep));
        }
        List<Sweep> settings = List.of(Sweep.values());
        throughput(Sweep.SWEEP_OFF); // warms the JIT up; not recorded
        double[][][] trials = new double[ROUNDS][settings.size()][];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < settings.size(); i++) {
                int s = (i + round) % settings.size();
                trials[round][s] = throughput(settings.get(s));
            }
        }
        printMemory(memory);
        System.out.println();
        printThroughput(settings, trials);
    }

    /**
     * What one memory run saw: {@code held[s] = {owned, backup}} {@code s} seconds after the last decision, and the
     * used heap in bytes after a GC with no state, right after the last decision, and at the end.
     */
    private record Memory(Sweep sweep, long[][] held, long heapEmpty, long heapWithStates, long heapAfter) {
        boolean withinOnePercentAtCheck() {
            long allowed = KEYS / 100;
            return held[CHECK_SECOND][0] <= allowed && held[CHECK_SECOND][1] <= allowed;
        }
    }

    /** The memory run of one setting. */
    private static Memory memory(Sweep sweep) throws InterruptedException {
        try (MemberPair pair = MemberPair.start(sweep); HazelcastRateLimiter limiter = HazelcastRateLimiter.create(pair.a())) {
            long heapEmpty = usedHeapAfterGc();
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            AtomicReference<Object> failure = new AtomicReference<>();
            for (int i = 0; i < KEYS; i++) {
                inFlight.acquire();
                limiter.tryAcquireAsync(WINDOW, key(i), 1).whenComplete((d, e) -> {
                    if (e != null || !d.allowed()) {
                        failure.compareAndSet(null, e != null ? e : d);
                    }
                    inFlight.release();
                });
            }
            inFlight.acquire(IN_FLIGHT);
            long lastNanos = System.nanoTime();
            if (failure.get() != null) {
                throw new IllegalStateException("a decision failed or was denied: " + failure.get());
            }
            String map = GridLimitHazelcast.mapName(WINDOW.name());
            long[][] held = new long[SAMPLE_SECONDS + 1][];
            held[0] = pair.held(map);
            long heapWithStates = usedHeapAfterGc();
            for (int second = 1; second <= SAMPLE_SECONDS; second++) {
                long wait = lastNanos + Duration.ofSeconds(second).toNanos() - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                held[second] = pair.held(map);
            }
            Memory result = new Memory(sweep, held, heapEmpty, heapWithStates, usedHeapAfterGc());
            System.err.printf(Locale.ROOT, "[expiry] %s: held at %d s %s%n", sweep.label(), CHECK_SECOND,
                    Arrays.toString(held[CHECK_SECOND]));
            return result;
        }
    }

    private static void printMemory(List<Memory> runs) {
        StringBuilder header = new StringBuilder("| s after the last decision |");
        StringBuilder rule = new StringBuilder("|---:|");
        for (Memory run : runs) {
            header.append(' ').append(run.sweep().label()).append(" owned | ").append(run.sweep().label())
                    .append(" backup |");
            rule.append("---:|---:|");
        }
        System.out.println(header);
        System.out.println(rule);
        for (int second = 0; second <= SAMPLE_SECONDS; second++) {
            StringBuilder row = new StringBuilder("| " + second + " |");
            for (Memory run : runs) {
                row.append(' ').append(run.held()[second][0]).append(" | ").append(run.held()[second][1]).append(" |");
            }
            System.out.println(row);
        }
        System.out.println();
        System.out.println("| setting | held " + CHECK_SECOND + " s after (owned / backup) | at most 1 % ("
                + KEYS / 100 + ") each | used heap, no state (MiB) | right after the last decision (MiB) | "
                + SAMPLE_SECONDS + " s later (MiB) | later ÷ no state | later ÷ right after |");
        System.out.println("|---|---:|---|---:|---:|---:|---:|---:|");
        for (Memory run : runs) {
            System.out.printf(Locale.ROOT, "| %s | %d / %d | %s | %.1f | %.1f | %.1f | %.3f | %.3f |%n",
                    run.sweep().label(), run.held()[CHECK_SECOND][0], run.held()[CHECK_SECOND][1],
                    run.withinOnePercentAtCheck() ? "yes" : "**no**", mib(run.heapEmpty()),
                    mib(run.heapWithStates()), mib(run.heapAfter()), (double) run.heapAfter() / run.heapEmpty(),
                    (double) run.heapAfter() / run.heapWithStates());
        }
    }

    /**
     * One throughput trial.
     *
     * @return {decisions per second, this process's CPU time per decision in microseconds} over the measured
     *     {@value #MEASURE_SECONDS} s
     */
    private static double[] throughput(Sweep sweep) throws InterruptedException {
        try (MemberPair pair = MemberPair.start(sweep);
             HazelcastRateLimiter limiter = HazelcastRateLimiter.create(pair.a())) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            for (int i = 0; i < IDLE_KEYS; i++) {
                inFlight.acquire();
                limiter.tryAcquireAsync(IDLE, key(KEYS + i), 1).whenComplete((d, e) -> inFlight.release());
            }
            inFlight.acquire(IN_FLIGHT);
            LongAdder decisions = new LongAdder();
            long measureFrom = System.nanoTime() + Duration.ofSeconds(WARMUP_SECONDS).toNanos();
            long end = measureFrom + Duration.ofSeconds(MEASURE_SECONDS).toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        limiter.tryAcquire(WINDOW, key(ThreadLocalRandom.current().nextInt(KEYS)), 1);
                        decisions.increment();
                    }
                }, "expiry-bench-" + t);
                thread.start();
                threads.add(thread);
            }
            long wait = measureFrom - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            long decisionsBefore = decisions.sum();
            long cpuBefore = PROCESS.getProcessCpuTime();
            for (Thread thread : threads) {
                thread.join();
            }
            long cpu = PROCESS.getProcessCpuTime() - cpuBefore;
            long measured = decisions.sum() - decisionsBefore;
            double rate = measured / (double) MEASURE_SECONDS;
            double cpuMicros = cpu / 1_000.0 / measured;
            System.err.printf(Locale.ROOT, "[expiry] %s: %.0f decisions/s, %.1f us CPU per decision%n", sweep.label(),
                    rate, cpuMicros);
            return new double[] {rate, cpuMicros};
        }
    }

    private static void printThroughput(List<Sweep> settings, double[][][] trials) {
        System.out.println("| round | " + String.join(" | ", settings.stream().map(s -> s.label()
                + " decisions/s (CPU µs per decision)").toList()) + " | gridlimit ÷ hazelcast-default, decisions/s"
                + " (CPU per decision) | gridlimit ÷ sweep-off, decisions/s (CPU per decision) |");
        System.out.println("|---:|" + "---:|".repeat(settings.size() + 2));
        double[][] ratios = new double[4][ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double[][] r = trials[round];
            ratios[0][round] = r[0][0] / r[1][0];
            ratios[1][round] = r[0][1] / r[1][1];
            ratios[2][round] = r[0][0] / r[2][0];
            ratios[3][round] = r[0][1] / r[2][1];
            System.out.printf(Locale.ROOT, "| %d | %,.0f (%.1f) | %,.0f (%.1f) | %,.0f (%.1f) | %.3f (%.3f) | %.3f (%.3f) |%n",
                    round + 1, r[0][0], r[0][1], r[1][0], r[1][1], r[2][0], r[2][1], ratios[0][round], ratios[1][round],
                    ratios[2][round], ratios[3][round]);
        }
        System.out.printf(Locale.ROOT, "| median | %,.0f (%.1f) | %,.0f (%.1f) | %,.0f (%.1f) | %.3f (%.3f) | %.3f (%.3f) |%n",
                median(trials, 0, 0), median(trials, 0, 1), median(trials, 1, 0), median(trials, 1, 1),
                median(trials, 2, 0), median(trials, 2, 1), median(ratios[0]), median(ratios[1]), median(ratios[2]),
                median(ratios[3]));
    }

    private static double median(double[][][] trials, int setting, int figure) {
        return median(Arrays.stream(trials).mapToDouble(r -> r[setting][figure]).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** Key {@code i} in the house format, {@code ip:10.a.b.c}. */
    private static String key(int i) {
        return "ip:10." + (i >>> 16) + "." + ((i >>> 8) & 0xff) + "." + (i & 0xff);
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
