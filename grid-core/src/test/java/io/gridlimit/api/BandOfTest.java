package io.gridlimit.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.calendar.CalendarPeriods;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Band#of}, the one switch from an algorithm and its quantities to a band (SPEC §1, §3, §14): every algorithm
 * takes its own quantities, exactly as its own factory, and ignores the others; the refusals are its factory's, each
 * naming the parameter and the value.
 *
 * <p>Every call passes the ignored quantities too, with values no algorithm would accept (0, -1, a period of 1 ns, a
 * calendar on a bucket), so a test passes only if they are truly ignored.
 */
class BandOfTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MINUTE = Duration.ofMinutes(1);
    /** An out-of-range period: below 1 ms. */
    private static final Duration ONE_NANO = Duration.ofNanos(1);
    private static final CalendarPeriods BERLIN_MONTHS = CalendarPeriods.monthly(ZoneId.of("Europe/Berlin"), 1);

    @Test
    void aTokenBucketTakesCapacityRefillTokensAndRefillPeriodAndIgnoresTheRest() {
        Band b = Band.of("burst", Algorithm.TOKEN_BUCKET, 10, 2, SECOND, -1, ONE_NANO, BERLIN_MONTHS);

        assertThat(b).isEqualTo(Band.tokenBucket("burst", 10, 2, SECOND));
        assertThat(b.name()).isEqualTo("burst");
        assertThat(b.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(b.capacity()).isEqualTo(10);
        assertThat(b.refillTokens()).isEqualTo(2);
        assertThat(b.refillPeriodNanos()).isEqualTo(1_000_000_000L);
        assertThat(b.limit()).as("ignored").isZero();
        assertThat(b.windowNanos()).as("ignored").isZero();
        assertThat(b.calendar()).as("ignored").isNull();
        assertThat(b.quota()).isEqualTo(10);
        assertThat(b.maxDebt()).isEqualTo(10);
    }

    @Test
    void aGcraTakesTheTokenBucketsQuantities() {
        Band b = Band.of("meter", Algorithm.GCRA, 5, 1, Duration.ofMillis(200), 0, null, null);

        assertThat(b).isEqualTo(Band.gcra("meter", 5, 1, Duration.ofMillis(200)));
        assertThat(b.algorithm()).isEqualTo(Algorithm.GCRA);
        assertThat(b.capacity()).isEqualTo(5);
        assertThat(b.refillTokens()).isEqualTo(1);
        assertThat(b.refillPeriodNanos()).isEqualTo(200_000_000L);
        assertThat(b.limit()).isZero();
        assertThat(b.windowNanos()).isZero();
        assertThat(b.calendar()).isNull();
    }

    @Test
    void aFixedWindowTakesLimitAndWindowAndIgnoresTheRest() {
        Band b = Band.of("minute", Algorithm.FIXED_WINDOW, 0, -1, ONE_NANO, 100, MINUTE, BERLIN_MONTHS);

        assertThat(b).isEqualTo(Band.fixedWindow("minute", 100, MINUTE));
        assertThat(b.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
        assertThat(b.limit()).isEqualTo(100);
        assertThat(b.windowNanos()).isEqualTo(60_000_000_000L);
        assertThat(b.capacity()).as("ignored").isZero();
        assertThat(b.refillTokens()).as("ignored").isZero();
        assertThat(b.refillPeriodNanos()).as("ignored").isZero();
        assertThat(b.calendar()).as("ignored").isNull();
        assertThat(b.quota()).isEqualTo(100);
    }

    @Test
    void aSlidingWindowLogTakesLimitAndWindowWithItsLimitUpTo100000() {
        Band b = Band.of("log", Algorithm.SLIDING_WINDOW_LOG, 0, 0, null, 100_000, Duration.ofHours(1), null);

        assertThat(b).isEqualTo(Band.slidingWindowLog("log", 100_000, Duration.ofHours(1)));
        assertThat(b.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
        assertThat(b.limit()).isEqualTo(100_000);
        assertThat(b.windowNanos()).isEqualTo(3_600_000_000_000L);
        assertThat(b.capacity()).isZero();
        assertThat(b.calendar()).isNull();
    }

    @Test
    void aSlidingWindowCounterTakesLimitAndWindowUpTo10To15() {
        Band b = Band.of("counter", Algorithm.SLIDING_WINDOW_COUNTER, -1, -1, null, Band.MAX_QUANTITY,
                Duration.ofDays(365), BERLIN_MONTHS);

        assertThat(b).isEqualTo(Band.slidingWindowCounter("counter", 1_000_000_000_000_000L, Duration.ofDays(365)));
        assertThat(b.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_COUNTER);
        assertThat(b.limit()).isEqualTo(1_000_000_000_000_000L);
        assertThat(b.windowNanos()).isEqualTo(31_536_000_000_000_000L);
        assertThat(b.calendar()).isNull();
    }

    @Test
    void aCalendarBandTakesLimitAndCalendarAndIgnoresTheRest() {
        Band b = Band.of("monthly", Algorithm.CALENDAR, 0, 0, ONE_NANO, 10_000, ONE_NANO, BERLIN_MONTHS);

        assertThat(b).isEqualTo(Band.calendar("monthly", 10_000, BERLIN_MONTHS));
        assertThat(b.algorithm()).isEqualTo(Algorithm.CALENDAR);
        assertThat(b.limit()).isEqualTo(10_000);
        assertThat(b.calendar()).isEqualTo(BERLIN_MONTHS);
        assertThat(b.calendar().id()).isEqualTo("period=month;zone=Europe/Berlin;anchor=1");
        assertThat(b.windowNanos()).as("ignored: a calendar's periods vary").isZero();
        assertThat(b.capacity()).as("ignored").isZero();
        assertThat(b.refillPeriodNanos()).as("ignored").isZero();
        assertThat(b.quota()).isEqualTo(10_000);

        Band weekly = Band.of("weekly", Algorithm.CALENDAR, 0, 0, null, 7, null,
                CalendarPeriods.weekly(ZoneId.of("UTC"), DayOfWeek.SUNDAY));
        assertThat(weekly.calendar().id()).isEqualTo("period=week;zone=UTC;week-start=sunday");
        assertThat(weekly.limit()).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void everyAlgorithmIsHandledAndKeepsItsAlgorithm(Algorithm a) {
        Band b = Band.of("b", a, 3, 1, SECOND, 3, SECOND, BERLIN_MONTHS);

        assertThat(b.algorithm()).isEqualTo(a);
        assertThat(b.quota()).isEqualTo(3);
        assertThat(b.maxDebt()).isEqualTo(3);
    }

    @Test
    void aBucketsQuantitiesAreRefusedNamingTheParameterAndTheValue() {
        assertThatThrownBy(() -> Band.of("b", Algorithm.TOKEN_BUCKET, 0, 1, SECOND, 5, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> Band.of("b", Algorithm.GCRA, 1, 1_000_000_000_000_001L, SECOND, 5, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refillTokens must be in [1, 1000000000000000], got 1000000000000001");
        assertThatThrownBy(() -> Band.of("b", Algorithm.TOKEN_BUCKET, 1, 1, Duration.ofNanos(999_999), 5, SECOND,
                null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refillPeriod must be in [1ms, 365d], got PT0.000999999S");
        assertThatThrownBy(() -> Band.of("b", Algorithm.GCRA, 1, 1, Duration.ofDays(366), 5, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refillPeriod must be in [1ms, 365d], got PT8784H");
        assertThatThrownBy(() -> Band.of("b", Algorithm.TOKEN_BUCKET, 1, 1, null, 5, SECOND, null))
                .isInstanceOf(NullPointerException.class).hasMessage("refillPeriod");
    }

    @Test
    void aWindowsQuantitiesAreRefusedNamingTheParameterAndTheValue() {
        assertThatThrownBy(() -> Band.of("w", Algorithm.FIXED_WINDOW, 5, 5, SECOND, 0, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> Band.of("w", Algorithm.SLIDING_WINDOW_LOG, 0, 0, null, 100_001, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be in [1, 100000], got 100001");
        assertThatThrownBy(() -> Band.of("w", Algorithm.SLIDING_WINDOW_COUNTER, 0, 0, null, 5, Duration.ofMillis(0),
                null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be in [1ms, 365d], got PT0S");
        assertThatThrownBy(() -> Band.of("w", Algorithm.FIXED_WINDOW, 0, 0, SECOND, 5, null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("window");
    }

    @Test
    void aCalendarBandsLimitAndCalendarAreRefused() {
        assertThatThrownBy(() -> Band.of("c", Algorithm.CALENDAR, 0, 0, null, -3, null, BERLIN_MONTHS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be in [1, 1000000000000000], got -3");
        assertThatThrownBy(() -> Band.of("c", Algorithm.CALENDAR, 5, 5, SECOND, 5, SECOND, null))
                .as("a calendar band without its calendar, whatever else is given")
                .isInstanceOf(NullPointerException.class).hasMessage("calendar");
    }

    @Test
    void aMalformedNameOrNoAlgorithmIsRefused() {
        assertThatThrownBy(() -> Band.of("a b", Algorithm.FIXED_WINDOW, 0, 0, null, 5, SECOND, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must be 1 to 64 characters of [A-Za-z0-9._-], got 'a b'");
        assertThatThrownBy(() -> Band.of(null, Algorithm.TOKEN_BUCKET, 1, 1, SECOND, 0, null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> Band.of("b", null, 1, 1, SECOND, 1, SECOND, BERLIN_MONTHS))
                .isInstanceOf(NullPointerException.class).hasMessage("algorithm");
    }
}
