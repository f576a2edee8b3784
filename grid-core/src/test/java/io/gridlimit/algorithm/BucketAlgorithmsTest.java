package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.DAY;
import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exact values for the token bucket and GCRA: every body runs against both, with the same expected values
 * (SPEC §3: "GCRA and the token bucket with the same parameters give identical decisions").
 */
class BucketAlgorithmsTest {
    /** A reading well away from epoch 0 (2023-11-14T22:13:20Z). */
    private static final long T0 = 1_700_000_000L * S;

    static Policy bucket(Algorithm algorithm, long capacity, long refillTokens, long refillPeriodNanos) {
        Policy.Builder b = Policy.builder("p");
        Duration period = Duration.ofNanos(refillPeriodNanos);
        return algorithm == Algorithm.GCRA ? b.gcra(capacity, refillTokens, period).build()
                : b.tokenBucket(capacity, refillTokens, period).build();
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void seed002BurstRefillAndCap(Algorithm algorithm) {
        // no sleeping (docs/SPEC.md §2-3): capacity 3, 1 token per second, time injected.
        Key key = new Key(bucket(algorithm, 3, 1, S));
        long now = 0;
        assertThat(key.take(now)).isEqualTo(allowed(3, 2, S));
        assertThat(key.take(now)).isEqualTo(allowed(3, 1, 2 * S));
        assertThat(key.take(now)).isEqualTo(allowed(3, 0, 3 * S));
        assertThat(key.take(now)).isEqualTo(denied(3, 0, 3 * S, S));
        assertThat(key.last.write()).isFalse();

        now += S;
        assertThat(key.take(now)).isEqualTo(allowed(3, 0, 3 * S));
        assertThat(key.take(now)).isEqualTo(denied(3, 0, 3 * S, S));

        now += 10 * S;
        assertThat(key.take(now)).isEqualTo(allowed(3, 2, S));
        assertThat(key.take(now)).isEqualTo(allowed(3, 1, 2 * S));
        assertThat(key.take(now)).isEqualTo(allowed(3, 0, 3 * S));
        assertThat(key.take(now)).isEqualTo(denied(3, 0, 3 * S, S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void oneTokenPerSevenSeconds(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 2, 1, 7 * S));
        assertThat(key.take(T0)).isEqualTo(allowed(2, 1, 7 * S));
        assertThat(key.take(T0)).isEqualTo(allowed(2, 0, 14 * S));
        assertThat(key.take(T0)).isEqualTo(denied(2, 0, 14 * S, 7 * S));
        // 3 s later: 3/7 token; the rest of the token takes 4 s, a full bucket 11 s.
        assertThat(key.take(T0 + 3 * S)).isEqualTo(denied(2, 0, 11 * S, 4 * S));
        assertThat(key.take(T0 + 7 * S - 1)).isEqualTo(denied(2, 0, 7 * S + 1, 1));
        assertThat(key.take(T0 + 7 * S)).isEqualTo(allowed(2, 0, 14 * S));
        // cost 2 after 10 s: 10/7 tokens; 2 tokens at 14 s, i.e. 4 s later
        assertThat(key.take(2, T0 + 17 * S)).isEqualTo(denied(2, 1, 4 * S, 4 * S));
        assertThat(key.take(3, T0 + 17 * S)).isEqualTo(denied(2, 1, 4 * S, Decision.NO_RETRY));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void fivePerThreeSeconds(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 5, 5, 3 * S));
        assertThat(key.take(5, T0)).isEqualTo(allowed(5, 0, 3 * S));
        assertThat(key.take(T0)).isEqualTo(denied(5, 0, 3 * S, 600_000_000L));
        // 1 s: 5/3 tokens -> remaining 1; take 1 -> 2/3 left: full after (13/3)·0.6 s = 2.6 s
        assertThat(key.take(T0 + S)).isEqualTo(allowed(5, 0, 2_600_000_000L));
        assertThat(key.take(T0 + S)).isEqualTo(denied(5, 0, 2_600_000_000L, 200_000_000L));
        assertThat(key.take(T0 + S + 199_999_999L)).isEqualTo(denied(5, 0, 2_400_000_001L, 1));
        assertThat(key.take(T0 + S + 200_000_000L)).isEqualTo(allowed(5, 0, 3 * S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void retryAfterIsRoundedUpToTheWholeNanosecond(Algorithm algorithm) {
        // 3 tokens per second: one token every 333 333 333.33 ns
        Key key = new Key(bucket(algorithm, 2, 3, S));
        assertThat(key.take(2, T0)).isEqualTo(allowed(2, 0, 666_666_667L));
        assertThat(key.take(T0)).isEqualTo(denied(2, 0, 666_666_667L, 333_333_334L));
        assertThat(key.take(T0 + 333_333_333L)).isEqualTo(denied(2, 0, 333_333_334L, 1));
        // 1.000000002 tokens: the 2·10^-9 token left over is kept exactly
        assertThat(key.take(T0 + 333_333_334L)).isEqualTo(allowed(2, 0, 666_666_666L));
        // so the next token is due at T0 + 666 666 667 (not 666 666 668)
        assertThat(key.take(T0 + 666_666_666L)).isEqualTo(denied(2, 0, 333_333_334L, 1));
        assertThat(key.take(T0 + 666_666_667L)).isEqualTo(allowed(2, 0, 666_666_667L));
        // a full bucket drops the excess: capacity 2 at T0 + 10 s, empty after 2, due again 333 333 334 ns later
        assertThat(key.take(2, T0 + 10 * S)).isEqualTo(allowed(2, 0, 666_666_667L));
        assertThat(key.take(T0 + 10 * S)).isEqualTo(denied(2, 0, 666_666_667L, 333_333_334L));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void hugeCapacityAndYearLongPeriod(Algorithm algorithm) {
        long capacity = 1_000_000_000_000_000L;
        Key key = new Key(bucket(algorithm, capacity, 1, YEAR));
        // (C − 0)·P / R = 10^15 years: resetAfter and TTL saturate
        assertThat(key.take(capacity, T0)).isEqualTo(allowed(capacity, 0, Long.MAX_VALUE));
        assertThat(key.last.ttlNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(key.take(T0)).isEqualTo(denied(capacity, 0, Long.MAX_VALUE, YEAR));
        // 292 years fit in 2^63 ns, 293 do not: unsatisfiable
        assertThat(key.take(292, T0).retryAfterNanos()).isEqualTo(292 * YEAR);
        assertThat(key.take(293, T0)).isEqualTo(denied(capacity, 0, Long.MAX_VALUE, Decision.NO_RETRY));
        // a full refill would take 10^15 years: it can never pass
        assertThat(key.take(capacity, T0)).isEqualTo(denied(capacity, 0, Long.MAX_VALUE, Decision.NO_RETRY));
        // an idle gap of 100 years (of 365 days) refills exactly 100 tokens
        assertThat(key.take(T0 + 100 * YEAR)).isEqualTo(allowed(capacity, 99, Long.MAX_VALUE));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void hugeRateNeedsMoreThan64BitsForElapsedTimesRate(Algorithm algorithm) {
        long capacity = 1_000_000_000_000_000L;
        Key key = new Key(bucket(algorithm, capacity, capacity, YEAR));
        assertThat(key.take(capacity, T0)).isEqualTo(allowed(capacity, 0, YEAR));
        // one day refills 10^15/365 = 2 739 726 027 397.26 tokens; full again 364 days later
        long oneDayTokens = 2_739_726_027_397L;
        assertThat(key.take(capacity, T0 + DAY)).isEqualTo(denied(capacity, oneDayTokens, 364 * DAY,
                364 * DAY));
        assertThat(key.take(oneDayTokens, T0 + DAY)).isEqualTo(allowed(capacity, 0, YEAR - 8));
        // 100 years idle: e·R = 3.15·10^33 overflows 64 bits; the bucket is simply full
        assertThat(key.take(T0 + DAY + 100 * YEAR)).isEqualTo(allowed(capacity, capacity - 1, 32));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void costAboveCapacityNeverPassesAndWritesNothing(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 3, 1, S));
        assertThat(key.take(4, T0)).isEqualTo(denied(3, 3, 0, Decision.NO_RETRY));
        assertThat(key.last.write()).isFalse();
        assertThat(key.state).isNull();
        assertThat(key.take(3, T0)).isEqualTo(allowed(3, 0, 3 * S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void clockStepBackRebasesWithoutFreezingOrFreeingCapacity(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 3, 1, S));
        key.take(3, T0 + 10 * S);
        LimiterState drained = key.state;
        // the clock is corrected 5 s back: the bucket is still empty, and refills from the corrected time on
        assertThat(key.take(T0 + 5 * S)).isEqualTo(denied(3, 0, 3 * S, S));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(3 * S);
        assertThat(key.state.lastNanos()).isEqualTo(T0 + 5 * S);
        assertThat(key.state).isNotEqualTo(drained);
        // not frozen until T0 + 10 s: one token 1 s after the corrected reading
        assertThat(key.take(T0 + 6 * S - 1)).isEqualTo(denied(3, 0, 2 * S + 1, 1));
        assertThat(key.take(T0 + 6 * S)).isEqualTo(allowed(3, 0, 3 * S));
        // a half-refilled bucket keeps its half token across a step back
        Key half = new Key(bucket(algorithm, 3, 1, S));
        half.take(3, T0);
        half.take(T0 + 1_500_000_000L); // 1.5 tokens: takes 1, leaves 0.5
        assertThat(half.take(T0 + S)).isEqualTo(denied(3, 0, 2_500_000_000L, 500_000_000L));
        assertThat(half.take(T0 + S + 500_000_000L)).isEqualTo(allowed(3, 0, 3 * S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void stepBackOnAFullBucketChangesNothingVisible(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 3, 1, S));
        key.take(T0 + 10 * S);
        key.take(T0 + 20 * S); // full again, minus one
        assertThat(key.take(T0)).isEqualTo(allowed(3, 1, 2 * S));
        assertThat(key.fresh(T0 + 2 * S - 1)).isFalse();
        assertThat(key.fresh(T0 + 2 * S)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void policyChangeClampsCapacityAndCreditsTheNewRate(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 10, 1, S));
        key.take(2, T0); // 8 left
        key.policy = bucket(algorithm, 4, 1, S);
        // clamped to 4, take 1 -> 3
        assertThat(key.take(T0)).isEqualTo(allowed(4, 3, S));
        key.take(3, T0); // empty
        key.policy = bucket(algorithm, 4, 2, S);
        // 1 s since the last write, credited at the new rate: 2 tokens
        assertThat(key.take(T0 + S)).isEqualTo(allowed(4, 1, 1_500_000_000L));
        // a higher capacity keeps the level: 1 token, then refills to 12 at 2 tokens/s
        key.policy = bucket(algorithm, 12, 2, S);
        assertThat(key.take(T0 + S)).isEqualTo(allowed(12, 0, 6 * S));
        // a changed refill period starts the key fresh
        key.policy = bucket(algorithm, 12, 2, 2 * S);
        assertThat(key.fresh(T0 + S)).isTrue();
        assertThat(key.take(T0 + S)).isEqualTo(allowed(12, 11, S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void ttlIsTheTimeUntilFull(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 5, 5, 3 * S));
        key.take(2, T0);
        assertThat(key.last.ttlNanos()).isEqualTo(1_200_000_000L);
        assertThat(key.fresh(T0 + 1_199_999_999L)).isFalse();
        assertThat(key.fresh(T0 + 1_200_000_000L)).isTrue();
        assertThat(RateLimitAlgorithms.isFresh(null, key.policy, T0)).isTrue();
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void otherAlgorithmsStateStartsFresh(Algorithm algorithm) {
        Key key = new Key(bucket(algorithm, 3, 1, S));
        key.state = new FixedWindowState(T0, 100, S);
        assertThat(key.fresh(T0)).isTrue();
        assertThat(key.take(T0)).isEqualTo(allowed(3, 2, S));
    }
}
