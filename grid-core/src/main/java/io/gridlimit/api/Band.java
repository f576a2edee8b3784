package io.gridlimit.api;

import io.gridlimit.calendar.CalendarPeriods;

import java.time.Duration;
import java.util.Objects;

/**
 * One limit of a {@link Policy}: an algorithm with its parameters. A single-band policy has one band named after
 * the policy; a composite policy has several named bands that must all admit a request (SPEC §4).
 *
 * <p>Ranges (SPEC §1), checked by the factory methods: capacity, refill tokens and limit in [1, 10^15]; a
 * sliding-window-log limit in [1, 100 000]; refill period and window in [1 ms, 365 days]. A calendar band's
 * periods are its calendar's (docs/SPEC.md §14: as long as the zone's rules make them). Immutable and thread-safe.
 */
public final class Band {
    /** Largest capacity, refill tokens or limit: 10^15. */
    public static final long MAX_QUANTITY = 1_000_000_000_000_000L;
    /** Largest limit of a sliding window log: 100 000 entries per key. */
    public static final long MAX_LOG_LIMIT = 100_000L;
    /** Shortest refill period or window, in nanoseconds: 1 ms. */
    public static final long MIN_PERIOD_NANOS = 1_000_000L;
    /** Longest refill period or window, in nanoseconds: 365 days. */
    public static final long MAX_PERIOD_NANOS = Duration.ofDays(365).toNanos();

    private final String name;
    private final Algorithm algorithm;
    private final long capacity;
    private final long refillTokens;
    private final long refillPeriodNanos;
    private final long limit;
    private final long windowNanos;
    /** The calendar of a {@link Algorithm#CALENDAR} band, else null. */
    private final CalendarPeriods calendar;
    private final long maxDebt;

    private Band(String name, Algorithm algorithm, long capacity, long refillTokens, long refillPeriodNanos,
                 long limit, long windowNanos, CalendarPeriods calendar) {
        this(name, algorithm, capacity, refillTokens, refillPeriodNanos, limit, windowNanos, calendar,
                algorithm.isBucket() ? capacity : limit);
    }

    private Band(String name, Algorithm algorithm, long capacity, long refillTokens, long refillPeriodNanos,
                 long limit, long windowNanos, CalendarPeriods calendar, long maxDebt) {
        this.name = checkName(name);
        this.algorithm = algorithm;
        this.capacity = capacity;
        this.refillTokens = refillTokens;
        this.refillPeriodNanos = refillPeriodNanos;
        this.limit = limit;
        this.windowNanos = windowNanos;
        this.calendar = calendar;
        this.maxDebt = maxDebt;
    }

    /**
     * A token bucket band (SPEC §3).
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param capacity the burst size in tokens, in [1, 10^15]
     * @param refillTokens tokens added per refill period, in [1, 10^15]
     * @param refillPeriod the refill period, in [1 ms, 365 days]
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value when one is out of range
     * @throws NullPointerException if {@code name} or {@code refillPeriod} is null
     */
    public static Band tokenBucket(String name, long capacity, long refillTokens, Duration refillPeriod) {
        return bucket(name, Algorithm.TOKEN_BUCKET, capacity, refillTokens, refillPeriod);
    }

    /**
     * A GCRA band (leaky bucket as a meter) with the token bucket's parameters: burst {@code B = capacity},
     * emission interval {@code T = refillPeriod / refillTokens} (SPEC §3).
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param capacity the burst size in tokens, in [1, 10^15]
     * @param refillTokens tokens added per refill period, in [1, 10^15]
     * @param refillPeriod the refill period, in [1 ms, 365 days]
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value when one is out of range
     * @throws NullPointerException if {@code name} or {@code refillPeriod} is null
     */
    public static Band gcra(String name, long capacity, long refillTokens, Duration refillPeriod) {
        return bucket(name, Algorithm.GCRA, capacity, refillTokens, refillPeriod);
    }

