package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one policy decided in a replay (issue 24 §4): decisions asked, admitted and denied, distinct keys, denials
 * per key and requests and denials per minute of log time. Memory grows with keys and with minutes of log, not with
 * lines. Not thread-safe.
 */
public final class PolicyStats {
    /** The length of one timeline slot, in nanoseconds: a minute. */
    public static final long SLOT_NANOS = 60_000_000_000L;

    private final String name;
    private final boolean shadow;
    private long requests;
    private long admitted;
    private long denied;
    private long missingKeyRejected;
    private long missingKeySkipped;
    /** key to {requests, denials} */
    private final Map<String, long[]> keys = new HashMap<>();
    /** minute (epoch nanos / SLOT_NANOS) to {requests, denials} */
    private final Map<Long, long[]> minutes = new HashMap<>();
    private long lastMinute;
    private long @Nullable [] lastCounts;

    /**
     * @param name the policy name
     * @param shadow true when the policy runs in shadow mode (its denials never stop a request)
     */
    public PolicyStats(String name, boolean shadow) {
        this.name = name;
        this.shadow = shadow;
    }

    /**
     * Counts one decision.
     *
     * @param key the grid key decided
     * @param allowed whether it was admitted
     * @param timeNanos the log time of the request, in epoch nanoseconds
     */
    public void decided(String key, boolean allowed, long timeNanos) {
        requests++;
        long[] k = keys.computeIfAbsent(key, x -> new long[2]);
        long minute = Math.floorDiv(timeNanos, SLOT_NANOS);
        if (minute != lastMinute || lastCounts == null) { // times do not decrease: one lookup per minute
            lastMinute = minute;
            lastCounts = minutes.computeIfAbsent(minute, x -> new long[2]);
        }
        long[] m = lastCounts;
        k[0]++;
        m[0]++;
        if (allowed) {
            admitted++;
        } else {
            denied++;
            k[1]++;
            m[1]++;
        }
    }

    /** Counts a request answered 400 because this policy's rule had no key ({@code on-missing-key: reject}). */
    public void countMissingKeyRejected() {
        missingKeyRejected++;
    }

    /** Counts a request this policy's rule let through for want of a key ({@code on-missing-key: skip}). */
    public void countMissingKeySkipped() {
        missingKeySkipped++;
    }

    /** @return the policy name */
    public String name() {
        return name;
    }

    /** @return true for a shadow policy */
    public boolean shadow() {
        return shadow;
    }

    /** @return decisions taken (one per request and rule of this policy that was asked) */
    public long requests() {
        return requests;
    }

    /** @return decisions that admitted */
    public long admitted() {
        return admitted;
    }

    /** @return decisions that denied (for a shadow policy: that would have denied) */
    public long denied() {
        return denied;
    }

    /** @return requests answered 400 for a missing key of this policy's rule */
    public long missingKeyRejected() {
        return missingKeyRejected;
    }

    /** @return requests this policy's rule skipped for a missing key */
    public long missingKeySkipped() {
        return missingKeySkipped;
    }

    /** @return the number of distinct keys decided */
    public int keys() {
        return keys.size();
    }

    /**
     * @param n how many
     * @return the keys with the most denials, most first (ties by key), only keys denied at least once
     */
    public List<KeyCount> topDenied(int n) {
        List<KeyCount> all = new ArrayList<>();
        keys.forEach((k, c) -> {
            if (c[1] > 0) {
                all.add(new KeyCount(k, c[0], c[1]));
            }
        });
        all.sort(Comparator.comparingLong(KeyCount::denied).reversed().thenComparing(KeyCount::key));
        return all.size() > n ? all.subList(0, n) : all;
    }

    /** @return requests and denials per minute, by minute since the epoch, ascending */
    public TreeMap<Long, long[]> minutes() {
        return new TreeMap<>(minutes);
    }

    /**
     * One key's counts.
     *
     * @param key the grid key
     * @param requests decisions of the key
     * @param denied denials of the key
     */
    public record KeyCount(String key, long requests, long denied) {
    }
}
