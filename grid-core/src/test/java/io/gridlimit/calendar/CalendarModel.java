package io.gridlimit.calendar;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * An independent model of docs/SPEC.md §14's periods, for the property tests: it walks the nominal starts one by
 * one from well before the instant with {@code LocalDate}/{@code LocalDateTime} arithmetic, resolves each with
 * {@link ZonedDateTime#ofLocal} (an overlap's earlier offset) and, where the JDK moves a start that falls in a gap
 * later, takes the gap's transition instead (the first instant that exists), and returns the consecutive pair that
 * holds the instant. No truncation, no period search of {@link CalendarPeriods}.
 */
public final class CalendarModel {
    private static final long NS = 1_000_000_000L;

    private CalendarModel() {
    }

    /** [start, end) of the period holding {@code nanos}, in epoch nanoseconds. */
    public static long[] period(long nanos, CalendarPeriod period, ZoneId zone, DayOfWeek weekStart, int anchor) {
        Instant t = Instant.ofEpochSecond(Math.floorDiv(nanos, NS), Math.floorMod(nanos, NS));
        LocalDate date = t.atZone(zone).toLocalDate();
        LocalDateTime n = switch (period) {
            case HOUR -> date.minusDays(3).atStartOfDay();
            case DAY -> date.minusDays(3).atStartOfDay();
            case WEEK -> {
                LocalDate d = date.minusDays(21);
                while (d.getDayOfWeek() != weekStart) {
                    d = d.plusDays(1);
                }
                yield d.atStartOfDay();
            }
            case MONTH -> anchorDay(date.minusMonths(3).withDayOfMonth(1), anchor).atStartOfDay();
            case QUARTER -> LocalDate.of(date.getYear() - 1, 1, 1).atStartOfDay();
            case YEAR -> LocalDate.of(date.getYear() - 3, 1, 1).atStartOfDay();
        };
        long start = resolve(n, zone);
        for (int i = 0; i < 200; i++) {
            LocalDateTime next = switch (period) {
                case HOUR -> n.plusHours(1);
                case DAY -> n.plusDays(1);
                case WEEK -> n.plusDays(7);
                case MONTH -> anchorDay(n.toLocalDate().withDayOfMonth(1).plusMonths(1), anchor).atStartOfDay();
                case QUARTER -> n.plusMonths(3);
                case YEAR -> n.plusYears(1);
            };
            long end = resolve(next, zone);
            if (start <= nanos && nanos < end) {
                return new long[] {start, end};
            }
            n = next;
            start = end;
        }
        throw new AssertionError("no period found for " + t + " in " + zone);
    }

    private static LocalDate anchorDay(LocalDate firstOfMonth, int anchor) {
        return firstOfMonth.withDayOfMonth(Math.min(anchor, firstOfMonth.lengthOfMonth()));
    }

    /** The first instant whose local date-time is {@code n}, or the end of the gap that skips it. */
    private static long resolve(LocalDateTime n, ZoneId zone) {
        ZonedDateTime z = ZonedDateTime.ofLocal(n, zone, null);
        Instant i = z.toInstant();
        if (z.toLocalDateTime().isAfter(n)) {
            i = zone.getRules().previousTransition(i.plusNanos(1)).getInstant();
        }
        return i.getEpochSecond() * NS + i.getNano();
    }
}