    /**
     * A fixed window band: at most {@code limit} cost per window aligned to epoch 0 (SPEC §3).
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param limit the quota per window, in [1, 10^15]
     * @param window the window length, in [1 ms, 365 days]
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value when one is out of range
     * @throws NullPointerException if {@code name} or {@code window} is null
     */
    public static Band fixedWindow(String name, long limit, Duration window) {
        return window(name, Algorithm.FIXED_WINDOW, limit, window, MAX_QUANTITY);
    }

    /**
     * A sliding window log band: at most {@code limit} accepted cost in any closed interval of length
     * {@code window} (docs/SPEC.md §3).
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param limit the quota per window, in [1, 100 000]
     * @param window the window length, in [1 ms, 365 days]
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value when one is out of range
     * @throws NullPointerException if {@code name} or {@code window} is null
     */
    public static Band slidingWindowLog(String name, long limit, Duration window) {
        return window(name, Algorithm.SLIDING_WINDOW_LOG, limit, window, MAX_LOG_LIMIT);
    }

    /**
     * A sliding window counter band (docs/SPEC.md §3: the weighted formula, in exact integers).
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param limit the quota per window, in [1, 10^15]
     * @param window the window length, in [1 ms, 365 days]
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value when one is out of range
     * @throws NullPointerException if {@code name} or {@code window} is null
     */
    public static Band slidingWindowCounter(String name, long limit, Duration window) {
        return window(name, Algorithm.SLIDING_WINDOW_COUNTER, limit, window, MAX_QUANTITY);
    }

    /**
     * A calendar band: at most {@code limit} cost per period of a calendar (an hour, day, week, month, quarter or
     * year of a time zone, boundaries from the zone's rules; docs/SPEC.md §14), counted exactly as a fixed window
     * counts its window.
     *
     * <pre>{@code
     * Band monthly = Band.calendar("monthly", 10_000, CalendarPeriods.monthly(ZoneId.of("Europe/Berlin"), 1));
     * }</pre>
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param limit the quota per period, in [1, 10^15]
     * @param calendar the periods
     * @return the band, never null
     * @throws IllegalArgumentException naming {@code limit} and its value when it is out of range
     * @throws NullPointerException if {@code name} or {@code calendar} is null
     */
    public static Band calendar(String name, long limit, CalendarPeriods calendar) {
        Objects.requireNonNull(calendar, "calendar");
        checkQuantity("limit", limit, MAX_QUANTITY);
        return new Band(name, Algorithm.CALENDAR, 0, 0, 0, limit, 0, calendar);
    }

