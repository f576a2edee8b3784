package io.gridlimit.bench;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The key space of the grid benchmarks: {@value #COUNT} distinct keys in the house format ({@code ip:10.0.x.y},
 * SPEC §6), drawn uniformly at random per operation. Every grid benchmark (GridLimit, the no-op floor, Bucket4j,
 * the in-process ceiling) draws from this same array, so peers see the same keys. Thread-safe (the array is never
 * written after class initialisation).
 */
public final class BenchKeys {
    /** Number of distinct keys. */
    public static final int COUNT = 10_000;

    private static final String[] KEYS = new String[COUNT];

    static {
        for (int i = 0; i < COUNT; i++) {
            KEYS[i] = "ip:10.0." + (i >>> 8) + "." + (i & 0xff);
        }
    }

    private BenchKeys() {
    }

    /**
     * Returns one key drawn uniformly from the {@value #COUNT} keys with the calling thread's random generator.
     *
     * @return a key, never null
     */
    public static String next() {
        return KEYS[nextIndex()];
    }

    /**
     * Returns the index of one key drawn uniformly, for peers that keep one object per key.
     *
     * @return an index in [0, {@value #COUNT})
     */
    public static int nextIndex() {
        return ThreadLocalRandom.current().nextInt(COUNT);
    }

    /**
     * Returns key number {@code i}.
     *
     * @param i an index in [0, {@value #COUNT})
     * @return the key, never null
     * @throws ArrayIndexOutOfBoundsException if {@code i} is out of range
     */
    public static String get(int i) {
        return KEYS[i];
    }
}
