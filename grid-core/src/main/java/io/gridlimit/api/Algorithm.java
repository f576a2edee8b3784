package io.gridlimit.api;

import java.util.Locale;

/**
 * The rate-limit algorithms GridLimit implements, with their configuration names.
 *
 * <p>Exact semantics of each: {@code SPEC.md} §3 (sources: seeds 002 and 003 for the token bucket and the
 * sliding windows; the GCRA of ITU-T I.371 / RFC 2697-style metering for {@link #GCRA}; §14 for {@link #CALENDAR}).
 */
public enum Algorithm {
    /** Token bucket: capacity {@code C}, {@code R} refill tokens per refill period {@code P}; starts full. */
    TOKEN_BUCKET("token-bucket", true),
    /** Generic cell rate algorithm (the leaky bucket as a meter); same parameters as the token bucket. */
    GCRA("gcra", true),
    /** Fixed window of {@code limit} per {@code window}, windows aligned to epoch 0. */
    FIXED_WINDOW("fixed-window", false),
    /** Sliding window log: exact count of accepted cost in the closed interval {@code [t - W, t]}. */
    SLIDING_WINDOW_LOG("sliding-window-log", false),
    /** Sliding window counter: previous window's count weighted by its share still in view. */
    SLIDING_WINDOW_COUNTER("sliding-window-counter", false),
    /**
     * Calendar band: a fixed window of {@code limit} per calendar period (hour, day, week, month, quarter, year) of a
     * time zone, boundaries from the zone's rules (docs/SPEC.md §14; {@link io.gridlimit.calendar.CalendarPeriods}).
     */
    CALENDAR("calendar", false);

    private final String configName;
    private final boolean bucket;

    Algorithm(String configName, boolean bucket) {
        this.configName = configName;
        this.bucket = bucket;
    }

    /**
     * Returns the name used in configuration, e.g. {@code "token-bucket"}.
     *
     * @return the kebab-case configuration name, never null
     */
    public String configName() {
        return configName;
    }

    /**
     * Tells whether this algorithm takes bucket parameters (capacity, refill tokens, refill period) rather than
     * window parameters (limit, window; a {@link #CALENDAR} band takes a limit and its calendar).
     *
     * @return true for {@link #TOKEN_BUCKET} and {@link #GCRA}
     */
    public boolean isBucket() {
        return bucket;
    }

    /**
     * Parses a configuration name, case-insensitively; {@code "leaky-bucket"} is an alias of {@link #GCRA}.
     *
     * @param name the configuration name, e.g. {@code "sliding-window-log"}
     * @return the algorithm, never null
     * @throws IllegalArgumentException if {@code name} is null or names no algorithm; the message quotes it and
     *     lists the accepted names
     */
    public static Algorithm fromConfigName(String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("leaky-bucket")) {
                return GCRA;
            }
            for (Algorithm a : values()) {
                if (a.configName.equals(n)) {
                    return a;
                }
            }
        }
        throw new IllegalArgumentException("unknown algorithm '" + name + "': expected one of token-bucket, gcra, "
                + "leaky-bucket, fixed-window, sliding-window-log, sliding-window-counter, calendar");
    }
}
