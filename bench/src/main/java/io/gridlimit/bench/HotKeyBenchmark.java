package io.gridlimit.bench;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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

/**
 * Hot-key coalescing (docs/SPEC.md §8): GridLimit's async token bucket ({@link BenchPolicies} {@code token-bucket},
 * capacity 100, 100 per second) through one embedded member, {@value GridFloorBenchmark#THREADS} caller threads
 * with {@value InFlight#PERMITS} decisions in flight each (256 concurrent), with coalescing on
 * ({@code HazelcastRateLimiter.Builder.coalesceHotKeys(true)}) (the default) and off, on two workloads:
 * <ul>
 *   <li>{@code hot}: every request for ONE key ({@code ip:10.0.0.1}): coalesced, the queued requests leave as one
 *       EntryProcessor per round trip; uncoalesced, every request is its own EntryProcessor on the one partition
 *       thread that owns the key;</li>
 *   <li>{@code uniform}: the {@value BenchKeys#COUNT} keys of the other grid rows: what coalescing costs where it
 *       has nothing to coalesce.</li>
 * </ul>
 * Decisions are exact either way (the grid-core test {@code CoalescingExactnessTest} proves it); on the hot key
 * nearly every request is denied. Each iteration prints the admitted count beside what the policy allows over the
 * iteration (100 + 100 per second elapsed), so the log shows both modes admit the same quota.
 *
 * <p>Run just this class:
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar HotKeyBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up.
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class HotKeyBenchmark {
    /** The one key of the {@code hot} workload. */
    public static final String HOT_KEY = "ip:10.0.0.1";

    /** {@code hot} (one key) or {@code uniform} ({@value BenchKeys#COUNT} keys). */
    @Param({"hot", "uniform"})
    public String workload;

    /** Whether the limiter coalesces concurrent decisions of one key. */
    @Param({"true", "false"})
    public boolean coalesce;

    private HazelcastRateLimiter limiter;
    private Policy policy;
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private long iterationStartNanos;
    private final java.util.List<String> iterationCounts = new java.util.ArrayList<>();

    /**
     * Creates the limiter on the member.
     *
     * @param member the started member
     */
    @Setup(Level.Trial)
    public void setUp(EmbeddedMember member) {
        limiter = HazelcastRateLimiter.builder(member.instance()).coalesceHotKeys(coalesce).build();
        policy = BenchPolicies.of("token-bucket");
    }

    /** Starts counting decisions for this iteration. */
    @Setup(Level.Iteration)
    public void startIteration() {
        admitted.set(0);
        denied.set(0);
        iterationStartNanos = System.nanoTime();
    }

    /**
     * Records this iteration's admitted and denied counts, printed when the trial ends (the in-flight decisions have been drained by
     * {@link InFlight#drain()} only for the benchmark thread states; the few still unanswered land in the next
     * iteration's counts).
     */
    @TearDown(Level.Iteration)
    public void endIteration() {
        double seconds = (System.nanoTime() - iterationStartNanos) / 1e9;
        if ("hot".equals(workload)) {
            // printed at the end of the trial: a line here would split JMH's "Iteration n: <score>" line
            iterationCounts.add(String.format(java.util.Locale.ROOT, "[hot-key coalesce=%s] admitted %d, denied %d"
                    + " in %.2f s; the policy allows at most 100 + 100/s x %.2f s = %.0f", coalesce, admitted.get(),
                    denied.get(), seconds, seconds, 100 + 100 * seconds));
        }
    }

    /** Closes the limiter (the member is stopped by {@link EmbeddedMember}). */
    @TearDown(Level.Trial)
    public void tearDown() {
        iterationCounts.forEach(System.out::println);
        if (limiter != null) {
            limiter.close();
        }
    }

    /**
     * One asynchronous decision of cost 1, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> tryAcquireAsync(InFlight inFlight) {
        inFlight.acquire();
        try {
            String key = "hot".equals(workload) ? HOT_KEY : BenchKeys.next();
            CompletionStage<Decision> stage = limiter.tryAcquireAsync(policy, key, 1);
            stage.whenComplete((d, e) -> {
                if (d != null) {
                    (d.allowed() ? admitted : denied).incrementAndGet();
                }
            });
            return inFlight.track(stage);
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }
}
