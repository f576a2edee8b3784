package io.gridlimit.bench;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Policy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

import java.util.concurrent.TimeUnit;

/**
 * Decisions per second of each algorithm as a pure function, {@code RateLimitAlgorithms.apply(state, policy, 1,
 * nowNanos)}, on one thread: no grid, no clock, no serialization. The state is one key's, kept across calls as
 * the grid would keep it (replaced when the outcome writes).
 *
 * <p>Workload: a virtual clock starting at 2025-01-01T00:00Z advances by {@value #STEP_NANOS} ns per request,
 * i.e. 110 requests per second offered to policies of 100 per second ({@link BenchPolicies}): in steady state
 * about one request in eleven is denied and the sliding-window log holds its full 100 entries, so both admit and
 * deny paths and the log at its limit are measured.
 *
 * <p>Run just this class (about 1 min 40 s with these settings):
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar AlgorithmBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * (with {@code -Dgridlimit.buildSuffix=-x} the jar is in {@code bench/target-x/}). Not thread-safe: one instance
 * per JMH thread ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class AlgorithmBenchmark {
    /** Virtual time between two requests: 1 s / 110, in nanoseconds. */
    public static final long STEP_NANOS = 1_000_000_000L / 110;
    /** 2025-01-01T00:00:00Z in epoch nanoseconds: where the virtual clock starts. */
    public static final long START_NANOS = 1_735_689_600L * 1_000_000_000L;

    /** The algorithm, one of {@link BenchPolicies#ALGORITHMS}. */
    @Param({"token-bucket", "gcra", "fixed-window", "calendar", "sliding-window-log", "sliding-window-counter",
        "composite"})
    public String algorithm;

    private Policy policy;
    private LimiterState state;
    private long nowNanos;

    /** Builds the policy and starts from no state. */
    @Setup
    public void setUp() {
        policy = BenchPolicies.of(algorithm);
        state = null;
        nowNanos = START_NANOS;
    }

    /**
     * One decision of cost 1 at the next virtual instant.
     *
     * @return the outcome (consumed by JMH so the call is not eliminated)
     */
    @Benchmark
    public Outcome apply() {
        nowNanos += STEP_NANOS;
        Outcome outcome = RateLimitAlgorithms.apply(state, policy, 1, nowNanos);
        if (outcome.write()) {
            state = outcome.state();
        }
        return outcome;
    }
}