    /**
     * The band of an algorithm from its quantities: the one switch from an {@link Algorithm} to its factory, for
     * callers that read the algorithm as data (configuration, the admin API's bodies, Envoy's rules, the wire, a
     * replica's local share). Each algorithm takes some of the quantities and ignores the others, whatever they
     * hold (pass 0 and null); a caller that must refuse a quantity its algorithm does not take does so in its own
     * words before calling (configuration: {@code does not apply to}).
     * <table>
     *   <caption>What each algorithm takes (SPEC §3; ranges SPEC §1)</caption>
     *   <tr><th>algorithm</th><th>takes</th><th>ignores</th></tr>
     *   <tr><td>{@link Algorithm#TOKEN_BUCKET}, {@link Algorithm#GCRA}</td>
     *       <td>{@code capacity}, {@code refillTokens}, {@code refillPeriod}</td>
     *       <td>{@code limit}, {@code window}, {@code calendar}</td></tr>
     *   <tr><td>{@link Algorithm#FIXED_WINDOW}, {@link Algorithm#SLIDING_WINDOW_COUNTER},
     *       {@link Algorithm#SLIDING_WINDOW_LOG} (its limit in [1, 100 000])</td>
     *       <td>{@code limit}, {@code window}</td>
     *       <td>{@code capacity}, {@code refillTokens}, {@code refillPeriod}, {@code calendar}</td></tr>
     *   <tr><td>{@link Algorithm#CALENDAR} (SPEC §14)</td>
     *       <td>{@code limit}, {@code calendar}</td>
     *       <td>{@code capacity}, {@code refillTokens}, {@code refillPeriod}, {@code window}</td></tr>
     * </table>
     * The band is exactly the one of the algorithm's own factory ({@link #tokenBucket}, {@link #gcra},
     * {@link #fixedWindow}, {@link #slidingWindowLog}, {@link #slidingWindowCounter}, {@link #calendar}), and so are
     * its exceptions and their messages. The switch has no default: an algorithm added to {@link Algorithm} does not
     * compile until it is handled here.
     *
     * @param name the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @param algorithm the algorithm
     * @param capacity a bucket's burst size in tokens, in [1, 10^15]; ignored by the other algorithms
     * @param refillTokens a bucket's tokens per refill period, in [1, 10^15]; ignored by the other algorithms
     * @param refillPeriod a bucket's refill period, in [1 ms, 365 days]; ignored (may be null) by the others
     * @param limit a window's or a calendar band's quota per window or period, in [1, 10^15] ([1, 100 000] for a
     *     sliding window log); ignored by the buckets
     * @param window a window algorithm's window, in [1 ms, 365 days]; ignored (may be null) by the buckets and the
     *     calendar
     * @param calendar a calendar band's periods; ignored (may be null) by every other algorithm
     * @return the band, never null
     * @throws IllegalArgumentException naming the parameter and its value ({@code capacity must be in [1, 10^15],
     *     got 0}; {@code refillPeriod}, {@code limit}, {@code window} alike) when a quantity the algorithm takes is
     *     out of range, or naming the name when it is malformed
     * @throws NullPointerException naming {@code algorithm}, {@code name}, or the period, window or calendar the
     *     algorithm takes, when it is null
     */
    public static Band of(String name, Algorithm algorithm, long capacity, long refillTokens, Duration refillPeriod,
                          long limit, Duration window, CalendarPeriods calendar) {
        return switch (Objects.requireNonNull(algorithm, "algorithm")) {
            case TOKEN_BUCKET -> tokenBucket(name, capacity, refillTokens, refillPeriod);
            case GCRA -> gcra(name, capacity, refillTokens, refillPeriod);
            case FIXED_WINDOW -> fixedWindow(name, limit, window);
            case SLIDING_WINDOW_LOG -> slidingWindowLog(name, limit, window);
            case SLIDING_WINDOW_COUNTER -> slidingWindowCounter(name, limit, window);
            case CALENDAR -> calendar(name, limit, calendar);
        };
    }

    /**
     * Returns a copy of this band under another name.
     *
     * @param newName the band name: 1 to 64 characters of {@code [A-Za-z0-9._-]}
     * @return the renamed band, never null
     * @throws IllegalArgumentException if the name is malformed
     */
    public Band withName(String newName) {
        return new Band(newName, algorithm, capacity, refillTokens, refillPeriodNanos, limit, windowNanos, calendar,
                maxDebt);
    }

    /**
     * Returns a copy of this band with another maximum debt (docs/SPEC.md §10): how far below zero a settle that
     * charges more than was reserved may take the band's balance. What a settle would charge beyond it is not
     * charged and is reported ({@link Settlement#excess()}).
     *
     * @param debt the maximum debt in tokens or requests, in [0, 10^15] ([0, 100 000] for a sliding window log);
     *     the default is the band's {@link #quota()}
     * @return the band with that maximum debt, never null
     * @throws IllegalArgumentException naming {@code maxDebt} and the value when it is out of range
     */
    public Band withMaxDebt(long debt) {
        long max = algorithm == Algorithm.SLIDING_WINDOW_LOG ? MAX_LOG_LIMIT : MAX_QUANTITY;
        if (debt < 0 || debt > max) {
            throw new IllegalArgumentException("maxDebt must be in [0, " + max + "], got " + debt);
        }
        return new Band(name, algorithm, capacity, refillTokens, refillPeriodNanos, limit, windowNanos, calendar,
                debt);
    }

    /**
     * The band's maximum debt (docs/SPEC.md §10): the lowest balance a settle may leave is {@code -maxDebt}.
     *
     * @return tokens or requests, in [0, 10^15]; by default the band's {@link #quota()}
     */
    public long maxDebt() {
        return maxDebt;
    }

