package io.gridlimit.calendar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

/**
 * Calendar periods worked by hand (docs/SPEC.md §14), each from the zone's offsets: Europe/Berlin (CET +1, CEST +2;
 * 2026: spring 29 March 01:00Z, 02:00 CET to 03:00 CEST; autumn 25 October 01:00Z, 03:00 CEST to 02:00 CET),
 * America/St_Johns (NST −3:30, NDT −2:30; 2026: 8 March 05:30Z, 02:00 to 03:00; 1 November 04:30Z, 02:00 to 01:00),
 * Australia/Lord_Howe (+10:30, a half-hour DST to +11; 2026: 4 April 15:00Z, 02:00 to 01:30 local on 5 April;
 * 3 October 15:30Z, 02:00 to 02:30 local on 4 October), Asia/Beirut (a midnight that does not exist: 28 March
 * 22:00Z, 00:00 +02 to 01:00 +03), Pacific/Apia (30 December 2011 skipped: 10:00Z, 29 December 24:00 −10 to
 * 31 December 00:00 +14), and UTC months with an anchor of 31 across a leap year. Each period is checked at an
 * instant inside, and at its last nanosecond where that is the point.
 */
class CalendarPeriodsTest {
    private static final long NS = 1_000_000_000L;
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId ST_JOHNS = ZoneId.of("America/St_Johns");
    private static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static long nanos(String instant) {
        Instant i = Instant.parse(instant);
        return i.getEpochSecond() * NS + i.getNano();
    }

    /** Asserts the period of {@code at} is {@code [start, end)}, and that its first and last nanosecond are in it. */
    private static void period(CalendarPeriods c, String at, String start, String end) {
        CalendarSpan s = c.spanAt(nanos(at));
        assertThat(s.startNanos()).as("start of the period of %s", at).isEqualTo(nanos(start));
        assertThat(s.endNanos()).as("end of the period of %s", at).isEqualTo(nanos(end));
        assertThat(c.spanAt(nanos(start))).isEqualTo(s);
        assertThat(c.spanAt(nanos(end) - 1)).as("the last nanosecond is in the period").isEqualTo(s);
        assertThat(c.spanAt(nanos(end)).startNanos()).as("the next period starts at the end").isEqualTo(nanos(end));
    }

    private static long hours(double h) {
        return (long) (h * 3600) * NS;
    }

