package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Composite policies (SPEC §4): all or none, the binding band, band states kept by name. */
class CompositeTest {
    /** A window start for 10 s and 1 s windows. */
    private static final long K = 54 * YEAR;
    private static final long NO = Decision.NO_RETRY;

    private static Band burst() {
        return Band.tokenBucket("burst", 2, 1, Duration.ofSeconds(1));
    }

    private static Band window() {
        return Band.fixedWindow("window", 3, Duration.ofSeconds(10));
    }

    private static Policy tiers(Band... bands) {
        Policy.Builder b = Policy.builder("tiers");
        for (Band band : bands) {
            b.band(band);
        }
        return b.build();
    }

    private static Decision d(boolean allowed, long limit, long remaining, long resetAfterNanos, long retryAfterNanos,
                              String band) {
        return new Decision(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band);
    }

    @Test
    void admitsOnlyWhenEveryBandAdmitsAndReportsTheBindingBand() {
        Key key = new Key(tiers(burst(), window()));
        assertThat(key.take(K)).isEqualTo(d(true, 2, 1, S, NO, "burst"));
        assertThat(key.last.ttlNanos()).isEqualTo(10 * S); // the longest band TTL
        assertThat(key.take(K)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        // the window would admit, the burst denies: nothing is consumed, nothing written
        LimiterState before = key.state;
        assertThat(key.take(K)).isEqualTo(d(false, 2, 0, 2 * S, S, "burst"));
        assertThat(key.last.write()).isFalse();
        assertThat(key.last.state()).isSameAs(before);
        // both at 0 remaining: the nearest reset binds (burst 2 s, window 9 s)
        assertThat(key.take(K + S)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        // now the window denies while the burst (2 tokens again) would admit
        assertThat(key.take(K + 3 * S)).isEqualTo(d(false, 3, 0, 7 * S, 7 * S, "window"));
        assertThat(key.last.write()).isFalse();
        CompositeState s = (CompositeState) key.state;
        assertThat(s.bandNames()).containsExactly("burst", "window");
        assertThat(s.bandState("burst")).isEqualTo(new TokenBucketState(K + S, 0, 0, S));
        assertThat(s.bandState("window")).isEqualTo(new FixedWindowState(K + S, 3, 10 * S));
        assertThat(s.lastNanos()).isEqualTo(K + S);
    }

    @Test
    void aBandThatCanNeverPassBindsBeforeLongerRetries() {
        Key key = new Key(tiers(window(), burst()));
        assertThat(key.take(2, K)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        // the window denies with a 10 s retry, but the burst can never take 3: it binds, though declared second
        assertThat(key.take(3, K)).isEqualTo(d(false, 2, 0, 2 * S, NO, "burst"));
        // two bands that never pass: the first declared binds
        Key both = new Key(tiers(Band.fixedWindow("a", 1, Duration.ofSeconds(1)),
                Band.fixedWindow("b", 2, Duration.ofSeconds(1))));
        assertThat(both.take(3, K)).isEqualTo(d(false, 1, 1, 0, NO, "a"));
    }

    @Test
    void longestRetryBindsAndTheFirstDeclaredAmongEquals() {
        Key key = new Key(tiers(Band.tokenBucket("fast", 1, 1, Duration.ofSeconds(1)),
                Band.tokenBucket("slow", 1, 1, Duration.ofSeconds(2))));
        assertThat(key.take(K)).isEqualTo(d(true, 1, 0, S, NO, "fast")); // equal remaining, nearest reset
        assertThat(key.take(K)).isEqualTo(d(false, 1, 0, 2 * S, 2 * S, "slow"));

        Key equal = new Key(tiers(Band.tokenBucket("b1", 1, 1, Duration.ofSeconds(1)),
                Band.fixedWindow("b2", 1, Duration.ofSeconds(1))));
        assertThat(equal.take(K)).isEqualTo(d(true, 1, 0, S, NO, "b1")); // equal remaining and reset
        assertThat(equal.take(K)).isEqualTo(d(false, 1, 0, S, S, "b1"));
    }

    @Test
    void smallestRemainingBindsWhenAdmitted() {
        Key key = new Key(tiers(Band.tokenBucket("big", 10, 1, Duration.ofSeconds(1)),
                Band.slidingWindowLog("small", 3, Duration.ofSeconds(10))));
        assertThat(key.take(K)).isEqualTo(d(true, 3, 2, 10 * S + 1, NO, "small"));
    }

    @Test
    void aRebaseInAnyBandIsWrittenByADenial() {
        Key key = new Key(tiers(burst(), window()));
        key.take(2, K + 12 * S);
        assertThat(key.take(K + 5 * S)).isEqualTo(d(false, 2, 0, 2 * S, S, "burst"));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(5 * S);
        CompositeState s = (CompositeState) key.state;
        assertThat(s.bandState("burst")).isEqualTo(new TokenBucketState(K + 5 * S, 0, 0, S));
        assertThat(s.bandState("window")).isEqualTo(new FixedWindowState(K + 5 * S, 2, 10 * S));
        assertThat(key.take(K + 6 * S)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        assertThat(key.take(K + 8 * S)).isEqualTo(d(false, 3, 0, 2 * S, 2 * S, "window"));
    }

    @Test
    void policyChangeKeepsMatchingBandsByName() {
        Key key = new Key(tiers(burst(), window()));
        key.take(2, K); // burst empty, window 2
        Band daily = Band.fixedWindow("daily", 100, Duration.ofDays(1));
        key.policy = tiers(daily, window(), burst());
        assertThat(key.take(K)).isEqualTo(d(false, 2, 0, 2 * S, S, "burst"));
        // burst and window both at 0: the burst's reset (2 s) is nearer than the window's (9 s)
        assertThat(key.take(K + S)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        CompositeState s = (CompositeState) key.state;
        assertThat(s.bandNames()).containsExactly("daily", "window", "burst");
        assertThat(s.bandState("daily")).isEqualTo(new FixedWindowState(K + S, 1, Duration.ofDays(1).toNanos()));
        // the window band's length changes: it starts fresh, the others are kept; removed bands are dropped
        key.policy = tiers(burst(), Band.fixedWindow("window", 3, Duration.ofSeconds(20)));
        assertThat(key.take(K + 2 * S)).isEqualTo(d(true, 2, 0, 2 * S, NO, "burst"));
        s = (CompositeState) key.state;
        assertThat(s.bandNames()).containsExactly("burst", "window");
        assertThat(s.bandState("window")).isEqualTo(new FixedWindowState(K + 2 * S, 1, 20 * S));
        // a band whose algorithm changes starts fresh
        key.policy = tiers(burst(), Band.slidingWindowCounter("window", 3, Duration.ofSeconds(20)));
        assertThat(key.take(K + 4 * S)).isEqualTo(d(true, 2, 1, S, NO, "burst"));
        assertThat(((CompositeState) key.state).bandState("window"))
                .isEqualTo(new SlidingWindowCounterState(K + 4 * S, 1, 0, 20 * S));
    }

    @Test
    void switchingBetweenSingleAndCompositeKeepsTheBandNamedAfterThePolicy() {
        Key key = new Key(Policy.builder("api").tokenBucket(5, 1, Duration.ofSeconds(1)).build());
        key.take(4, K);
        key.policy = Policy.builder("api").band(Band.tokenBucket("api", 5, 1, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("minute", 100, Duration.ofMinutes(1))).build();
        assertThat(key.take(K)).isEqualTo(d(true, 5, 0, 5 * S, NO, "api"));
        key.policy = Policy.builder("api").tokenBucket(5, 1, Duration.ofSeconds(1)).build();
        assertThat(key.take(K + S)).isEqualTo(new Decision(true, 5, 0, 5 * S, NO, null));
        assertThat(key.state).isInstanceOf(TokenBucketState.class);
    }

    @Test
    void singleBandDecisionsNameNoBand() {
        Key key = new Key(Policy.builder("solo").single(window()).build());
        assertThat(key.take(K).band()).isNull();
        assertThat(key.take(K).limit()).isEqualTo(3);
    }
}
