package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarPeriods;
import io.gridlimit.micronaut.config.HeaderMode;
import io.gridlimit.time.TimeSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §5 header values and rounding. */
class RateLimitHeadersTest {
    /** A clock only a calendar band's {@code w} may read. */
    private static final TimeSource NEVER = () -> {
        throw new AssertionError("only a calendar band's w reads the clock");
    };

    private static TimeSource at(String instant) {
        Instant i = Instant.parse(instant);
        return () -> i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void windowOfACalendarBandIsTheLengthOfTheCurrentPeriod() {
        // docs/SPEC.md §5, §14: Berlin's 29 March lasts 23 h, 25 October 25 h; March there 31 days less an hour
        Band daily = Band.calendar("d", 5, CalendarPeriods.daily(ZoneId.of("Europe/Berlin")));
        assertThat(RateLimitHeaders.windowSeconds(daily, at("2026-03-29T12:00:00Z"))).isEqualTo(23 * 3600);
        assertThat(RateLimitHeaders.windowSeconds(daily, at("2026-10-25T12:00:00Z"))).isEqualTo(25 * 3600);
        assertThat(RateLimitHeaders.windowSeconds(daily, at("2026-01-15T12:00:00Z"))).isEqualTo(24 * 3600);
        Band monthly = Band.calendar("m", 5, CalendarPeriods.monthly(ZoneId.of("Europe/Berlin")));
        assertThat(RateLimitHeaders.windowSeconds(monthly, at("2026-03-15T00:00:00Z"))).isEqualTo(31 * 86_400 - 3600);
        // Lord Howe's hour of 30 minutes, a leap February anchored on the 31st
        assertThat(RateLimitHeaders.windowSeconds(Band.calendar("h", 5, CalendarPeriods.hourly(
                ZoneId.of("Australia/Lord_Howe"))), at("2026-10-03T15:45:00Z"))).isEqualTo(1800);
        assertThat(RateLimitHeaders.windowSeconds(Band.calendar("m", 5, CalendarPeriods.monthly(ZoneId.of("UTC"),
                31)), at("2028-02-10T00:00:00Z"))).isEqualTo(29 * 86_400);
        Policy api = Policy.builder("api").band(Band.tokenBucket("per-second", 10, 10, Duration.ofSeconds(1)))
                .band(monthly).build();
        assertThat(RateLimitHeaders.policyField(List.of(api), at("2026-03-15T00:00:00Z")))
                .isEqualTo("\"api/per-second\";q=10;w=1, \"api/m\";q=5;w=2674800");
    }

    @Test
    void aPolicysItemsAreComputedOnceButACalendarBandsWindowIsReadEachTime() {
        Policy bucket = Policy.builder("cached").tokenBucket(7, 7, Duration.ofSeconds(3)).build();
        assertThat(RateLimitHeaders.policyField(List.of(bucket), NEVER)).isEqualTo("\"cached\";q=7;w=3");
        assertThat(RateLimitHeaders.policyField(List.of(bucket), NEVER)).isEqualTo("\"cached\";q=7;w=3");
        // an equal policy (another version object) reads the same items; another quantity is another policy
        assertThat(RateLimitHeaders.policyField(List.of(Policy.builder("cached").tokenBucket(7, 7,
                Duration.ofSeconds(3)).build()), NEVER)).isEqualTo("\"cached\";q=7;w=3");
        assertThat(RateLimitHeaders.policyField(List.of(Policy.builder("cached").tokenBucket(8, 8,
                Duration.ofSeconds(3)).build()), NEVER)).isEqualTo("\"cached\";q=8;w=3");
        Policy daily = Policy.builder("daily").single(Band.calendar("daily", 5,
                CalendarPeriods.daily(ZoneId.of("Europe/Berlin")))).build();
        assertThat(RateLimitHeaders.policyField(List.of(daily), at("2026-03-29T12:00:00Z")))
                .isEqualTo("\"daily\";q=5;w=82800");
        assertThat(RateLimitHeaders.policyField(List.of(daily), at("2026-10-25T12:00:00Z")))
                .isEqualTo("\"daily\";q=5;w=90000");
        // several rules: each policy once, in rule order
        assertThat(RateLimitHeaders.policyField(List.of(bucket, daily, bucket), at("2026-01-15T12:00:00Z")))
                .isEqualTo("\"cached\";q=7;w=3, \"daily\";q=5;w=86400");
    }

    @Test
    void secondsRoundUpAndAreZeroOnlyForZero() {
        assertThat(RateLimitHeaders.ceilSeconds(0)).isZero();
        assertThat(RateLimitHeaders.ceilSeconds(1)).isEqualTo(1);
        assertThat(RateLimitHeaders.ceilSeconds(1_000_000_000L)).isEqualTo(1);
        assertThat(RateLimitHeaders.ceilSeconds(1_000_000_001L)).isEqualTo(2);
        assertThat(RateLimitHeaders.ceilSeconds(Long.MAX_VALUE)).isEqualTo(9_223_372_037L);
    }

    @Test
    void windowOfABucketIsTheTimeToRefillFromEmptyRoundedUp() {
        assertThat(RateLimitHeaders.windowSeconds(Band.tokenBucket("b", 20, 5, Duration.ofSeconds(1)), NEVER))
                .isEqualTo(4);
        assertThat(RateLimitHeaders.windowSeconds(Band.tokenBucket("b", 10, 3, Duration.ofSeconds(1)), NEVER))
                .isEqualTo(4);
        assertThat(RateLimitHeaders.windowSeconds(Band.gcra("b", 1, 1000, Duration.ofMillis(1)), NEVER)).isEqualTo(1);
        // C * P beyond 64 bits: 10^15 tokens, 365 days per token saturate at Long.MAX_VALUE ns
        assertThat(RateLimitHeaders.windowSeconds(Band.tokenBucket("b", Band.MAX_QUANTITY, 1, Duration.ofDays(365)),
                NEVER)).isEqualTo(9_223_372_037L);
        assertThat(RateLimitHeaders.windowSeconds(Band.fixedWindow("w", 5, Duration.ofMillis(1500)), NEVER))
                .isEqualTo(2);
        assertThat(RateLimitHeaders.windowSeconds(Band.slidingWindowLog("w", 5, Duration.ofHours(1)), NEVER))
                .isEqualTo(3600);
    }

    @Test
    void fieldsOfSingleAndCompositePolicies() {
        Policy demo = Policy.builder("demo").slidingWindowLog(5, Duration.ofSeconds(10)).build();
        Policy tiered = Policy.builder("tiered")
                .band(Band.gcra("burst", 10, 1, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("hourly", 1000, Duration.ofHours(1))).build();
        Map<String, String> out = new LinkedHashMap<>();
        Decision d = new Decision(true, 10, 9, 1_000_000_000L, Decision.NO_RETRY, "burst");
        RateLimitHeaders.write(HeaderMode.BOTH, List.of(demo, tiered, demo), tiered, d, NEVER, out);
        assertThat(out).containsExactly(
                Map.entry("RateLimit-Policy", "\"demo\";q=5;w=10, \"tiered/burst\";q=10;w=10, "
                        + "\"tiered/hourly\";q=1000;w=3600"),
                Map.entry("RateLimit", "\"tiered/burst\";r=9;t=1"),
                Map.entry("X-RateLimit-Limit", "10"),
                Map.entry("X-RateLimit-Remaining", "9"),
                Map.entry("X-RateLimit-Reset", "1"));

        Map<String, String> ietf = new LinkedHashMap<>();
        RateLimitHeaders.write(HeaderMode.IETF, List.of(demo), demo,
                new Decision(false, 5, 0, 10_000_000_001L, 10_000_000_001L, null), NEVER, ietf);
        assertThat(ietf).containsOnlyKeys("RateLimit-Policy", "RateLimit")
                .containsEntry("RateLimit", "\"demo\";r=0;t=11");
        Map<String, String> legacy = new LinkedHashMap<>();
        RateLimitHeaders.write(HeaderMode.LEGACY, List.of(demo), demo,
                new Decision(true, 5, 5, 0, Decision.NO_RETRY, null), NEVER, legacy);
        assertThat(legacy).containsExactly(Map.entry("X-RateLimit-Limit", "5"),
                Map.entry("X-RateLimit-Remaining", "5"), Map.entry("X-RateLimit-Reset", "0"));
    }
}