    private static Band bucket(String name, Algorithm algorithm, long capacity, long refillTokens,
                               Duration refillPeriod) {
        checkQuantity("capacity", capacity, MAX_QUANTITY);
        checkQuantity("refillTokens", refillTokens, MAX_QUANTITY);
        long periodNanos = checkPeriod("refillPeriod", refillPeriod);
        return new Band(name, algorithm, capacity, refillTokens, periodNanos, 0, 0, null);
    }

    private static Band window(String name, Algorithm algorithm, long limit, Duration window, long maxLimit) {
        checkQuantity("limit", limit, maxLimit);
        long windowNanos = checkPeriod("window", window);
        return new Band(name, algorithm, 0, 0, 0, limit, windowNanos, null);
    }

    private static void checkQuantity(String parameter, long value, long max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(parameter + " must be in [1, " + max + "], got " + value);
        }
    }

    private static long checkPeriod(String parameter, Duration value) {
        Objects.requireNonNull(value, parameter);
        if (value.compareTo(Duration.ofNanos(MIN_PERIOD_NANOS)) < 0
                || value.compareTo(Duration.ofNanos(MAX_PERIOD_NANOS)) > 0) {
            throw new IllegalArgumentException(parameter + " must be in [1ms, 365d], got " + value);
        }
        return value.toNanos();
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > 64 || !name.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException(
                    "name must be 1 to 64 characters of [A-Za-z0-9._-], got '" + name + "'");
        }
        return name;
    }

    /** @return the band name, never null */
    public String name() {
        return name;
    }

    /** @return the algorithm, never null */
    public Algorithm algorithm() {
        return algorithm;
    }

    /** @return the bucket capacity in tokens, in [1, 10^15]; 0 for window algorithms */
    public long capacity() {
        return capacity;
    }

    /** @return tokens added per refill period, in [1, 10^15]; 0 for window algorithms */
    public long refillTokens() {
        return refillTokens;
    }

    /** @return the refill period in nanoseconds, in [1 ms, 365 days]; 0 for window algorithms */
    public long refillPeriodNanos() {
        return refillPeriodNanos;
    }

    /** @return the quota per window (per period for a calendar band), in [1, 10^15]; 0 for bucket algorithms */
    public long limit() {
        return limit;
    }

    /**
     * @return the window length in nanoseconds, in [1 ms, 365 days]; 0 for bucket algorithms and for a calendar
     *     band, whose periods vary ({@link #calendar()})
     */
    public long windowNanos() {
        return windowNanos;
    }

    /** @return the calendar of a {@link Algorithm#CALENDAR} band; null for every other algorithm */
    public CalendarPeriods calendar() {
        return calendar;
    }

    /**
     * The band's quota as a decision reports it (SPEC §4): the capacity for buckets, the limit for windows.
     *
     * @return the quota in tokens or requests, in [1, 10^15]
     */
    public long quota() {
        return algorithm.isBucket() ? capacity : limit;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Band b)) {
            return false;
        }
        return name.equals(b.name) && algorithm == b.algorithm && capacity == b.capacity
                && refillTokens == b.refillTokens && refillPeriodNanos == b.refillPeriodNanos
                && limit == b.limit && windowNanos == b.windowNanos && Objects.equals(calendar, b.calendar)
                && maxDebt == b.maxDebt;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, algorithm, capacity, refillTokens, refillPeriodNanos, limit, windowNanos, calendar,
                maxDebt);
    }

    @Override
    public String toString() {
        String debt = maxDebt == quota() ? "" : " maxDebt=" + maxDebt;
        if (calendar != null) {
            return name + "{" + algorithm.configName() + " limit=" + limit + " " + calendar.id() + debt + "}";
        }
        return algorithm.isBucket()
                ? name + "{" + algorithm.configName() + " capacity=" + capacity + " refillTokens=" + refillTokens
                        + " refillPeriod=" + Duration.ofNanos(refillPeriodNanos) + debt + "}"
                : name + "{" + algorithm.configName() + " limit=" + limit + " window="
                        + Duration.ofNanos(windowNanos) + debt + "}";
    }
}
