package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.calendar.CalendarPeriods;
import io.gridlimit.local.LocalRateLimiter;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Calendar bands' decisions worked by hand (docs/SPEC.md §14): the fixed-window rule over the zone's periods, exact
 * at every boundary (the last nanosecond of a period admits in that period, the next starts empty), a clock step
 * back, carry-over across zones and periods (§4), reservations (§10), members whose tz data differ, the local share
 * (§5) and leases (§13). The periods are those of {@code CalendarPeriodsTest}.
 */
class CalendarBandTest {
    private static final long MIN = 60 * S;
    private static final long HOUR = 60 * MIN;
    private static final long DAY = 24 * HOUR;
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static long at(String instant) {
        Instant i = Instant.parse(instant);
        return i.getEpochSecond() * S + i.getNano();
    }

    private static Policy calendar(long limit, CalendarPeriods periods) {
        return Policy.builder("p").calendar(limit, periods).build();
    }

    private static long local(String localStart) {
        return java.time.LocalDateTime.parse(localStart).toEpochSecond(java.time.ZoneOffset.UTC);
    }

    @Test
    void aMonthInBerlinIsExactAtEveryBoundary() {
        Key key = new Key(calendar(3, CalendarPeriods.monthly(BERLIN)));
        // February ends at 1 March 00:00 CET = 28 February 23:00Z: its last nanosecond admits in February
        assertThat(key.take(3, at("2026-02-28T22:59:59.999999999Z"))).isEqualTo(allowed(3, 0, 1));
        assertThat(key.last.ttlNanos()).isEqualTo(1);
        // March starts empty at its first nanosecond and ends at 1 April 00:00 CEST = 31 March 22:00Z: 31 d − 1 h
        assertThat(key.take(1, at("2026-02-28T23:00:00Z"))).isEqualTo(allowed(3, 2, 31 * DAY - HOUR));
        assertThat(key.take(1, at("2026-03-01T00:00:00Z"))).isEqualTo(allowed(3, 1, 30 * DAY + 22 * HOUR));
        assertThat(key.take(1, at("2026-03-31T21:59:59.999999999Z"))).isEqualTo(allowed(3, 0, 1));
        assertThat(key.take(1, at("2026-03-31T21:59:59.999999999Z"))).isEqualTo(denied(3, 0, 1, 1));
        assertThat(key.last.write()).isFalse();
        assertThat(key.take(4, at("2026-03-31T21:59:59.999999999Z"))).isEqualTo(denied(3, 0, 1, Decision.NO_RETRY));
        // April: 1 April 00:00 CEST to 1 May 00:00 CEST, 30 days
        assertThat(key.take(3, at("2026-03-31T22:00:00Z"))).isEqualTo(allowed(3, 0, 30 * DAY));
        assertThat(key.fresh(at("2026-04-30T21:59:59.999999999Z"))).isFalse();
        assertThat(key.fresh(at("2026-04-30T22:00:00Z"))).isTrue();
        Key other = new Key(key.policy);
        assertThat(other.take(4, at("2026-03-01T00:00:00Z"))).isEqualTo(denied(3, 3, 0, Decision.NO_RETRY));
    }

    @Test
    void daysOf23And25HoursInBerlin() {
        Policy daily = calendar(2, CalendarPeriods.daily(BERLIN));
        // 29 March 03:30 CEST: the day ends at 30 March 00:00 CEST = 29 March 22:00Z
        assertThat(new Key(daily).take(1, at("2026-03-29T01:30:00Z"))).isEqualTo(allowed(2, 1, 20 * HOUR + 30 * MIN));
        assertThat(new Key(daily).take(1, at("2026-03-28T23:00:00Z"))).isEqualTo(allowed(2, 1, 23 * HOUR));
        assertThat(new Key(daily).take(1, at("2026-10-24T22:00:00Z"))).isEqualTo(allowed(2, 1, 25 * HOUR));
    }

