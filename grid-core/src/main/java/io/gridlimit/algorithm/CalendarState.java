package io.gridlimit.algorithm;

import java.util.Objects;

/**
 * Calendar band state (docs/SPEC.md §14): {@link #count()} accepted cost in the period named
 * {@link #localStartSeconds()} (its nominal start on the local time-line, the same on every member) of the calendar
 * {@link #calendar()} (its {@link io.gridlimit.calendar.CalendarPeriods#id()}).
 *
 * <p>The period's instants are stored as the members that decided in it computed them from their zone rules:
 * {@link #startNanos()} the first instant counted, {@link #earliestEndNanos()} and {@link #latestEndNanos()} the
 * earliest and latest end any of them gave it. The count counts until the latest end; {@link #nextCount()} is the
 * part of it taken at readings where some member's rules had already ended the period (at or after the earliest
 * end), which the next period starts with. With one set of zone rules the two ends are equal and
 * {@code nextCount} is 0: a fixed window of the calendar's periods. The calendar is kept so a policy change of
 * period, zone, week start or anchor carries the count over (SPEC §4). Immutable and thread-safe.
 */
public final class CalendarState implements LimiterState {
    private final long lastNanos;
    private final long localStartSeconds;
    private final long startNanos;
    private final long earliestEndNanos;
    private final long latestEndNanos;
    private final long count;
    private final long nextCount;
    private final String calendar;

    /**
     * Creates a state.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param localStartSeconds the period's name: its nominal start, seconds on the local time-line
     * @param startNanos the first instant counted, epoch nanoseconds
     * @param earliestEndNanos the earliest end of the period a deciding member computed, >= {@code startNanos}
     * @param latestEndNanos the latest end of the period a deciding member computed, >= {@code earliestEndNanos}
     * @param count accepted cost in the period, >= 0
     * @param nextCount the part of {@code count} taken at or after {@code earliestEndNanos}, in [0, count]
     * @param calendar the calendar's id, not empty
     * @throws IllegalArgumentException if a value is out of its range (the message names it)
     * @throws NullPointerException if {@code calendar} is null
     */
    public CalendarState(long lastNanos, long localStartSeconds, long startNanos, long earliestEndNanos,
                         long latestEndNanos, long count, long nextCount, String calendar) {
        if (count < 0 || nextCount < 0 || nextCount > count) {
            throw new IllegalArgumentException("count and nextCount must be 0 <= nextCount <= count, got " + count
                    + " and " + nextCount);
        }
        if (earliestEndNanos < startNanos || latestEndNanos < earliestEndNanos) {
            throw new IllegalArgumentException("startNanos <= earliestEndNanos <= latestEndNanos, got " + startNanos
                    + ", " + earliestEndNanos + ", " + latestEndNanos);
        }
        if (Objects.requireNonNull(calendar, "calendar").isEmpty()) {
            throw new IllegalArgumentException("calendar must not be empty");
        }
        this.lastNanos = lastNanos;
        this.localStartSeconds = localStartSeconds;
        this.startNanos = startNanos;
        this.earliestEndNanos = earliestEndNanos;
        this.latestEndNanos = latestEndNanos;
        this.count = count;
        this.nextCount = nextCount;
        this.calendar = calendar;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return the period's name: its nominal start in seconds on the local time-line */
    public long localStartSeconds() {
        return localStartSeconds;
    }

    /** @return the first instant counted in the period, epoch nanoseconds */
    public long startNanos() {
        return startNanos;
    }

    /** @return the earliest end a deciding member gave the period, epoch nanoseconds */
    public long earliestEndNanos() {
        return earliestEndNanos;
    }

    /** @return the latest end a deciding member gave the period: the count counts until then, epoch nanoseconds */
    public long latestEndNanos() {
        return latestEndNanos;
    }

    /** @return accepted cost in the period, >= 0 */
    public long count() {
        return count;
    }

    /** @return the part of {@link #count()} the next period starts with, in [0, count] */
    public long nextCount() {
        return nextCount;
    }

    /** @return the id of the calendar this state was written under, never null */
    public String calendar() {
        return calendar;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof CalendarState s && lastNanos == s.lastNanos
                && localStartSeconds == s.localStartSeconds && startNanos == s.startNanos
                && earliestEndNanos == s.earliestEndNanos && latestEndNanos == s.latestEndNanos && count == s.count
                && nextCount == s.nextCount && calendar.equals(s.calendar));
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastNanos, localStartSeconds, startNanos, earliestEndNanos, latestEndNanos, count,
                nextCount, calendar);
    }

    @Override
    public String toString() {
        return "CalendarState{lastNanos=" + lastNanos + " period=" + localStartSeconds + " [" + startNanos + ", "
                + earliestEndNanos + "/" + latestEndNanos + ") count=" + count + " nextCount=" + nextCount + " "
                + calendar + "}";
    }
}
