package io.gridlimit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Admitted per key against the exact limiter on one request trace (issue 14: "at no key more admitted than by the
 * exact limiter; total under-admission at most 1 %"). One embedded member ({@link BenchMember}), a GridLimit
 * limiter from {@link BenchLimiters#gridLimit} with or without leases, the skewed rows' policy
 * ({@link BenchPolicies#skewedTokenBucket()}: capacity 1 000, 1 000 per second, cost 1), and a fixed seeded trace
 * of Zipf keys ({@link SkewedKeys}, s = 1.1 over 100 000 keys; thread {@code t} walks the trace of seed
 * {@value #SEED_BASE} + t) driven by {@value #THREADS} threads with at most {@value InFlight#PERMITS} asynchronous
 * decisions in flight each. At about 100 000 decisions per second the top 10 keys ask for more than their 1 000
 * per second, the top key for about 13 times more.
 *
 * <p>For every request the harness records the key, whether the grid admitted it, and a reading of the member's
 * time source ({@link GridLimitHazelcast#timeSourceOf}, the clock the owner's decisions read) taken in the
 * completion callback. It then replays all requests, sorted by that reading, through the exact pure function
 * ({@link RateLimitAlgorithms#apply} with one {@link HashMap} of states, never expiring) and reports per key and in
 * total: admitted by the grid, admitted by the replay, the keys where the grid admitted more (must be 0 for
 * leases to be sound), and the under-admission (sum over keys of exact − grid where positive) as a share of the
 * replay's admitted count. Per-key counts of every requested key go to {@code <out>-keys.csv}.
 *
 * <p>Two clocks ({@code clock=}):
 * <ul>
 *   <li>{@code stepped} (the default): the member's decisions read a {@link ManualTimeSource} that only moves
 *       between ticks. Each tick every thread submits {@value #TICK_REQUESTS} requests and waits for their
 *       answers; then the clock advances by {@value #TICK_MILLIS} ms, or to the wall time elapsed since the start
 *       if that is later (so trace time never runs slower than wall time, and entries' TTLs, which Hazelcast
 *       counts in wall time, never expire a state earlier in trace time than the algorithm intends). The reading
 *       at completion is then exactly the reading the decision used, and the replay is exact: any key over is a
 *       real over-admission.</li>
 *   <li>{@code cluster}: the member's own cluster clock (milliseconds), a closed loop as fast as decisions
 *       complete. The reading at completion is later than the owner's reading by the decision's latency, and by
 *       a varying amount: a token bucket that refills 1 token per ms then replays a few tokens off per saturated
 *       key in either direction (a request whose latency is larger than its key's first request's moves the
 *       refill the replay sees). A key over in this mode is not proof of an over-admission; use it to see the
 *       limiter at full speed and its under-admission, and {@code stepped} for soundness.</li>
 * </ul>
 * Both run a 2 s warm-up on another policy name (another map) first, not recorded.
 *
 * <pre>{@code
 * java --add-opens=... -cp bench/target/benchmarks.jar io.gridlimit.bench.LeaseAccuracy <out.md> \
 *     [leases=false] [seconds=10] [clock=stepped|cluster] [requests=4194304]
 * }</pre>
 * {@code seconds} is trace time (stepped) or wall time (cluster) of the measured run; {@code requests} caps each
 * thread's trace (the run ends early when every thread has used its trace). With {@code leases=true} and the stepped
 * clock the holder's lease life is measured on the stepped clock too ({@code io.gridlimit.bench.grid.BenchLeases}).
 */
public final class LeaseAccuracy {
    /** Caller threads. */
    static final int THREADS = GridFloorBenchmark.THREADS;
    /** Seed of thread 0's trace; thread {@code t} uses {@code SEED_BASE + t}. */
    static final long SEED_BASE = 0xACC0_2026L;
    /** Requests each thread submits per tick of the stepped clock. */
    static final int TICK_REQUESTS = InFlight.PERMITS;
    /** Trace time per tick of the stepped clock, at least. */
    static final long TICK_MILLIS = 1;
    /** How long a thread waits for its tick's answers before the run fails. */
    static final long TICK_TIMEOUT_SECONDS = 60;
    /** Warm-up, not recorded. */
    static final Duration WARMUP = Duration.ofSeconds(2);
    /** Keys listed in the top table. */
    static final int TOP = 20;
    /** Keys over listed at most. */
    static final int OVER_LISTED = 50;

    private LeaseAccuracy() {
    }

    /** One thread's recorded requests: indices into its trace. */
    private static final class Record {
        final int[] trace;
        final long[] readingNanos;
        final boolean[] admitted;
        int count;

        Record(int[] trace, boolean recording) {
            this.trace = trace;
            this.readingNanos = recording ? new long[trace.length] : null;
            this.admitted = recording ? new boolean[trace.length] : null;
        }

        void complete(int i, TimeSource time, Decision decision) {
            if (readingNanos != null) {
                readingNanos[i] = time.nowNanos();
                admitted[i] = decision.allowed();
            }
        }
    }

    /**
     * Runs the check and writes the table.
     *
     * @param args the output file, then {@code key=value} options (see the class javadoc)
     * @throws Exception if the grid fails, the output cannot be written or an option is malformed
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: LeaseAccuracy <out.md> [leases=false] [seconds=10]"
                    + " [clock=stepped|cluster] [requests=4194304]");
        }
        Path out = Path.of(args[0]);
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv.length != 2 || !List.of("leases", "seconds", "clock", "requests").contains(kv[0])) {
                throw new IllegalArgumentException("unknown option '" + args[i] + "'");
            }
            options.put(kv[0], kv[1]);
        }
        boolean leases = Boolean.parseBoolean(options.getOrDefault("leases", "false"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
        String clock = options.getOrDefault("clock", "stepped");
        int perThread = Integer.parseInt(options.getOrDefault("requests", String.valueOf(1 << 22)));
        if (!clock.equals("stepped") && !clock.equals("cluster")) {
            throw new IllegalArgumentException("clock must be stepped or cluster, got '" + clock + "'");
        }
        if (seconds < 1 || perThread < TICK_REQUESTS || (long) perThread * THREADS >= 1L << 26) {
            throw new IllegalArgumentException("seconds must be >= 1 and requests in [" + TICK_REQUESTS + ", 2^24)");
        }
        String name = out.getFileName().toString();
        Path keysCsv = out.resolveSibling((name.endsWith(".md") ? name.substring(0, name.length() - 3) : name)
                + "-keys.csv");
        Files.writeString(out, run(leases, seconds, clock, perThread, keysCsv), StandardCharsets.UTF_8);
    }

    private static String run(boolean leases, int seconds, String clock, int perThread, Path keysCsv)
            throws Exception {
        Config config = BenchMember.config();
        ManualTimeSource manual = null;
        if (clock.equals("stepped")) {
            manual = new ManualTimeSource(TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis()));
            // what GridLimitHazelcast.configure(config, timeSource) adds after configure(config)
            config.getUserContext().put(GridLimitHazelcast.TIME_SOURCE_KEY, manual);
        }
        BenchMember.logHazelcastAt(java.util.logging.Level.WARNING);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        // with the stepped clock the holders' lease life is measured on the same clock as the owner's ends (a
        // manual clock running ahead of real time would otherwise look like a forward step of the owner's clock)
        ManualTimeSource stepped = manual;
        try (HazelcastRateLimiter limiter = leases && stepped != null
                ? io.gridlimit.bench.grid.BenchLeases.withTicker(member, stepped::nowNanos)
                : BenchLimiters.gridLimit(member, leases)) {
            TimeSource time = GridLimitHazelcast.timeSourceOf(member);
            Policy policy = BenchPolicies.skewedTokenBucket();
            Policy warmupPolicy = Policy.builder("lease-accuracy-warmup")
                    .tokenBucket(BenchPolicies.SKEWED_CAPACITY, BenchPolicies.SKEWED_CAPACITY, Duration.ofSeconds(1))
                    .build();
            Record[] warm = new Record[THREADS];
            Record[] records = new Record[THREADS];
            for (int t = 0; t < THREADS; t++) {
                warm[t] = new Record(SkewedKeys.trace(SkewedKeys.ZIPF, SEED_BASE + 100 + t, 1 << 20), false);
                records[t] = new Record(SkewedKeys.trace(SkewedKeys.ZIPF, SEED_BASE + t, perThread), true);
            }
            drive(limiter, warmupPolicy, time, manual, warm, WARMUP.toSeconds());
            long wallStart = System.nanoTime();
            long traceStart = time.nowNanos();
            drive(limiter, policy, time, manual, records, seconds);
            double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
            double traceSeconds = (time.nowNanos() - traceStart) / 1e9;
            return report(leases, clock, seconds, perThread, records, policy, wallSeconds, traceSeconds, keysCsv);
        } finally {
            member.shutdown();
        }
    }

    /** Runs the trace on {@link #THREADS} threads until its end or {@code seconds}; rethrows the first failure. */
    private static void drive(HazelcastRateLimiter limiter, Policy policy, TimeSource time, ManualTimeSource manual,
                              Record[] records, long seconds) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        if (manual == null) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            for (Record record : records) {
                threads.add(new Thread(() -> closedLoop(limiter, policy, time, record, deadline, failure)));
            }
        } else {
            long startWall = System.nanoTime();
            long startTrace = manual.peekNanos();
            long endTrace = startTrace + TimeUnit.SECONDS.toNanos(seconds);
            boolean[] stop = new boolean[1];
            CyclicBarrier tick = new CyclicBarrier(records.length, () -> {
                long next = Math.max(manual.peekNanos() + TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS),
                        startTrace + (System.nanoTime() - startWall));
                manual.setNanos(next);
                boolean exhausted = false;
                for (Record r : records) {
                    exhausted |= r.count + TICK_REQUESTS > r.trace.length;
                }
                stop[0] = next >= endTrace || exhausted || failure.get() != null;
            });
            for (Record record : records) {
                threads.add(new Thread(() -> stepped(limiter, policy, time, record, tick, stop, failure)));
            }
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a decision failed", failure.get());
        }
    }

    private static void closedLoop(HazelcastRateLimiter limiter, Policy policy, TimeSource time, Record record,
                                   long deadline, AtomicReference<Throwable> failure) {
        Semaphore permits = new Semaphore(InFlight.PERMITS);
        int i = 0;
        while (i < record.trace.length && System.nanoTime() - deadline < 0 && failure.get() == null) {
            permits.acquireUninterruptibly();
            int index = i++;
            limiter.tryAcquireAsync(policy, SkewedKeys.key(record.trace[index]), 1).whenComplete((d, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else {
                    record.complete(index, time, d);
                }
                permits.release();
            });
        }
        permits.acquireUninterruptibly(InFlight.PERMITS);
        record.count = i;
    }

    private static void stepped(HazelcastRateLimiter limiter, Policy policy, TimeSource time, Record record,
                                CyclicBarrier tick, boolean[] stop, AtomicReference<Throwable> failure) {
        try {
            // stop[0] is written by the barrier action, which happens-before every thread's return from await
            while (!stop[0]) {
                CountDownLatch answered = new CountDownLatch(TICK_REQUESTS);
                int first = record.count;
                for (int index = first; index < first + TICK_REQUESTS; index++) {
                    int i = index;
                    limiter.tryAcquireAsync(policy, SkewedKeys.key(record.trace[i]), 1).whenComplete((d, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        } else {
                            record.complete(i, time, d);
                        }
                        answered.countDown();
                    });
                }
                if (!answered.await(TICK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a tick's decisions did not all complete within "
                            + TICK_TIMEOUT_SECONDS + " s");
                }
                record.count = first + TICK_REQUESTS;
                tick.await();
            }
        } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
            // the first failure is reported; reset() breaks the barrier for the threads waiting at it
            failure.compareAndSet(null, e);
            tick.reset();
        }
    }

    private static String report(boolean leases, String clock, int seconds, int perThread, Record[] records,
                                 Policy policy, double wallSeconds, double traceSeconds, Path keysCsv) {
        int total = 0;
        long minReading = Long.MAX_VALUE;
        for (Record r : records) {
            total += r.count;
            for (int i = 0; i < r.count; i++) {
                minReading = Math.min(minReading, r.readingNanos[i]);
            }
        }
        // sort by (reading - min) << 26 | request number: the readings span well under 2^37 ns, requests < 2^26
        long[] order = new long[total];
        int[] keyOf = new int[total];
        boolean[] admittedOf = new boolean[total];
        long[] readingOf = new long[total];
        int n = 0;
        for (Record r : records) {
            for (int i = 0; i < r.count; i++, n++) {
                long relative = r.readingNanos[i] - minReading;
                if (relative >= 1L << 37) {
                    throw new IllegalStateException("readings span more than 2^37 ns");
                }
                order[n] = relative << 26 | n;
                keyOf[n] = r.trace[i];
                admittedOf[n] = r.admitted[i];
                readingOf[n] = r.readingNanos[i];
            }
        }
        Arrays.sort(order);
        int[] requests = new int[SkewedKeys.KEY_SPACE];
        int[] grid = new int[SkewedKeys.KEY_SPACE];
        int[] exact = new int[SkewedKeys.KEY_SPACE];
        HashMap<Integer, LimiterState> states = new HashMap<>();
        for (long o : order) {
            int request = (int) (o & ((1 << 26) - 1));
            int key = keyOf[request];
            requests[key]++;
            if (admittedOf[request]) {
                grid[key]++;
            }
            Outcome outcome = RateLimitAlgorithms.apply(states.get(key), policy, 1, readingOf[request]);
            if (outcome.write()) {
                states.put(key, outcome.state());
            }
            if (outcome.decision().allowed()) {
                exact[key]++;
            }
        }
        long gridTotal = 0;
        long exactTotal = 0;
        long under = 0;
        int keysRequested = 0;
        int keysOver = 0;
        int keysUnder = 0;
        int maxOver = 0;
        List<Integer> over = new ArrayList<>();
        for (int k = 0; k < SkewedKeys.KEY_SPACE; k++) {
            if (requests[k] == 0) {
                continue;
            }
            keysRequested++;
            gridTotal += grid[k];
            exactTotal += exact[k];
            if (grid[k] > exact[k]) {
                keysOver++;
                maxOver = Math.max(maxOver, grid[k] - exact[k]);
                if (over.size() < OVER_LISTED) {
                    over.add(k);
                }
            } else if (grid[k] < exact[k]) {
                keysUnder++;
                under += exact[k] - grid[k];
            }
        }
        writeKeysCsv(keysCsv, requests, grid, exact);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "## LeaseAccuracy: leases=%s, clock=%s%n%n", leases, clock));
        b.append("| setting | value |\n|---|---|\n");
        row(b, "limiter", "GridLimit tryAcquireAsync, BenchLimiters.gridLimit(member, " + leases
                + "), one embedded member");
        row(b, "policy", policy.name() + ": token bucket, capacity " + BenchPolicies.SKEWED_CAPACITY + ", "
                + BenchPolicies.SKEWED_CAPACITY + " per 1 s, cost 1");
        row(b, "trace", String.format(Locale.ROOT, "Zipf s = %.1f over %,d keys, %d threads, seeds %#x + thread,"
                + " at most %,d requests per thread", SkewedKeys.ZIPF_EXPONENT, SkewedKeys.KEY_SPACE, THREADS,
                SEED_BASE, perThread));
        row(b, "driver", clock.equals("stepped")
                ? String.format(Locale.ROOT, "stepped clock: %d requests per thread per tick, then the clock moves"
                + " by max(%d ms, wall time elapsed)", TICK_REQUESTS, TICK_MILLIS)
                : String.format(Locale.ROOT, "cluster clock, closed loop, %d in flight per thread", InFlight.PERMITS));
        row(b, "duration", String.format(Locale.ROOT, "%d s asked (%s), %.1f s wall, %.1f s trace time,"
                + " after a %d s warm-up on another policy", seconds, clock.equals("stepped") ? "trace time"
                : "wall time", wallSeconds, traceSeconds, WARMUP.toSeconds()));
        row(b, "requests", String.format(Locale.ROOT, "%,d (%,.0f per wall second)", total, total / wallSeconds));
        b.append("\n| total | value |\n|---|---:|\n");
        row(b, "keys requested", String.format(Locale.ROOT, "%,d", keysRequested));
        row(b, "admitted by the grid", String.format(Locale.ROOT, "%,d", gridTotal));
        row(b, "admitted by the exact replay", String.format(Locale.ROOT, "%,d", exactTotal));
        row(b, "**keys where grid > exact**", String.format(Locale.ROOT, "**%,d** (largest excess %d)", keysOver,
                maxOver));
        row(b, "keys where grid < exact", String.format(Locale.ROOT, "%,d", keysUnder));
        row(b, "under-admission: sum of (exact − grid) where positive", String.format(Locale.ROOT,
                "%,d = %.3f %% of exact admitted", under, exactTotal == 0 ? 0.0 : 100.0 * under / exactTotal));
        row(b, "net: exact − grid", String.format(Locale.ROOT, "%,d = %.3f %% of exact admitted",
                exactTotal - gridTotal, exactTotal == 0 ? 0.0 : 100.0 * (exactTotal - gridTotal) / exactTotal));
        b.append("\nTop ").append(TOP).append(" keys by requests:\n\n");
        keyTable(b, topKeys(requests), requests, grid, exact);
        if (!over.isEmpty()) {
            b.append("\nKeys where grid > exact (at most ").append(OVER_LISTED).append("):\n\n");
            keyTable(b, over, requests, grid, exact);
        }
        b.append('\n').append(clock.equals("stepped")
                ? "Timing: the member's decisions read a clock that moves only between ticks, when no decision is"
                + " in flight, so each request's completion reading is the reading its decision used; the replay"
                + " orders requests of one tick arbitrarily, which cannot change a count (all costs are 1, all"
                + " readings of a tick equal). The replay's states never expire; the grid's expire after the"
                + " time to refill (the same as a full bucket). Per-key counts: the -keys.csv beside this file.\n"
                : "Timing caveat: each reading is taken at completion, after the owner's reading, by a varying"
                + " latency; the replay thus sees slightly different refill than the grid and may differ by a few"
                + " tokens per saturated key in either direction. A key over here is not proof of an"
                + " over-admission (rerun with clock=stepped, whose readings are exact). Per-key counts: the"
                + " -keys.csv beside this file.\n");
        return b.toString();
    }

    private static List<Integer> topKeys(int[] requests) {
        Integer[] keys = new Integer[requests.length];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = k;
        }
        Arrays.sort(keys, (a, c) -> requests[c] != requests[a] ? Integer.compare(requests[c], requests[a])
                : Integer.compare(a, c));
        List<Integer> top = new ArrayList<>();
        for (int i = 0; i < TOP && requests[keys[i]] > 0; i++) {
            top.add(keys[i]);
        }
        return top;
    }

    private static void keyTable(StringBuilder b, List<Integer> keys, int[] requests, int[] grid, int[] exact) {
        b.append("| Zipf rank | key | requests | admitted by the grid | admitted by the exact replay"
                + " | grid − exact |\n");
        b.append("|---:|---|---:|---:|---:|---:|\n");
        for (int k : keys) {
            b.append(String.format(Locale.ROOT, "| %d | %s | %,d | %,d | %,d | %+d |%n", k + 1, SkewedKeys.key(k),
                    requests[k], grid[k], exact[k], grid[k] - exact[k]));
        }
    }

    private static void row(StringBuilder b, String name, String value) {
        b.append("| ").append(name).append(" | ").append(value).append(" |\n");
    }

    private static void writeKeysCsv(Path keysCsv, int[] requests, int[] grid, int[] exact) {
        StringBuilder csv = new StringBuilder("rank,key,requests,grid_admitted,exact_admitted\n");
        for (int k = 0; k < requests.length; k++) {
            if (requests[k] > 0) {
                csv.append(k + 1).append(',').append(SkewedKeys.key(k)).append(',').append(requests[k]).append(',')
                        .append(grid[k]).append(',').append(exact[k]).append('\n');
            }
        }
        try {
            Files.writeString(keysCsv, csv, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + keysCsv, e);
        }
    }
}