    @Test
    void hoursOfThirtyMinutesAndOfTwoHours() {
        // Lord Howe, 4 October: 02:00 does not exist, the hour 02:00 runs from 02:30 +11 (15:30Z) to 03:00 (16:00Z)
        Key lordHowe = new Key(calendar(1, CalendarPeriods.hourly(ZoneId.of("Australia/Lord_Howe"))));
        assertThat(lordHowe.take(1, at("2026-10-03T15:30:00Z"))).isEqualTo(allowed(1, 0, 30 * MIN));
        assertThat(lordHowe.take(1, at("2026-10-03T15:59:59.999999999Z"))).isEqualTo(denied(1, 0, 1, 1));
        assertThat(lordHowe.take(1, at("2026-10-03T16:00:00Z"))).isEqualTo(allowed(1, 0, HOUR));
        // Berlin, 25 October: the clock shows 02:xx twice, the hour 02:00 runs from 00:00Z to 02:00Z
        Key berlin = new Key(calendar(1, CalendarPeriods.hourly(BERLIN)));
        assertThat(berlin.take(1, at("2026-10-25T00:00:00Z"))).isEqualTo(allowed(1, 0, 2 * HOUR));
        assertThat(berlin.take(1, at("2026-10-25T01:59:59.999999999Z"))).isEqualTo(denied(1, 0, 1, 1));
        assertThat(berlin.take(1, at("2026-10-25T02:00:00Z"))).isEqualTo(allowed(1, 0, HOUR));
        // St. John's: the hour 10:00 NST is [13:30Z, 14:30Z)
        Key stJohns = new Key(calendar(1, CalendarPeriods.hourly(ZoneId.of("America/St_Johns"))));
        assertThat(stJohns.take(1, at("2026-01-15T13:30:00Z"))).isEqualTo(allowed(1, 0, HOUR));
        assertThat(stJohns.take(1, at("2026-01-15T14:29:59.999999999Z"))).isEqualTo(denied(1, 0, 1, 1));
        assertThat(stJohns.take(1, at("2026-01-15T14:30:00Z"))).isEqualTo(allowed(1, 0, HOUR));
    }

    @Test
    void monthsAnchoredOnThe31stAndALeapDay() {
        Key key = new Key(calendar(2, CalendarPeriods.monthly(UTC, 31)));
        // [31 January, 28 February) 2027, then [28 February, 31 March): 31 days
        assertThat(key.take(2, at("2027-02-27T23:59:59.999999999Z"))).isEqualTo(allowed(2, 0, 1));
        assertThat(key.take(2, at("2027-02-28T00:00:00Z"))).isEqualTo(allowed(2, 0, 31 * DAY));
        // 2028 is a leap year: [31 January, 29 February), then [29 February, 31 March)
        assertThat(key.take(1, at("2028-02-28T12:00:00Z"))).isEqualTo(allowed(2, 1, 12 * HOUR));
        assertThat(key.take(2, at("2028-02-28T23:59:59.999999999Z"))).isEqualTo(denied(2, 1, 1, 1));
        assertThat(key.take(1, at("2028-02-29T00:00:00Z"))).isEqualTo(allowed(2, 1, 31 * DAY));
    }

    @Test
    void aClockStepBackCarriesTheCountIntoTheReadingsPeriod() {
        CalendarPeriods days = CalendarPeriods.daily(UTC);
        Key key = new Key(calendar(3, days));
        assertThat(key.take(2, at("2026-01-02T00:00:01Z"))).isEqualTo(allowed(3, 1, DAY - S));
        // corrected back into 1 January: the count 2 comes along and expires with that day (docs/SPEC.md §2)
        assertThat(key.take(2, at("2026-01-01T23:00:00Z"))).isEqualTo(denied(3, 1, HOUR, HOUR));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(HOUR);
        assertThat(key.state).isEqualTo(new CalendarState(at("2026-01-01T23:00:00Z"), local("2026-01-01T00:00"),
                at("2026-01-01T00:00:00Z"), at("2026-01-02T00:00:00Z"), at("2026-01-02T00:00:00Z"), 2, 0, days.id()));
        assertThat(key.take(1, at("2026-01-01T23:00:00Z"))).isEqualTo(allowed(3, 0, HOUR));
        assertThat(key.take(3, at("2026-01-02T00:00:00Z"))).isEqualTo(allowed(3, 0, DAY));
    }

