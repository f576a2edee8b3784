package io.gridlimit.bench;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
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

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * GridLimit decisions through one embedded member ({@link HazelcastRateLimiter} on {@link BenchMember#config()}),
 * per algorithm ({@link BenchPolicies}), cost 1, over {@value BenchKeys#COUNT} uniform keys with
 * {@value GridFloorBenchmark#THREADS} caller threads: the same member configuration, keys and threads as the
 * no-op floor ({@link GridFloorBenchmark}) and the Bucket4j peer ({@link Bucket4jBenchmark}). Decisions read the
 * member's cluster time, as in production.
 *
 * <ul>
 *   <li>{@link #tryAcquire}: synchronous ({@code executeOnKey}), the caller waits for the decision;</li>
 *   <li>{@link #tryAcquireAsync}: asynchronous, at most {@value InFlight#PERMITS} decisions in flight per thread;
 *       stages complete on the limiter's own callback pool (default size), no JVM flag set.</li>
 *   <li>{@link #reserveAsync}: the same, each decision taken as a reservation (docs/SPEC.md §10: a signed
 *       handle, the key's state wrapped with its bookkeeping), which is what the HTTP filter and the decision API
 *       send; the difference to {@link #tryAcquireAsync} is the price of give-backs being possible.</li>
 * </ul>
 *
 * <p>Reservations against plain decisions only (token bucket):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar 'GridLimitBenchmark.(tryAcquireAsync|reserveAsync)' -p algorithm=token-bucket \
 *     -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 *
 * <p>A calendar band beside the fixed window (docs/SPEC.md §14: a calendar decision costs what a fixed window's
 * does; the current period is cached per calendar, so a decision allocates only the state it writes):
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar 'GridLimitBenchmark.tryAcquire$' -p algorithm=fixed-window,calendar \
 *     -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 *
 * <p>Run just this class (21 forks: 3 methods × 7 algorithms, about 7 minutes with these settings):
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar GridLimitBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 * Thread-safe once set up ({@link Scope#Benchmark}: one limiter shared by the benchmark threads).
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class GridLimitBenchmark {
    /** The algorithm, one of {@link BenchPolicies#ALGORITHMS}. */
    @Param({"token-bucket", "gcra", "fixed-window", "calendar", "sliding-window-log", "sliding-window-counter",
        "composite"})
    public String algorithm;

    private HazelcastRateLimiter limiter;
    private Policy policy;

    /**
     * Creates the limiter on the member.
     *
     * @param member the started member
     */
    @Setup(Level.Trial)
    public void setUp(EmbeddedMember member) {
        limiter = HazelcastRateLimiter.create(member.instance());
        policy = BenchPolicies.of(algorithm);
    }

    /** Closes the limiter (the member is stopped by {@link EmbeddedMember}). */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (limiter != null) {
            limiter.close();
        }
    }

    /**
     * One synchronous decision of cost 1 on a random key.
     *
     * @return the decision
     */
    @Benchmark
    public Decision tryAcquire() {
        return limiter.tryAcquire(policy, BenchKeys.next(), 1);
    }

    /**
     * One asynchronous decision of cost 1 on a random key, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> tryAcquireAsync(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.tryAcquireAsync(policy, BenchKeys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * One asynchronous decision of cost 1 on a random key taken as a reservation, bounded in flight.
     *
     * @param inFlight this thread's permits
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> reserveAsync(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.reserveAsync(policy, BenchKeys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }
}
