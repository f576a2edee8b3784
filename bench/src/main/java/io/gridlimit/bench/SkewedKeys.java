package io.gridlimit.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The key workloads of the skewed benchmarks ({@link SkewedBenchmark}, {@link SkewedClusterBenchmark},
 * {@link LeaseAccuracy}), drawn from one key space of {@value #KEY_SPACE} keys in the house format
 * ({@code ip:10.a.b.c}: key {@code i} is {@code ip:10.<i>>>16>.<(i>>>8)&255>.<i&255>}, so keys below 65 536 are
 * exactly {@link BenchKeys}' keys):
 * <ul>
 *   <li>{@value #UNIFORM}: keys 0 to {@value BenchKeys#COUNT} − 1, uniform (the other grid rows' workload);</li>
 *   <li>{@value #HOT}: every request on ONE key, key 1 = {@link HotKeyBenchmark#HOT_KEY};</li>
 *   <li>{@value #ZIPF}: Zipf with exponent s = 1.1 over all {@value #KEY_SPACE} keys: key {@code k − 1} has rank
 *       {@code k} and probability {@code k^-s / H(N, s)} (H the generalised harmonic number; for N = 100 000 the
 *       top key takes 13.5 % of the requests, the top 10 36 %, the top 100 58 %, the top 1 000 75 %; at 100 000
 *       requests per second, the keys of rank 1 to 10 exceed 1 000 per second).</li>
 * </ul>
 *
 * <p>Cost per request: a workload is a precomputed {@link #TRACE_LENGTH}-entry array of key indices per thread
 * ({@link #trace}), walked cyclically; building it samples the Zipf CDF once per entry (a binary search over
 * {@value #KEY_SPACE} cumulative weights), never on the measured path. Traces are deterministic: a seed gives the
 * same indices on every run and JVM ({@link SplittableRandom}). The CDF is computed in {@code double}: this is
 * the load generator, not a decision. Thread-safe (the key strings and the CDF are never written after class
 * initialisation; a trace array belongs to the thread that asked for it).
 */
public final class SkewedKeys {
    /** Workload name: uniform over {@value BenchKeys#COUNT} keys. */
    public static final String UNIFORM = "uniform";
    /** Workload name: one key. */
    public static final String HOT = "hot";
    /** Workload name: Zipf, s = {@value #ZIPF_EXPONENT}, over {@value #KEY_SPACE} keys. */
    public static final String ZIPF = "zipf";
    /** The workload names, in table order. */
    public static final String[] WORKLOADS = {UNIFORM, HOT, ZIPF};

    /** Keys in the key space (the Zipf workload's N). */
    public static final int KEY_SPACE = 100_000;
    /** The Zipf exponent s. */
    public static final double ZIPF_EXPONENT = 1.1;
    /** The index of the {@value #HOT} workload's key ({@link HotKeyBenchmark#HOT_KEY}). */
    public static final int HOT_INDEX = 1;
    /** Entries of one thread's trace (2^20), walked cyclically by {@link KeyStream}. */
    public static final int TRACE_LENGTH = 1 << 20;

    private static final String[] KEYS = new String[KEY_SPACE];
    /** CDF[k] = sum of (j+1)^-s for j <= k, divided by the total; CDF[N-1] = 1. */
    private static final double[] ZIPF_CDF = new double[KEY_SPACE];

    static {
        for (int i = 0; i < KEY_SPACE; i++) {
            KEYS[i] = "ip:10." + (i >>> 16) + "." + ((i >>> 8) & 0xff) + "." + (i & 0xff);
        }
        double sum = 0;
        for (int k = 0; k < KEY_SPACE; k++) {
            sum += Math.pow(k + 1, -ZIPF_EXPONENT);
            ZIPF_CDF[k] = sum;
        }
        for (int k = 0; k < KEY_SPACE; k++) {
            ZIPF_CDF[k] /= sum;
        }
        ZIPF_CDF[KEY_SPACE - 1] = 1.0;
    }

    private SkewedKeys() {
    }

    /**
     * Returns key number {@code i}.
     *
     * @param i an index in [0, {@value #KEY_SPACE})
     * @return the key, never null
     * @throws ArrayIndexOutOfBoundsException if {@code i} is out of range
     */
    public static String key(int i) {
        return KEYS[i];
    }

    /**
     * Returns how many distinct keys a workload can draw.
     *
     * @param workload one of {@link #WORKLOADS}
     * @return 10 000, 1 or 100 000
     * @throws IllegalArgumentException if the workload is unknown
     */
    public static int keysOf(String workload) {
        return switch (workload) {
            case UNIFORM -> BenchKeys.COUNT;
            case HOT -> 1;
            case ZIPF -> KEY_SPACE;
            default -> throw unknown(workload);
        };
    }

    /**
     * Builds a deterministic trace of key indices.
     *
     * @param workload one of {@link #WORKLOADS}
     * @param seed the seed (the same seed gives the same trace)
     * @param length entries, at least 1
     * @return a new array of {@code length} indices in [0, {@value #KEY_SPACE})
     * @throws IllegalArgumentException if the workload is unknown or {@code length < 1}
     */
    public static int[] trace(String workload, long seed, int length) {
        if (length < 1) {
            throw new IllegalArgumentException("trace length must be at least 1, got " + length);
        }
        int[] trace = new int[length];
        SplittableRandom random = new SplittableRandom(seed);
        switch (workload) {
            case UNIFORM -> {
                for (int i = 0; i < length; i++) {
                    trace[i] = random.nextInt(BenchKeys.COUNT);
                }
            }
            case HOT -> Arrays.fill(trace, HOT_INDEX);
            case ZIPF -> {
                for (int i = 0; i < length; i++) {
                    trace[i] = zipfIndex(random.nextDouble());
                }
            }
            default -> throw unknown(workload);
        }
        return trace;
    }

    /**
     * The Zipf key index of a uniform draw: the first k with CDF[k] > u (binary search).
     *
     * @param u a draw in [0, 1)
     * @return an index in [0, {@value #KEY_SPACE})
     */
    static int zipfIndex(double u) {
        int i = Arrays.binarySearch(ZIPF_CDF, u);
        // found: CDF[i] == u, so the first k with CDF[k] > u is i + 1; not found: the insertion point
        int k = i >= 0 ? i + 1 : -i - 1;
        return Math.min(k, KEY_SPACE - 1);
    }

    /**
     * The probability of key index {@code i} under the Zipf workload.
     *
     * @param i an index in [0, {@value #KEY_SPACE})
     * @return its probability, in (0, 1)
     */
    static double zipfProbability(int i) {
        return i == 0 ? ZIPF_CDF[0] : ZIPF_CDF[i] - ZIPF_CDF[i - 1];
    }

    private static IllegalArgumentException unknown(String workload) {
        return new IllegalArgumentException("workload must be one of uniform, hot, zipf, got '" + workload + "'");
    }
}