    @Test
    void movingFromUtcToTokyoKeepsTheCountForTheOverlappingPeriod() {
        Policy utc = calendar(10, CalendarPeriods.monthly(UTC));
        Policy tokyo = calendar(10, CalendarPeriods.monthly(ZoneId.of("Asia/Tokyo")));
        Key key = new Key(utc);
        key.take(4, at("2026-03-20T00:00:00Z"));
        // 31 March 16:00Z is still March in UTC, already 1 April 01:00 in Tokyo: the 4 taken in UTC's March count
        // in Tokyo's April, which ends at 1 May 00:00 JST = 30 April 15:00Z (the share left never grows, §4)
        long t = at("2026-03-31T16:00:00Z");
        assertThat(CarryOver.needed(key.state, tokyo)).isTrue();
        Key moved = new Key(tokyo);
        moved.state = CarryOver.carry(key.state, List.of(utc), tokyo, t);
        assertThat(moved.take(1, t)).isEqualTo(allowed(10, 5, 29 * DAY + 23 * HOUR));
        // a month made a day: 150 of 300 left gives floor(150 · 10 / 300) = 5 of 10 for the rest of today
        Policy month = calendar(300, CalendarPeriods.monthly(UTC));
        Policy day = calendar(10, CalendarPeriods.daily(UTC));
        Key monthly = new Key(month);
        monthly.take(150, at("2026-03-20T00:00:00Z"));
        Key daily = new Key(day);
        daily.state = CarryOver.carry(monthly.state, List.of(month), day, at("2026-03-20T18:00:00Z"));
        assertThat(daily.take(1, at("2026-03-20T18:00:00Z"))).isEqualTo(allowed(10, 4, 6 * HOUR));
        assertThat(daily.take(1, at("2026-03-21T00:00:00Z"))).isEqualTo(allowed(10, 9, DAY));
    }

    @Test
    void aReservationHoldsUntilItsPeriodEndsAndSettlesWithinIt() {
        Policy p = calendar(10, CalendarPeriods.monthly(BERLIN));
        long t0 = at("2026-03-31T21:00:00Z");
        Outcome reserved = RateLimitAlgorithms.reserve(null, p, "k", 4, t0, new Random(1));
        assertThat(reserved.decision()).isEqualTo(allowed(10, 6, HOUR).withReservation(
                reserved.decision().reservation()));
        Reservation r = reserved.decision().reservation();
        assertThat(r.expiresAtNanos()).as("the hold H: until the end of t0's period").isEqualTo(t0 + HOUR);
        assertThat(r.bands()).containsExactly(new Reservation.BandShape("p", io.gridlimit.api.Algorithm.CALENDAR, 0,
                "period=month;zone=Europe/Berlin;anchor=1"));
        SettleOutcome settled = RateLimitAlgorithms.settle(reserved.state(), p, "k", r, 1, t0 + 30 * MIN);
        assertThat(settled.settlement()).isEqualTo(new Settlement(Settlement.Status.SETTLED, 1, 0, false));
        assertThat(RateLimitAlgorithms.apply(settled.state(), p, 1, t0 + 30 * MIN).decision())
                .isEqualTo(allowed(10, 8, 30 * MIN));
        assertThat(RateLimitAlgorithms.settle(reserved.state(), p, "k", r, 1, t0 + HOUR).settlement().status())
                .isEqualTo(Settlement.Status.EXPIRED);
        // a charge beyond the reservation goes into debt (up to L + D − count = 16) and binds until April
        SettleOutcome charged = RateLimitAlgorithms.settle(reserved.state(), p, "k", r, 14, t0);
        assertThat(charged.settlement()).isEqualTo(new Settlement(Settlement.Status.SETTLED, 14, 0, true));
        assertThat(RateLimitAlgorithms.apply(charged.state(), p, 1, t0).decision()).isEqualTo(denied(10, 0, HOUR,
                HOUR));
    }

    @Test
    void aMemberWhoseRulesEndThePeriodLaterNeverOverAdmitsInEitherView() {
        CalendarPeriods months = CalendarPeriods.monthly(BERLIN);
        Policy p = calendar(3, months);
        // written by a member whose tz data end March one hour later than ours (at 23:00Z, ours 22:00Z)
        Key key = new Key(p);
        key.state = new CalendarState(at("2026-03-31T21:00:00Z"), local("2026-03-01T00:00"),
                at("2026-02-28T23:00:00Z"), at("2026-03-31T23:00:00Z"), at("2026-03-31T23:00:00Z"), 2, 0, months.id());
        // 22:30Z is April here, still March there: the count is March's until 23:00Z; what is taken now counts for
        // April too (our April already holds it), so April starts with it
        long t = at("2026-03-31T22:30:00Z");
        long untilEndOfApril = at("2026-04-30T22:00:00Z") - t;
        assertThat(key.take(1, t)).isEqualTo(allowed(3, 0, untilEndOfApril));
        assertThat(key.take(1, t)).isEqualTo(denied(3, 0, untilEndOfApril, 30 * MIN));
        assertThat(key.take(2, at("2026-03-31T23:00:00Z"))).isEqualTo(allowed(3, 0, 30 * DAY - HOUR));
        assertThat(key.take(1, at("2026-03-31T23:00:00Z")).allowed()).isFalse();
    }

