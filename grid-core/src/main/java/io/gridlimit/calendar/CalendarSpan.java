package io.gridlimit.calendar;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * A period {@code [startNanos, endNanos)} in epoch nanoseconds, named by its nominal start on the local time-line
 * ({@link #localStartSeconds()}), which every member computes alike whatever its zone rules. Immutable and
 * thread-safe.
 */
public final class CalendarSpan {
    private final long startNanos;
    private final long endNanos;
    private final long localStartSeconds;

    CalendarSpan(long startNanos, long endNanos, long localStartSeconds) {
        this.startNanos = startNanos;
        this.endNanos = endNanos;
        this.localStartSeconds = localStartSeconds;
    }

    /**
     * The period's name: its nominal start as a local date-time, in seconds since 1970-01-01T00:00 on the local
     * time-line ({@code LocalDateTime.toEpochSecond(ZoneOffset.UTC)}): March 2026 is 2026-03-01T00:00. Later
     * periods have larger names; it depends on the calendar only, never on the zone's offsets.
     *
     * @return local seconds
     */
    public long localStartSeconds() {
        return localStartSeconds;
    }

    /** @return the first instant of the period, epoch nanoseconds */
    public long startNanos() {
        return startNanos;
    }

    /** @return the first instant after the period (the next period's start), epoch nanoseconds */
    public long endNanos() {
        return endNanos;
    }

    /** @return {@code endNanos − startNanos}, > 0, saturating at {@link Long#MAX_VALUE} */
    public long lengthNanos() {
        long r = endNanos - startNanos;
        return ((endNanos ^ startNanos) & (endNanos ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /**
     * @param nanos an instant, epoch nanoseconds
     * @return true when {@code startNanos <= nanos < endNanos}
     */
    public boolean contains(long nanos) {
        return startNanos <= nanos && nanos < endNanos;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof CalendarSpan s && startNanos == s.startNanos && endNanos == s.endNanos
                && localStartSeconds == s.localStartSeconds);
    }

    @Override
    public int hashCode() {
        return Long.hashCode((startNanos * 31 + endNanos) * 31 + localStartSeconds);
    }

    @Override
    public String toString() {
        return "[" + startNanos + ", " + endNanos + ") " + LocalDateTime.ofEpochSecond(localStartSeconds, 0,
                ZoneOffset.UTC);
    }
}
