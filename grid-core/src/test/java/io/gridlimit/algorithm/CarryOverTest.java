package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/SPEC.md §4 "Carry-over": every pair of algorithms, exact values. The old band has quota 10 per 20 s (bucket:
 * capacity 10, 10 tokens per 20 s), the new one quota 5 per 10 s (bucket: capacity 5, 5 tokens per 10 s), so every
 * pair changes the period or window (and most the algorithm). The key took 4 at {@code T} (1 s into an aligned 20 s
 * window), so 6 of 10 are left: carried at {@code T}, {@code floor(6·5/10) = 3} of 5 are left.
 */
class CarryOverTest {
    /** Aligned to 10 s and 20 s windows. */
    private static final long K = 54 * YEAR;
    private static final long T = K + S;
    private static final io.gridlimit.calendar.CalendarPeriods HOURS =
            io.gridlimit.calendar.CalendarPeriods.hourly(java.time.ZoneId.of("UTC"));
    private static final io.gridlimit.calendar.CalendarPeriods ETC_HOURS =
            io.gridlimit.calendar.CalendarPeriods.hourly(java.time.ZoneId.of("Etc/UTC"));

    private static Band band(Algorithm a, long quota, Duration period) {
        return switch (a) {
            case TOKEN_BUCKET -> Band.tokenBucket("p", quota, quota, period);
            case GCRA -> Band.gcra("p", quota, quota, period);
            case FIXED_WINDOW -> Band.fixedWindow("p", quota, period);
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog("p", quota, period);
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter("p", quota, period);
            // hours of UTC: T lies 1 s into one; the 10 s band names the zone otherwise, so its state is carried
            case CALENDAR -> Band.calendar("p", quota, period.getSeconds() == 20 ? HOURS : ETC_HOURS);
        };
    }

    private static Policy policy(Algorithm a, long quota, Duration period) {
        return Policy.builder("p").single(band(a, quota, period)).build();
    }

    static Stream<Arguments> pairs() {
        List<Arguments> out = new ArrayList<>();
        for (Algorithm from : Algorithm.values()) {
            for (Algorithm to : Algorithm.values()) {
                out.add(Arguments.of(from, to));
            }
        }
        return out.stream();
    }