    @Test
    void aMemberWhoseRulesEndThePeriodEarlierNeverOverAdmitsInEitherView() {
        CalendarPeriods months = CalendarPeriods.monthly(BERLIN);
        Policy p = calendar(3, months);
        // written by a member whose tz data end March one hour earlier than ours (at 21:00Z, ours 22:00Z)
        Key key = new Key(p);
        key.state = new CalendarState(at("2026-03-31T20:00:00Z"), local("2026-03-01T00:00"),
                at("2026-02-28T23:00:00Z"), at("2026-03-31T21:00:00Z"), at("2026-03-31T21:00:00Z"), 2, 0, months.id());
        // 21:30Z is still March here, April there: the count is March's until our end; what is taken now is in
        // their April, so April (from 22:00Z) starts with it
        long t = at("2026-03-31T21:30:00Z");
        assertThat(key.take(1, t)).isEqualTo(allowed(3, 0, at("2026-04-30T22:00:00Z") - t));
        assertThat(((CalendarState) key.state).nextCount()).isEqualTo(1);
        assertThat(key.take(2, at("2026-03-31T22:00:00Z"))).isEqualTo(allowed(3, 0, 30 * DAY));
        assertThat(key.take(1, at("2026-03-31T22:00:00Z")).allowed()).isFalse();
    }

    @Test
    void aCompositeOfABurstAndAMonthBindsOnTheMonth() {
        Policy p = Policy.builder("api")
                .band(Band.tokenBucket("per-second", 10, 10, Duration.ofSeconds(1)))
                .band(Band.calendar("per-month", 5, CalendarPeriods.monthly(BERLIN)))
                .build();
        Key key = new Key(p);
        long t = at("2026-03-15T10:00:00.5Z");
        long untilApril = at("2026-03-31T22:00:00Z") - t;
        for (int i = 1; i <= 5; i++) {
            assertThat(key.take(1, t)).isEqualTo(new Decision(true, 5, 5 - i, untilApril, Decision.NO_RETRY,
                    "per-month"));
        }
        assertThat(key.take(1, t)).isEqualTo(new Decision(false, 5, 0, untilApril, untilApril, "per-month"));
        assertThat(key.take(1, at("2026-03-31T22:00:00Z")).allowed()).isTrue();
    }

    @Test
    void twoSidesOfASplitMergeToTheMoreConsumed() {
        CalendarPeriods days = CalendarPeriods.daily(UTC);
        Policy p = calendar(10, days);
        long t = at("2026-01-01T12:00:00Z");
        LimiterState a = RateLimitAlgorithms.apply(null, p, 3, t).state();
        LimiterState b = RateLimitAlgorithms.apply(null, p, 5, t + S).state();
        LimiterState yesterday = RateLimitAlgorithms.apply(null, p, 9, t - DAY).state();
        assertThat(RateLimitAlgorithms.apply(MergeStates.moreConsumed(a, b, p), p, 1, t + S).decision())
                .isEqualTo(allowed(10, 4, 12 * HOUR - S));
        assertThat(RateLimitAlgorithms.apply(MergeStates.moreConsumed(yesterday, a, p), p, 1, t).decision())
                .as("yesterday's count is over").isEqualTo(allowed(10, 6, 12 * HOUR));
        assertThat(MergeStates.moreConsumed(a, b, null)).isEqualTo(MergeStates.moreConsumed(a, b, p));
    }

    @Test
    void theLocalShareDividesTheLimitOverTheSamePeriodsAndCalendarBandsAreNeverLeased() {
        CalendarPeriods months = CalendarPeriods.monthly(BERLIN, 31);
        Policy p = Policy.builder("api")
                .band(Band.tokenBucket("per-second", 10, 10, Duration.ofSeconds(1)))
                .band(Band.calendar("per-month", 10_000, months))
                .build();
        Policy share = LocalRateLimiter.share(p, 3).orElseThrow();
        assertThat(share.bands().get(1)).isEqualTo(Band.calendar("per-month", 3_333, months));
        assertThat(LocalRateLimiter.share(calendar(2, months), 3)).as("floor(2/3) = 0: no share").isEmpty();
        assertThat(RateLimitAlgorithms.leasable(p)).isFalse();
        assertThat(RateLimitAlgorithms.leasable(calendar(5, months))).isFalse();
    }
}
