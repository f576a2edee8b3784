package io.gridlimit.calendar;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The periods of a calendar in one time zone (docs/SPEC.md §14): where each hour, day, week, month, quarter or year
 * starts and ends, in epoch nanoseconds, as the zone's rules (the JDK's tz data) say at each instant.
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Nominal starts.</b> Periods begin at local date-times: {@code hh:00}; midnight; midnight of the week's
 *   first day ({@code weekStart}); midnight of the month's anchor day ({@code min(anchor, length of the month)}:
 *   31 is every month's last day, so periods run Jan 31 – Feb 28 – Mar 31 – Apr 30 …); midnight of the quarter's
 *   or the year's first day. The local date-time of an instant is the instant plus the zone's offset at it.</li>
 *   <li><b>The instant of a nominal start</b> is the first instant at which the zone's local clock reaches it: where
 *   the clock skips it (a gap: a day whose midnight does not exist, the hour of a spring change) the instant of the
 *   jump; where it shows it twice (an overlap) the earlier one; else the one instant. So a day lasts 23 or 25
 *   hours across a change of 1 h, the hour 02:00 of Berlin's autumn change lasts 2 h (the clock shows 02:xx twice)
 *   and its spring one does not exist (an empty period is never current: 01:00 to 03:00 CEST is one hour).</li>
 *   <li><b>The period of an instant {@code t}</b> is {@code [s, e)}: {@code s} the instant of the latest nominal start
 *   at or before {@code t}'s local date-time, {@code e} the instant of the next one, advanced while {@code e <= t}
 *   (an overlap across a boundary) and stepped back while {@code s > t}. Instants saturate at the bounds of a
 *   {@code long}.</li>
 *   <li><b>Cost.</b> {@link #span(long)} keeps the last period it computed in a volatile field (an immutable
 *   {@link CalendarSpan}): a reading inside it allocates nothing and reads one volatile. A reading outside
 *   computes with {@code java.time} (a few small objects) and replaces it. {@link #of} interns instances by
 *   {@link #id()}, so every band of one calendar in a JVM shares one cache.</li>
 *   <li><b>Zones.</b> IANA region ids of the JDK's tz data ({@link ZoneId#getAvailableZoneIds()}, {@code UTC}
 *   included). Fixed offsets such as {@code +02:00} are refused: a customer's calendar is a place's, and an offset
 *   written for a place with daylight saving time is wrong half the year; {@code Etc/GMT-2} is the IANA id of a
 *   fixed UTC+2 where one is really meant.</li>
 * </ol>
 * Immutable (apart from the cache) and thread-safe.
 */
public final class CalendarPeriods {
    /** Largest month anchor: 31, each month's last day. */
    public static final int MAX_ANCHOR = 31;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Most interned instances; beyond, {@link #of} returns uninterned ones (calendars are few: one per band). */
    private static final int MAX_INTERNED = 4096;
    private static final ConcurrentHashMap<String, CalendarPeriods> INTERNED = new ConcurrentHashMap<>();
    /**
     * Most steps the period search takes from a nominal start: past the starts an overlap had already reached (one
     * per hour of the overlap for hourly periods: 7 for Antarctica/Vostok's −7 h of 1994, 24 for a repeated day).
     * Each step's end is later than the one before, so the bound is only a guard.
     */
    private static final int MAX_STEPS = 10_000;

    private final CalendarPeriod period;
    private final ZoneId zone;
    private final DayOfWeek weekStart;
    private final int anchor;
    private final String id;
    /** The last period {@link #span} computed; null before the first. */
    private volatile CalendarSpan current;

    private CalendarPeriods(CalendarPeriod period, ZoneId zone, DayOfWeek weekStart, int anchor, String id) {
        this.period = period;
        this.zone = zone;
        this.weekStart = weekStart;
        this.anchor = anchor;
        this.id = id;
    }

    /**
     * The calendar of one kind of period in a zone.
     *
     * @param period the kind of period
     * @param zone an IANA region id of the JDK's tz data, or {@code UTC} (see {@link #zone(String)})
     * @param weekStart the day weeks start on, for {@link CalendarPeriod#WEEK} only; null: Monday
     * @param anchor the day of the month a month starts on, in [1, 31], for {@link CalendarPeriod#MONTH} only
     *     (31: the last day of shorter months); null: 1
     * @return the calendar (an interned instance), never null
     * @throws IllegalArgumentException naming the parameter and its value: a fixed-offset or unknown zone, a
     *     {@code weekStart} for another period than a week, an {@code anchor} out of range or for another period
     *     than a month
     * @throws NullPointerException if {@code period} or {@code zone} is null
     */
    public static CalendarPeriods of(CalendarPeriod period, ZoneId zone, DayOfWeek weekStart, Integer anchor) {
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(zone, "zone");
        if (weekStart != null && period != CalendarPeriod.WEEK) {
            throw new IllegalArgumentException("weekStart applies to period week only, got '"
                    + name(weekStart) + "' for period " + period.configName());
        }
        if (anchor != null && period != CalendarPeriod.MONTH) {
            throw new IllegalArgumentException("anchor applies to period month only, got " + anchor + " for period "
                    + period.configName());
        }
        if (anchor != null && (anchor < 1 || anchor > MAX_ANCHOR)) {
            throw new IllegalArgumentException("anchor must be in [1, " + MAX_ANCHOR + "], got " + anchor);
        }
        DayOfWeek w = weekStart == null ? DayOfWeek.MONDAY : weekStart;
        int a = anchor == null ? 1 : anchor;
        String id = "period=" + period.configName() + ";zone=" + zone.getId()
                + (period == CalendarPeriod.WEEK ? ";week-start=" + name(w) : "")
                + (period == CalendarPeriod.MONTH ? ";anchor=" + a : "");
        CalendarPeriods interned = INTERNED.get(id);
        if (interned != null) {
            return interned; // its zone was checked when it was made
        }
        CalendarPeriods made = new CalendarPeriods(period, zone(zone.getId()), w, a, id);
        if (INTERNED.size() >= MAX_INTERNED) {
            return made;
        }
        CalendarPeriods raced = INTERNED.putIfAbsent(id, made);
        return raced == null ? made : raced;
    }

    /**
     * Hours in a zone.
     *
     * @param zone an IANA region id or {@code UTC}
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods hourly(ZoneId zone) {
        return of(CalendarPeriod.HOUR, zone, null, null);
    }

    /**
     * Days in a zone, from local midnight.
     *
     * @param zone an IANA region id or {@code UTC}
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods daily(ZoneId zone) {
        return of(CalendarPeriod.DAY, zone, null, null);
    }

    /**
     * Weeks in a zone, from local midnight of {@code weekStart}.
     *
     * @param zone an IANA region id or {@code UTC}
     * @param weekStart the first day of a week
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods weekly(ZoneId zone, DayOfWeek weekStart) {
        return of(CalendarPeriod.WEEK, zone, Objects.requireNonNull(weekStart, "weekStart"), null);
    }

    /**
     * Months in a zone, from local midnight of the 1st.
     *
     * @param zone an IANA region id or {@code UTC}
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods monthly(ZoneId zone) {
        return of(CalendarPeriod.MONTH, zone, null, null);
    }

    /**
     * Months in a zone, from local midnight of the {@code anchor}th (the month's last day when it is shorter).
     *
     * @param zone an IANA region id or {@code UTC}
     * @param anchor the day a month starts on, in [1, 31]
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone, or an anchor out of range
     */
    public static CalendarPeriods monthly(ZoneId zone, int anchor) {
        return of(CalendarPeriod.MONTH, zone, null, anchor);
    }

    /**
     * Quarters in a zone, from local midnight of January, April, July and October 1st.
     *
     * @param zone an IANA region id or {@code UTC}
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods quarterly(ZoneId zone) {
        return of(CalendarPeriod.QUARTER, zone, null, null);
    }

    /**
     * Years in a zone, from local midnight of January 1st.
     *
     * @param zone an IANA region id or {@code UTC}
     * @return the calendar
     * @throws IllegalArgumentException for a fixed-offset or unknown zone
     */
    public static CalendarPeriods yearly(ZoneId zone) {
        return of(CalendarPeriod.YEAR, zone, null, null);
    }

    /**
     * Reads a calendar back from its {@link #id()} (the wire form, grid-core/docs/wire.md), re-validating it.
     *
     * @param id e.g. {@code period=month;zone=Europe/Berlin;anchor=31}
     * @return the calendar
     * @throws IllegalArgumentException if {@code id} is not the id of a valid calendar (the message quotes it)
     * @throws NullPointerException if {@code id} is null
     */
    public static CalendarPeriods parse(String id) {
        Objects.requireNonNull(id, "id");
        CalendarPeriods interned = INTERNED.get(id);
        if (interned != null) {
            return interned;
        }
        String[] parts = id.split(";", -1);
        if (parts.length < 2 || parts.length > 3 || !parts[0].startsWith("period=") || !parts[1].startsWith("zone=")) {
            throw new IllegalArgumentException("not a calendar: '" + id + "'");
        }
        CalendarPeriod p = CalendarPeriod.fromConfigName(parts[0].substring("period=".length()));
        ZoneId z = zone(parts[1].substring("zone=".length()));
        DayOfWeek w = null;
        Integer a = null;
        if (parts.length == 3 && parts[2].startsWith("week-start=")) {
            w = weekStart(parts[2].substring("week-start=".length()));
        } else if (parts.length == 3 && parts[2].startsWith("anchor=")) {
            try {
                a = Integer.valueOf(parts[2].substring("anchor=".length()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a calendar: '" + id + "'");
            }
        } else if (parts.length == 3) {
            throw new IllegalArgumentException("not a calendar: '" + id + "'");
        }
        CalendarPeriods c = of(p, z, w, a);
        if (!c.id.equals(id)) {
            throw new IllegalArgumentException("not a calendar in its canonical form: '" + id + "'");
        }
        return c;
    }

    /**
     * Checks a zone id: an IANA region id of the JDK's tz data, or {@code UTC}, exactly as written.
     *
     * @param id e.g. {@code Europe/Berlin}
     * @return the zone
     * @throws IllegalArgumentException for a fixed offset ({@code +02:00}, {@code UTC+2}), a wrongly cased id (the
     *     message names the right one) or an id the tz data does not have; the message quotes {@code id}
     * @throws NullPointerException if {@code id} is null
     */
    public static ZoneId zone(String id) {
        Objects.requireNonNull(id, "zone");
        java.util.Set<String> known = ZoneId.getAvailableZoneIds();
        if (known.contains(id)) {
            return ZoneId.of(id);
        }
        String hint = "";
        for (String k : known) {
            if (k.equalsIgnoreCase(id)) {
                hint = " (did you mean '" + k + "'?)";
            }
        }
        if (hint.isEmpty() && id.matches("(?i)(utc|gmt|ut)?[+-][0-9:]+")) {
            hint = " (a fixed offset ignores the zone's daylight saving time: name the place, e.g. Europe/Berlin, "
                    + "or Etc/GMT-2 for a fixed UTC+2)";
        }
        throw new IllegalArgumentException("zone must be an IANA time-zone id such as Europe/Berlin, or UTC, got '"
                + id + "'" + hint);
    }

    /**
     * Parses a day of the week as configuration writes it: {@code monday} … {@code sunday}, case-insensitively.
     *
     * @param name the day's English name
     * @return the day
     * @throws IllegalArgumentException if it names no day (the message quotes it)
     */
    public static DayOfWeek weekStart(String name) {
        if (name != null) {
            String n = name.trim().toUpperCase(Locale.ROOT);
            for (DayOfWeek d : DayOfWeek.values()) {
                if (d.name().equals(n)) {
                    return d;
                }
            }
        }
        throw new IllegalArgumentException("week-start must be one of monday, tuesday, wednesday, thursday, friday, "
                + "saturday, sunday, got '" + name + "'");
    }

    private static String name(DayOfWeek d) {
        return d.name().toLowerCase(Locale.ROOT);
    }

    /** @return the kind of period, never null */
    public CalendarPeriod period() {
        return period;
    }

    /** @return the zone, never null */
    public ZoneId zone() {
        return zone;
    }

    /** @return the first day of a week ({@link CalendarPeriod#WEEK}); Monday for the other periods */
    public DayOfWeek weekStart() {
        return weekStart;
    }

    /** @return the day a month starts on, in [1, 31] ({@link CalendarPeriod#MONTH}); 1 for the other periods */
    public int anchor() {
        return anchor;
    }

    /**
     * The canonical text of this calendar: {@code period=<p>;zone=<zone>}, then {@code ;week-start=<day>} for a week
     * or {@code ;anchor=<n>} for a month. Two calendars with equal ids have the same periods. It names the calendar
     * in states, reservations and on the wire.
     *
     * @return the id, never null
     */
    public String id() {
        return id;
    }

    /**
     * The period that contains an instant, from the cached period when it does (no allocation), else computed and
     * cached (see the class note).
     *
     * @param nowNanos the reading, epoch nanoseconds
     * @return the period, never null; {@code startNanos <= nowNanos < endNanos} except at the saturated bounds
     */
    public CalendarSpan span(long nowNanos) {
        CalendarSpan s = current;
        if (s != null && s.contains(nowNanos)) {
            return s;
        }
        s = compute(nowNanos);
        current = s;
        return s;
    }

    /**
     * The period that contains an instant, without replacing the cached period (for instants other than the
     * current reading, such as a stored period's end).
     *
     * @param nanos an instant, epoch nanoseconds
     * @return the period, never null
     */
    public CalendarSpan spanAt(long nanos) {
        CalendarSpan s = current;
        if (s != null && s.contains(nanos)) {
            return s;
        }
        return compute(nanos);
    }

    private CalendarSpan compute(long nanos) {
        ZoneRules rules = zone.getRules();
        Instant instant = Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS_PER_SECOND),
                Math.floorMod(nanos, NANOS_PER_SECOND));
        LocalDateTime local = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(),
                rules.getOffset(instant));
        LocalDateTime start = nominalStart(local);
        long startNanos = instantNanos(rules, start);
        for (int i = 0; i < MAX_STEPS && startNanos > nanos; i++) {
            start = step(start, -1);
            startNanos = instantNanos(rules, start);
        }
        LocalDateTime next = step(start, 1);
        long endNanos = instantNanos(rules, next);
        for (int i = 0; i < MAX_STEPS && endNanos <= nanos && endNanos != Long.MAX_VALUE; i++) {
            start = next;
            startNanos = endNanos;
            next = step(next, 1);
            endNanos = instantNanos(rules, next);
        }
        return new CalendarSpan(startNanos, endNanos, start.toEpochSecond(ZoneOffset.UTC));
    }

    /**
     * The end of a named period as this JVM's zone rules give it: the first instant of the period after it.
     *
     * @param localStartSeconds a period's {@link CalendarSpan#localStartSeconds()}
     * @return epoch nanoseconds, saturating
     */
    public long endNanosOf(long localStartSeconds) {
        return instantNanos(zone.getRules(), step(LocalDateTime.ofEpochSecond(localStartSeconds, 0, ZoneOffset.UTC),
                1));
    }

    /**
     * The name of the period after a named period.
     *
     * @param localStartSeconds a period's {@link CalendarSpan#localStartSeconds()}
     * @return the next period's local start seconds
     */
    public long nextLocalStartSeconds(long localStartSeconds) {
        return step(LocalDateTime.ofEpochSecond(localStartSeconds, 0, ZoneOffset.UTC), 1)
                .toEpochSecond(ZoneOffset.UTC);
    }

    /** The latest nominal start at or before a local date-time. */
    private LocalDateTime nominalStart(LocalDateTime local) {
        LocalDate date = local.toLocalDate();
        return switch (period) {
            case HOUR -> local.truncatedTo(ChronoUnit.HOURS);
            case DAY -> date.atStartOfDay();
            case WEEK -> date.with(TemporalAdjusters.previousOrSame(weekStart)).atStartOfDay();
            case MONTH -> {
                YearMonth month = YearMonth.from(date);
                if (date.getDayOfMonth() < anchorDay(month)) {
                    month = month.minusMonths(1);
                }
                yield month.atDay(anchorDay(month)).atStartOfDay();
            }
            case QUARTER -> LocalDate.of(date.getYear(), (date.getMonthValue() - 1) / 3 * 3 + 1, 1).atStartOfDay();
            case YEAR -> LocalDate.of(date.getYear(), 1, 1).atStartOfDay();
        };
    }

    /** The nominal start {@code n} periods after (or before, when negative) a nominal start. */
    private LocalDateTime step(LocalDateTime start, int n) {
        return switch (period) {
            case HOUR -> start.plusHours(n);
            case DAY -> start.plusDays(n);
            case WEEK -> start.plusWeeks(n);
            case MONTH -> {
                YearMonth month = YearMonth.from(start).plusMonths(n);
                yield month.atDay(anchorDay(month)).atStartOfDay();
            }
            case QUARTER -> start.plusMonths(3L * n);
            case YEAR -> start.plusYears(n);
        };
    }

    private int anchorDay(YearMonth month) {
        return Math.min(anchor, month.lengthOfMonth());
    }

    /** The first instant the zone's clock reaches {@code local}: a gap's end, an overlap's earlier instant. */
    private static long instantNanos(ZoneRules rules, LocalDateTime local) {
        ZoneOffsetTransition t = rules.getTransition(local);
        long seconds;
        if (t == null) {
            seconds = local.toEpochSecond(rules.getOffset(local));
        } else if (t.isGap()) {
            seconds = t.toEpochSecond();
        } else {
            seconds = local.toEpochSecond(t.getOffsetBefore());
        }
        if (seconds > Long.MAX_VALUE / NANOS_PER_SECOND) {
            return Long.MAX_VALUE;
        }
        if (seconds < Long.MIN_VALUE / NANOS_PER_SECOND) {
            return Long.MIN_VALUE;
        }
        return seconds * NANOS_PER_SECOND;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof CalendarPeriods c && id.equals(c.id));
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }
}