    /** The new band's resetAfter once {@code remaining} are left at {@code now} (SPEC §3 of the new algorithm). */
    private static long resetAfter(Algorithm to, long remaining, long now) {
        long untilEnd = 10 * S - Math.floorMod(now, 10 * S);
        return switch (to) {
            case TOKEN_BUCKET, GCRA -> (5 - remaining) * 2 * S; // one token per 2 s
            case FIXED_WINDOW -> untilEnd;
            case SLIDING_WINDOW_COUNTER -> untilEnd + 10 * S;
            case SLIDING_WINDOW_LOG -> 10 * S + 1;
            case CALENDAR -> 3600 * S - Math.floorMod(now, 3600 * S);
        };
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pairs")
    void aChangeAtTheSameInstantCarriesTheShareLeft(Algorithm from, Algorithm to) {
        Policy old = policy(from, 10, Duration.ofSeconds(20));
        Policy next = policy(to, 5, Duration.ofSeconds(10));
        Key key = new Key(old);
        assertThat(key.take(4, T).remaining()).isEqualTo(6);

        assertThat(CarryOver.needed(key.state, next)).isTrue();
        LimiterState carried = CarryOver.carry(key.state, List.of(old), next, T);
        assertThat(MergeStates.fits(carried, next.bands().get(0))).isTrue();
        Key after = new Key(next);
        after.state = carried;
        // 3 of 5 left: one more leaves 2, and 3 more are then refused with what is left reported
        assertThat(after.take(1, T)).isEqualTo(allowed(5, 2, resetAfter(to, 2, T)));
        Decision refused = after.take(3, T);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pairs")
    void theOldBandIsReadAtTheReadingRefillAndWindowsIncluded(Algorithm from, Algorithm to) {
        Policy old = policy(from, 10, Duration.ofSeconds(20));
        Policy next = policy(to, 5, Duration.ofSeconds(10));
        Key key = new Key(old);
        key.take(4, T);
        long now = T + 5 * S;
        // buckets refill 10 per 20 s: 6 + 2.5 = 8.5, so 8 left, floor(8·5/10) = 4 of 5; windows still count 4: 6 left, 3
        long carriedLeft = from.isBucket() ? 4 : 3;
        Key after = new Key(next);
        after.state = CarryOver.carry(key.state, List.of(old), next, now);
        assertThat(after.take(1, now)).isEqualTo(allowed(5, carriedLeft - 1, resetAfter(to, carriedLeft - 1, now)));
    }

    @Test
    void aStateTheNewBandReadsIsLeftToTheSameShapeRules() {
        Policy old = policy(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(20));
        Policy bigger = policy(Algorithm.TOKEN_BUCKET, 50, Duration.ofSeconds(20));
        Key key = new Key(old);
        key.take(4, T);
        assertThat(CarryOver.needed(key.state, bigger)).isFalse();
        assertThat(CarryOver.carry(key.state, List.of(old), bigger, T)).isSameAs(key.state);
        assertThat(CarryOver.carry(null, List.of(old), bigger, T)).isNull();
    }

    @Test
    void theShareLeftRoundsDown() {
        Policy old = policy(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(20));
        Policy next = policy(Algorithm.FIXED_WINDOW, 3, Duration.ofSeconds(10));
        Key key = new Key(old);
        key.take(3, T); // 7 of 10 left: floor(7·3/10) = floor(2.1) = 2 of 3
        Key after = new Key(next);
        after.state = CarryOver.carry(key.state, List.of(old), next, T);
        assertThat(after.state).isEqualTo(new FixedWindowState(T, 1, 10 * S));
        assertThat(after.take(2, T)).isEqualTo(allowed(3, 0, 9 * S));
    }

    @Test
    void nothingUsedCarriesNoState() {
        Policy old = policy(Algorithm.TOKEN_BUCKET, 10, Duration.ofSeconds(20));
        Policy next = policy(Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
        Key key = new Key(old);
        key.take(1, T);
        // refilled to 10 of 10 by T + 2 s: the new band starts fresh, which is exactly its full quota
        assertThat(CarryOver.carry(key.state, List.of(old), next, T + 2 * S)).isNull();
    }

    @Test
    void aStateOfAnUnknownWriterIsCarriedAsFullyConsumed() {
        Policy old = policy(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(20));
        Policy next = policy(Algorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(10));
        Key key = new Key(old);
        key.take(1, T);
        Key after = new Key(next);
        // no earlier policy given that reads a 20 s fixed window: nothing left, refill from now (1 token per 2 s)
        after.state = CarryOver.carry(key.state, List.of(), next, T);
        assertThat(after.state).isEqualTo(new TokenBucketState(T, 0, 0, 10 * S));
        assertThat(after.take(1, T)).isEqualTo(denied(5, 0, 10 * S, 2 * S));
        assertThat(CarryOver.nanosUntilFresh(after.state, next, T)).isEqualTo(10 * S);
    }

    @Test
    void theNewestEarlierPolicyThatReadsTheStateIsUsed() {
        Policy v1 = policy(Algorithm.FIXED_WINDOW, 100, Duration.ofSeconds(20));
        Policy v2 = policy(Algorithm.FIXED_WINDOW, 10, Duration.ofSeconds(20));
        Policy v3 = policy(Algorithm.FIXED_WINDOW, 5, Duration.ofSeconds(10));
        Key key = new Key(v2);
        key.take(4, T); // under v2: 6 of 10 left (v1 would read it as 96 of 100)
        Key after = new Key(v3);
        after.state = CarryOver.carry(key.state, List.of(v2, v1), v3, T);
        assertThat(after.take(1, T).remaining()).as("floor(6·5/10) = 3 left, one taken").isEqualTo(2);
    }

    @Test
    void compositeBandsAreCarriedByName() {
        Policy old = Policy.builder("p")
                .band(Band.tokenBucket("burst", 10, 10, Duration.ofSeconds(20)))
                .band(Band.fixedWindow("daily", 100, Duration.ofDays(1)))
                .build();
        Policy next = Policy.builder("p")
                .band(Band.fixedWindow("burst", 5, Duration.ofSeconds(10)))
                .band(Band.fixedWindow("daily", 200, Duration.ofDays(1)))
                .band(Band.slidingWindowLog("minute", 30, Duration.ofMinutes(1)))
                .build();
        Key key = new Key(old);
        key.take(4, T);
        Key after = new Key(next);
        after.state = CarryOver.carry(key.state, List.of(old), next, T);
        CompositeState c = (CompositeState) after.state;
        // burst: 6 of 10 -> 3 of 5 (carried); daily: same shape, count 4 kept for the same-shape rule; minute: fresh
        assertThat(c.bandNames()).containsExactly("burst", "daily");
        assertThat(c.bandState("burst")).isEqualTo(new FixedWindowState(T, 2, 10 * S));
        assertThat(c.bandState("daily")).isSameAs(((CompositeState) key.state).bandState("daily"));
        // binding: the least remaining, burst's 2 (daily 200 - 5 = 195, minute 29)
        assertThat(after.take(1, T)).isEqualTo(new Decision(true, 5, 2, 9 * S, Decision.NO_RETRY, "burst"));
    }

    private static long left(LimiterState state, Policy policy, String band) {
        Band b = policy.bands().stream().filter(x -> x.name().equals(band)).findFirst().orElseThrow();
        return CarryOver.remainingAt(Composite.bandState(state, policy, b), b, T);
    }

    @Test
    void aSingleBandPolicyMadeCompositeNeverStartsFresh() {
        // before: the composite's bands had no stored state by name and started fresh: 10 + 5 in the burst's window
        Policy old = Policy.builder("p").fixedWindow(10, Duration.ofSeconds(20)).build();
        Policy next = Policy.builder("p")
                .band(Band.tokenBucket("burst", 5, 5, Duration.ofSeconds(10)))
                .band(Band.fixedWindow("daily", 100, Duration.ofDays(1)))
                .build();
        Key key = new Key(old);
        key.take(4, T); // 6 of 10 left
        assertThat(CarryOver.needed(key.state, next)).isTrue();
        LimiterState carried = CarryOver.carry(key.state, List.of(old), next, T);
        // every new band starts with the old band's share: burst floor(6·5/10) = 3, daily floor(6·100/10) = 60
        assertThat(left(carried, next, "burst")).isEqualTo(3);
        assertThat(left(carried, next, "daily")).isEqualTo(60);
    }

    @Test
    void aCompositeMadeSingleBandTakesTheSmallestShareItsBandsLeave() {
        Policy old = Policy.builder("p")
                .band(Band.fixedWindow("burst", 10, Duration.ofSeconds(20)))
                .band(Band.fixedWindow("daily", 100, Duration.ofDays(1)))
                .build();
        Policy next = Policy.builder("p").slidingWindowLog(5, Duration.ofSeconds(10)).build();
        Key key = new Key(old);
        key.take(4, T); // burst 6 of 10, daily 96 of 100
        assertThat(CarryOver.needed(key.state, next)).isTrue();
        LimiterState carried = CarryOver.carry(key.state, List.of(old), next, T);
        // min(floor(6·5/10) = 3, floor(96·5/100) = 4) = 3
        assertThat(left(carried, next, "p")).isEqualTo(3);
        // an unknown writer (no earlier policy reads it) is fully consumed
        assertThat(left(CarryOver.carry(key.state, List.of(), next, T), next, "p")).isZero();
    }

    @Test
    void aRenamedBandCarriesTheOldBandsShareAndANewBandBesideKeptOnesStaysFresh() {
        Policy old = Policy.builder("p").band(Band.fixedWindow("a", 10, Duration.ofSeconds(20))).build();
        Policy renamed = Policy.builder("p").band(Band.fixedWindow("b", 10, Duration.ofSeconds(20))).build();
        Key key = new Key(old);
        key.take(4, T);
        LimiterState carried = CarryOver.carry(key.state, List.of(old), renamed, T);
        assertThat(left(carried, renamed, "b")).as("6 left, not 10 fresh").isEqualTo(6);
        assertThat(((CompositeState) carried).bandNames()).containsExactly("b");
        // a band added beside the kept one: nothing is orphaned, so nothing is carried and the new band is fresh
        Policy added = Policy.builder("p").band(Band.fixedWindow("a", 10, Duration.ofSeconds(20)))
                .band(Band.fixedWindow("c", 50, Duration.ofDays(1))).build();
        assertThat(CarryOver.needed(key.state, added)).isFalse();
    }
}