    @Test
    void berlinDaysAre23And25HoursAcrossItsChanges() {
        CalendarPeriods days = CalendarPeriods.daily(BERLIN);
        // 15 January 00:30 CET is 14 January 23:30Z: the day started at 00:00 CET = 23:00Z
        period(days, "2026-01-15T23:30:00Z", "2026-01-15T23:00:00Z", "2026-01-16T23:00:00Z");
        // 29 March: 00:00 CET (23:00Z the day before) to 00:00 CEST (22:00Z): 23 hours
        period(days, "2026-03-29T10:00:00Z", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z");
        assertThat(days.spanAt(nanos("2026-03-29T10:00:00Z")).lengthNanos()).isEqualTo(hours(23));
        // 25 October: 00:00 CEST (22:00Z the day before) to 00:00 CET (23:00Z): 25 hours
        period(days, "2026-10-25T12:00:00Z", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z");
        assertThat(days.spanAt(nanos("2026-10-25T12:00:00Z")).lengthNanos()).isEqualTo(hours(25));
    }

    @Test
    void berlinHoursFollowTheLocalClock() {
        CalendarPeriods hours = CalendarPeriods.hourly(BERLIN);
        // spring: 01:00-02:00 CET is [00:00Z, 01:00Z); 02:00 does not exist, so the next hour is 03:00 CEST
        period(hours, "2026-03-29T00:59:59.999999999Z", "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z");
        period(hours, "2026-03-29T01:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z");
        // autumn: the clock shows 02:xx twice (CEST, then CET): the hour 02:00 lasts from 00:00Z to 02:00Z
        period(hours, "2026-10-25T00:30:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z");
        period(hours, "2026-10-25T01:30:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z");
        period(hours, "2026-10-25T02:00:00Z", "2026-10-25T02:00:00Z", "2026-10-25T03:00:00Z");
    }

    @Test
    void berlinWeeksMonthsQuartersAndYears() {
        // Monday 23 March 00:00 CET (22 March 23:00Z) to Monday 30 March 00:00 CEST (29 March 22:00Z): 167 h
        CalendarPeriods mondays = CalendarPeriods.of(CalendarPeriod.WEEK, BERLIN, null, null);
        period(mondays, "2026-03-29T12:00:00Z", "2026-03-22T23:00:00Z", "2026-03-29T22:00:00Z");
        assertThat(mondays.weekStart()).isEqualTo(DayOfWeek.MONDAY);
        // weeks from Sunday: Sunday 29 March 00:00 CET to Sunday 5 April 00:00 CEST
        period(CalendarPeriods.weekly(BERLIN, DayOfWeek.SUNDAY), "2026-03-29T12:00:00Z", "2026-03-28T23:00:00Z",
                "2026-04-04T22:00:00Z");
        CalendarPeriods months = CalendarPeriods.monthly(BERLIN);
        // March: 1 March 00:00 CET to 1 April 00:00 CEST, one hour short of 31 days; then April's 30 days
        period(months, "2026-03-15T00:00:00Z", "2026-02-28T23:00:00Z", "2026-03-31T22:00:00Z");
        period(months, "2026-04-10T00:00:00Z", "2026-03-31T22:00:00Z", "2026-04-30T22:00:00Z");
        assertThat(months.spanAt(nanos("2026-03-15T00:00:00Z")).lengthNanos()).isEqualTo(hours(31 * 24 - 1));
        period(CalendarPeriods.quarterly(BERLIN), "2026-05-01T00:00:00Z", "2026-03-31T22:00:00Z",
                "2026-06-30T22:00:00Z");
        period(CalendarPeriods.yearly(BERLIN), "2026-06-01T00:00:00Z", "2025-12-31T23:00:00Z",
                "2026-12-31T23:00:00Z");
        // an anchor of 31: 31 January 00:00 CET, 28 February 00:00 CET, 31 March 00:00 CEST
        CalendarPeriods lastDays = CalendarPeriods.monthly(BERLIN, 31);
        period(lastDays, "2026-02-10T00:00:00Z", "2026-01-30T23:00:00Z", "2026-02-27T23:00:00Z");
        period(lastDays, "2026-03-10T00:00:00Z", "2026-02-27T23:00:00Z", "2026-03-30T22:00:00Z");
    }

    @Test
    void stJohnsHalfHourOffsets() {
        CalendarPeriods hours = CalendarPeriods.hourly(ST_JOHNS);
        // 10:15 NST: the hour 10:00 NST is 13:30Z
        period(hours, "2026-01-15T13:45:00Z", "2026-01-15T13:30:00Z", "2026-01-15T14:30:00Z");
        // spring: 01:00 NST is 04:30Z; 02:00 does not exist; 03:00 NDT is 05:30Z
        period(hours, "2026-03-08T05:29:59.999999999Z", "2026-03-08T04:30:00Z", "2026-03-08T05:30:00Z");
        period(hours, "2026-03-08T05:30:00Z", "2026-03-08T05:30:00Z", "2026-03-08T06:30:00Z");
        // autumn: 01:00 NDT (03:30Z) until 02:00 NST (05:30Z): the clock shows 01:xx twice
        period(hours, "2026-11-01T05:00:00Z", "2026-11-01T03:30:00Z", "2026-11-01T05:30:00Z");
        CalendarPeriods days = CalendarPeriods.daily(ST_JOHNS);
        period(days, "2026-01-15T12:00:00Z", "2026-01-15T03:30:00Z", "2026-01-16T03:30:00Z");
        period(days, "2026-03-08T12:00:00Z", "2026-03-08T03:30:00Z", "2026-03-09T02:30:00Z"); // 23 h
        period(days, "2026-11-01T12:00:00Z", "2026-11-01T02:30:00Z", "2026-11-02T03:30:00Z"); // 25 h
        period(CalendarPeriods.monthly(ST_JOHNS), "2026-11-15T00:00:00Z", "2026-11-01T02:30:00Z",
                "2026-12-01T03:30:00Z");
    }

    @Test
    void lordHoweHalfHourDaylightSaving() {
        CalendarPeriods days = CalendarPeriods.daily(LORD_HOWE);
        // 5 April: 00:00 +11 (4 April 13:00Z) to 6 April 00:00 +10:30 (5 April 13:30Z): 24 h 30 min
        period(days, "2026-04-05T00:00:00Z", "2026-04-04T13:00:00Z", "2026-04-05T13:30:00Z");
        assertThat(days.spanAt(nanos("2026-04-05T00:00:00Z")).lengthNanos()).isEqualTo(hours(24.5));
        // 4 October: 00:00 +10:30 (3 October 13:30Z) to 5 October 00:00 +11 (4 October 13:00Z): 23 h 30 min
        period(days, "2026-10-04T00:00:00Z", "2026-10-03T13:30:00Z", "2026-10-04T13:00:00Z");
        CalendarPeriods hours = CalendarPeriods.hourly(LORD_HOWE);
        // autumn: 01:00 +11 (14:00Z) until 02:00 +10:30 (15:30Z), the clock shows 01:30-02:00 twice: 90 min
        period(hours, "2026-04-04T15:10:00Z", "2026-04-04T14:00:00Z", "2026-04-04T15:30:00Z");
        // spring: 02:00 does not exist (the clock jumps to 02:30 +11 at 15:30Z): the hour 02:00 lasts 30 min
        period(hours, "2026-10-03T15:29:59.999999999Z", "2026-10-03T14:30:00Z", "2026-10-03T15:30:00Z");
        period(hours, "2026-10-03T15:45:00Z", "2026-10-03T15:30:00Z", "2026-10-03T16:00:00Z");
    }

    @Test
    void aDayWhoseMidnightDoesNotExistStartsAtTheFirstInstantThatExists() {
        CalendarPeriods beirut = CalendarPeriods.daily(ZoneId.of("Asia/Beirut"));
        period(beirut, "2026-03-28T12:00:00Z", "2026-03-27T22:00:00Z", "2026-03-28T22:00:00Z");
        // 29 March 00:00 +02 does not exist: the day starts at 01:00 +03 (22:00Z) and ends at 00:00 +03 (21:00Z)
        period(beirut, "2026-03-29T06:00:00Z", "2026-03-28T22:00:00Z", "2026-03-29T21:00:00Z");
        // Samoa skipped 30 December 2011: 29 December lasts until 31 December 00:00 +14, an empty day is never current
        CalendarPeriods apia = CalendarPeriods.daily(ZoneId.of("Pacific/Apia"));
        period(apia, "2011-12-30T09:59:59.999999999Z", "2011-12-29T10:00:00Z", "2011-12-30T10:00:00Z");
        period(apia, "2011-12-30T10:00:00Z", "2011-12-30T10:00:00Z", "2011-12-31T10:00:00Z");
    }

    @Test
    void monthsAnchoredOnThe31stAcrossALeapYear() {
        CalendarPeriods last = CalendarPeriods.monthly(UTC, 31);
        period(last, "2027-02-10T00:00:00Z", "2027-01-31T00:00:00Z", "2027-02-28T00:00:00Z"); // 28 days
        period(last, "2027-03-30T12:00:00Z", "2027-02-28T00:00:00Z", "2027-03-31T00:00:00Z"); // 31
        period(last, "2027-04-15T00:00:00Z", "2027-03-31T00:00:00Z", "2027-04-30T00:00:00Z"); // 30
        period(last, "2027-05-01T00:00:00Z", "2027-04-30T00:00:00Z", "2027-05-31T00:00:00Z"); // 31
        period(last, "2028-02-15T00:00:00Z", "2028-01-31T00:00:00Z", "2028-02-29T00:00:00Z"); // 29 (leap year)
        period(last, "2028-03-01T00:00:00Z", "2028-02-29T00:00:00Z", "2028-03-31T00:00:00Z"); // 31
        // anchors of 30 and 29: February's last day when it is shorter
        period(CalendarPeriods.monthly(UTC, 30), "2028-03-15T00:00:00Z", "2028-02-29T00:00:00Z",
                "2028-03-30T00:00:00Z");
        period(CalendarPeriods.monthly(UTC, 29), "2027-03-15T00:00:00Z", "2027-02-28T00:00:00Z",
                "2027-03-29T00:00:00Z");
        // the leap day, and a leap year of 366 days
        period(CalendarPeriods.daily(UTC), "2028-02-29T23:59:59.999999999Z", "2028-02-29T00:00:00Z",
                "2028-03-01T00:00:00Z");
        assertThat(CalendarPeriods.yearly(UTC).spanAt(nanos("2028-07-01T00:00:00Z")).lengthNanos())
                .isEqualTo(Duration.ofDays(366).toNanos());
        period(CalendarPeriods.quarterly(UTC), "2028-02-29T00:00:00Z", "2028-01-01T00:00:00Z",
                "2028-04-01T00:00:00Z");
    }

    @Test
    void theCurrentPeriodIsCachedSoAReadingInsideAllocatesNothing() {
        CalendarPeriods months = CalendarPeriods.monthly(ZoneId.of("Europe/Paris"), 15);
        CalendarSpan first = months.span(nanos("2026-03-20T00:00:00Z"));
        assertThat(months.span(nanos("2026-04-14T21:59:59.999999999Z"))).isSameAs(first);
        assertThat(months.spanAt(nanos("2026-06-01T00:00:00Z"))).isNotSameAs(first);
        assertThat(months.span(nanos("2026-03-16T00:00:00Z"))).as("spanAt left the cache alone").isSameAs(first);
        CalendarSpan next = months.span(nanos("2026-04-14T22:00:00Z"));
        assertThat(next.startNanos()).isEqualTo(first.endNanos());
        assertThat(months.span(nanos("2026-04-20T00:00:00Z"))).isSameAs(next);
        // one instance per calendar in the JVM: every band of it shares that cache
        assertThat(CalendarPeriods.of(CalendarPeriod.MONTH, ZoneId.of("Europe/Paris"), null, 15)).isSameAs(months);
    }

    @Test
    void periodsAreNamedByTheirLocalStart() {
        CalendarPeriods months = CalendarPeriods.monthly(BERLIN);
        CalendarSpan march = months.spanAt(nanos("2026-03-15T00:00:00Z"));
        // 2026-03-01T00:00 on the local time-line, whatever the offset
        assertThat(march.localStartSeconds()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z").getEpochSecond());
        assertThat(months.endNanosOf(march.localStartSeconds())).isEqualTo(march.endNanos());
        assertThat(months.nextLocalStartSeconds(march.localStartSeconds()))
                .isEqualTo(Instant.parse("2026-04-01T00:00:00Z").getEpochSecond());
    }

    @Test
    void idsAreCanonicalAndParseBack() {
        assertThat(CalendarPeriods.monthly(BERLIN, 31).id()).isEqualTo("period=month;zone=Europe/Berlin;anchor=31");
        assertThat(CalendarPeriods.monthly(BERLIN).id()).isEqualTo("period=month;zone=Europe/Berlin;anchor=1");
        assertThat(CalendarPeriods.weekly(UTC, DayOfWeek.SUNDAY).id())
                .isEqualTo("period=week;zone=UTC;week-start=sunday");
        assertThat(CalendarPeriods.daily(ST_JOHNS).id()).isEqualTo("period=day;zone=America/St_Johns");
        for (CalendarPeriods c : new CalendarPeriods[] {CalendarPeriods.monthly(BERLIN, 31),
            CalendarPeriods.weekly(UTC, DayOfWeek.SUNDAY), CalendarPeriods.hourly(LORD_HOWE),
            CalendarPeriods.quarterly(UTC), CalendarPeriods.yearly(ST_JOHNS)}) {
            assertThat(CalendarPeriods.parse(c.id())).isEqualTo(c);
        }
        assertThatThrownBy(() -> CalendarPeriods.parse("period=month;zone=UTC"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a calendar in its canonical form: 'period=month;zone=UTC'");
        assertThatThrownBy(() -> CalendarPeriods.parse("month@UTC")).hasMessage("not a calendar: 'month@UTC'");
    }

    @Test
    void badParametersAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> CalendarPeriods.zone("+02:00")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("zone must be an IANA time-zone id such as Europe/Berlin, or UTC, got '+02:00' (a fixed "
                        + "offset ignores the zone's daylight saving time: name the place, e.g. Europe/Berlin, or "
                        + "Etc/GMT-2 for a fixed UTC+2)");
        assertThatThrownBy(() -> CalendarPeriods.zone("UTC+2")).hasMessageContaining("got 'UTC+2' (a fixed offset");
        assertThatThrownBy(() -> CalendarPeriods.zone("europe/berlin"))
                .hasMessage("zone must be an IANA time-zone id such as Europe/Berlin, or UTC, got 'europe/berlin' "
                        + "(did you mean 'Europe/Berlin'?)");
        assertThatThrownBy(() -> CalendarPeriods.zone("Mars/Olympus"))
                .hasMessage("zone must be an IANA time-zone id such as Europe/Berlin, or UTC, got 'Mars/Olympus'");
        assertThatThrownBy(() -> CalendarPeriods.daily(ZoneId.of("+02:00"))).hasMessageContaining("got '+02:00'");
        assertThat(CalendarPeriods.zone("Etc/GMT-2")).isEqualTo(ZoneId.of("Etc/GMT-2"));
        assertThatThrownBy(() -> CalendarPeriods.monthly(UTC, 0))
                .hasMessage("anchor must be in [1, 31], got 0");
        assertThatThrownBy(() -> CalendarPeriods.monthly(UTC, 32))
                .hasMessage("anchor must be in [1, 31], got 32");
        assertThatThrownBy(() -> CalendarPeriods.of(CalendarPeriod.DAY, UTC, null, 31))
                .hasMessage("anchor applies to period month only, got 31 for period day");
        assertThatThrownBy(() -> CalendarPeriods.of(CalendarPeriod.MONTH, UTC, DayOfWeek.SUNDAY, null))
                .hasMessage("weekStart applies to period week only, got 'sunday' for period month");
        assertThatThrownBy(() -> CalendarPeriod.fromConfigName("fortnight"))
                .hasMessage("period must be one of hour, day, week, month, quarter, year, got 'fortnight'");
        assertThat(CalendarPeriod.fromConfigName(" Month ")).isEqualTo(CalendarPeriod.MONTH);
        assertThatThrownBy(() -> CalendarPeriods.weekStart("mon"))
                .hasMessage("week-start must be one of monday, tuesday, wednesday, thursday, friday, saturday, "
                        + "sunday, got 'mon'");
        assertThat(CalendarPeriods.weekStart("Sunday")).isEqualTo(DayOfWeek.SUNDAY);
    }
}
