package io.gridlimit.internal;

/**
 * Saturating {@code long} arithmetic for durations and readings (SPEC §1: resetAfter and TTL saturate at
 * {@link Long#MAX_VALUE} ns). Internal: not part of the API. Thread-safe (stateless).
 */
public final class Saturating {
    private Saturating() {
    }

    /**
     * @param a any long
     * @param b any long
     * @return {@code a + b}, clamped to the {@code long} range
     */
    public static long add(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /**
     * @param a any long
     * @param b any long
     * @return {@code a - b}, clamped to the {@code long} range
     */
    public static long subtract(long a, long b) {
        long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }
}
