package io.gridlimit.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * One benchmark thread's key indices for a skewed benchmark: the {@link SkewedKeys#trace} of the benchmark's
 * {@code workload} parameter, seeded with {@value #SEED_BASE} + the JMH thread index (so the 4 threads draw
 * different, reproducible sequences), walked cyclically. {@link #next()} is an array read and a mask. Per JMH
 * thread ({@link Scope#Thread}); not thread-safe.
 */
@State(Scope.Thread)
public class KeyStream {
    /** Seed of thread 0's trace; thread {@code t} uses {@code SEED_BASE + t}. */
    public static final long SEED_BASE = 0x5EED_2026L;

    private static final int MASK = SkewedKeys.TRACE_LENGTH - 1;

    private int[] trace;
    private int position;

    /**
     * Builds this thread's trace.
     *
     * @param params the trial's parameters; must have a {@code workload} parameter
     * @param thread this thread's JMH index
     * @throws IllegalArgumentException if the benchmark has no {@code workload} parameter or it is unknown
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params, ThreadParams thread) {
        String workload = params.getParam("workload");
        if (workload == null) {
            throw new IllegalArgumentException(params.getBenchmark() + " has no 'workload' parameter");
        }
        trace = SkewedKeys.trace(workload, SEED_BASE + thread.getThreadIndex(), SkewedKeys.TRACE_LENGTH);
        position = 0;
    }

    /** @return the next key index, in [0, {@value SkewedKeys#KEY_SPACE}) */
    public int nextIndex() {
        return trace[position++ & MASK];
    }

    /** @return the next key, never null */
    public String next() {
        return SkewedKeys.key(nextIndex());
    }
}
