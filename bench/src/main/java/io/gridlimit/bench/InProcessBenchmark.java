package io.gridlimit.bench;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.time.SystemTimeSource;
import io.gridlimit.time.TimeSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling: GridLimit's own token-bucket function on a {@link ConcurrentHashMap} in the caller's process, one
 * {@code compute} per decision (atomic per key, like an EntryProcessor), the wall clock read once per decision
 * ({@link SystemTimeSource}). Same policy ({@code token-bucket}), {@value BenchKeys#COUNT} uniform keys and
 * {@value GridFloorBenchmark#THREADS} threads as the grid benchmarks. No grid, no serialization, no hand-off to
 * another thread, no state shared between processes: what a limiter costs when it need not be distributed.
 *
 * <p>Run just this class:
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar InProcessBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * Thread-safe ({@link Scope#Benchmark}: one map shared by the benchmark threads).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class InProcessBenchmark {
    private final ConcurrentHashMap<String, LimiterState> states = new ConcurrentHashMap<>();
    private final TimeSource time = SystemTimeSource.systemUtc();
    private Policy policy;

    /** Builds the policy and starts with no state. */
    @Setup(Level.Trial)
    public void setUp() {
        policy = BenchPolicies.of("token-bucket");
        states.clear();
    }

    /**
     * One token-bucket decision of cost 1 on a random key.
     *
     * @return the decision
     */
    @Benchmark
    public Decision tryAcquire() {
        Decision[] decision = new Decision[1];
        states.compute(BenchKeys.next(), (key, state) -> {
            Outcome outcome = RateLimitAlgorithms.apply(state, policy, 1, time.nowNanos());
            decision[0] = outcome.decision();
            return outcome.write() ? outcome.state() : state;
        });
        return decision[0];
    }
}
