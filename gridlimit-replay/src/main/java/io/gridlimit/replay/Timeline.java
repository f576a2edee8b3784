package io.gridlimit.replay;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Buckets for "over time" (issue 24 §4, §5), chosen for the log's span: the shortest of 1 minute, 5, 15 minutes,
 * 1, 6 hours, 1, 7, 30 days that gives at most {@value #MAX_BUCKETS} buckets (a minute each for a day of log, a day
 * each for a year). Buckets start at multiples of their length since the epoch (UTC) and are dense from the first
 * request's to the last's. Stateless.
 */
public final class Timeline {
    /** The most buckets a series has (except for a log longer than 30 × 1500 days). */
    public static final int MAX_BUCKETS = 1500;
    private static final long MINUTE = PolicyStats.SLOT_NANOS;
    private static final List<Long> LENGTHS = List.of(MINUTE, 5 * MINUTE, 15 * MINUTE, 60 * MINUTE, 360 * MINUTE,
            1440 * MINUTE, 7 * 1440 * MINUTE, 30 * 1440 * MINUTE);

    private Timeline() {
    }

    /**
     * @param firstNanos the first request's time, epoch nanoseconds
     * @param lastNanos the last request's time, epoch nanoseconds, >= firstNanos
     * @return the bucket length in nanoseconds, a whole number of minutes
     */
    public static long bucketNanos(long firstNanos, long lastNanos) {
        for (long length : LENGTHS) {
            if (Math.floorDiv(lastNanos, length) - Math.floorDiv(firstNanos, length) + 1 <= MAX_BUCKETS) {
                return length;
            }
        }
        return LENGTHS.get(LENGTHS.size() - 1);
    }

    /**
     * Sums per-minute counts into buckets.
     *
     * @param minutes {requests, denials} by minute since the epoch ({@link PolicyStats#minutes()})
     * @param firstNanos the first request's time over the whole log
     * @param lastNanos the last request's time over the whole log
     * @param bucketNanos the bucket length ({@link #bucketNanos})
     * @return {requests, denials} by bucket start (epoch nanoseconds), every bucket from first to last present
     */
    public static TreeMap<Long, long[]> buckets(Map<Long, long[]> minutes, long firstNanos, long lastNanos,
                                                long bucketNanos) {
        TreeMap<Long, long[]> out = new TreeMap<>();
        if (firstNanos > lastNanos) {
            return out;
        }
        for (long b = Math.floorDiv(firstNanos, bucketNanos); b <= Math.floorDiv(lastNanos, bucketNanos); b++) {
            out.put(b * bucketNanos, new long[2]);
        }
        long perBucket = bucketNanos / MINUTE;
        minutes.forEach((minute, c) -> {
            long[] sum = out.get(Math.floorDiv(minute, perBucket) * bucketNanos);
            if (sum != null) {
                sum[0] += c[0];
                sum[1] += c[1];
            }
        });
        return out;
    }
}
