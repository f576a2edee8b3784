package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class SlidingWindowCounterTest {
    /** Start of a 30 s window: the seed's "0 s" (its previous window is [0 s, 30 s)). */
    private static final long T0 = SlidingWindowLogTest.T0;

    static Policy counter(long limit, long windowNanos) {
        return Policy.builder("p").slidingWindowCounter(limit, Duration.ofNanos(windowNanos)).build();
    }

    /** Window 30 s, limit 5, previous window [0, 30 s) full with 5 (docs/SPEC.md §3). */
    private static Key previousWindowFull() {
        Key key = new Key(counter(5, 30 * S));
        assertThat(key.take(5, T0 + 10 * S)).isEqualTo(allowed(5, 0, 50 * S));
        return key;
    }

    @Test
    void seed003CounterTable() {
        Key key = previousWindowFull();
        // 35 s: 5/6 × 5 + 0 + 1 = 5.17 > 5
        assertThat(key.take(T0 + 35 * S)).isEqualTo(denied(5, 0, 25 * S, S));
        assertThat(key.last.write()).isFalse();
        // 40 s: 2/3 × 5 + 1 = 4.33 <= 5; remaining floor((150 − 100 − 30)/30) = 0; reset at 90 s
        assertThat(key.take(T0 + 40 * S)).isEqualTo(allowed(5, 0, 50 * S));
        assertThat(key.last.ttlNanos()).isEqualTo(50 * S);
        // 40 s again: 2/3 × 5 + 1 + 1 = 5.33 > 5; (20 − d)·5 <= 30·3 from d = 2 s
        assertThat(key.take(T0 + 40 * S)).isEqualTo(denied(5, 0, 50 * S, 2 * S));
        assertThat(key.take(T0 + 42 * S - 1)).isEqualTo(denied(5, 0, 48 * S + 1, 1));
        assertThat(key.take(T0 + 42 * S)).isEqualTo(allowed(5, 0, 48 * S));
    }

    @Test
    void seed003ExerciseAnswers() {
        // 1. at 33 s: 0.9 × 5 + 1 = 5.5 > 5, denied; 2. acceptable from 36 s, so retryAfter is exactly 3 s
        Key key = previousWindowFull();
        assertThat(key.take(T0 + 33 * S)).isEqualTo(denied(5, 0, 27 * S, 3 * S));
        assertThat(key.take(T0 + 36 * S - 1)).isEqualTo(denied(5, 0, 24 * S + 1, 1));
        assertThat(key.take(T0 + 36 * S)).isEqualTo(allowed(5, 0, 54 * S));
        // 3. the counter still denies at 33 s even when the 5 came in the previous window's first second
        Key early = new Key(counter(5, 30 * S));
        early.take(5, T0 + S / 2);
        assertThat(early.take(T0 + 33 * S).allowed()).isFalse();
        assertThat(early.take(T0 + 35 * S).allowed()).isFalse();
    }

    @Test
    void retryAfterCrossesIntoTheNextWindows() {
        Key key = new Key(counter(5, 30 * S));
        key.take(5, T0 + 10 * S);
        // next window: (30 − e')·5 <= 30·4 from e' = 6 s, i.e. 26 s from now
        assertThat(key.take(T0 + 10 * S)).isEqualTo(denied(5, 0, 50 * S, 26 * S));
        assertThat(key.take(T0 + 36 * S - 1).allowed()).isFalse();
        // the full limit needs the window after next: 50 s
        assertThat(key.take(5, T0 + 10 * S)).isEqualTo(denied(5, 0, 50 * S, 50 * S));
        assertThat(key.take(5, T0 + 60 * S - 1).allowed()).isFalse();
        assertThat(key.take(6, T0 + 10 * S)).isEqualTo(denied(5, 0, 50 * S, Decision.NO_RETRY));
        assertThat(key.take(T0 + 36 * S)).isEqualTo(allowed(5, 0, 54 * S));
    }

    @Test
    void countsExpireAfterTwoWindows() {
        Key key = new Key(counter(5, 30 * S));
        key.take(2, T0 + 10 * S);
        assertThat(key.fresh(T0 + 60 * S - 1)).isFalse();
        assertThat(key.fresh(T0 + 60 * S)).isTrue();
        assertThat(key.take(T0 + 60 * S)).isEqualTo(allowed(5, 4, 60 * S));
    }

    @Test
    void clockStepBackCarriesBothCounts() {
        Key key = new Key(counter(3, 10 * S));
        key.take(3, T0 + 12 * S); // window [T0+10, T0+20)
        // corrected back into [T0, T0+10): 3 carried into it; next window from T0 + 10 s weighs them
        // next window: (10 s − e')·3 <= 10 s·2 from e' = 3 333 333 334 ns
        assertThat(key.take(T0 + 5 * S)).isEqualTo(denied(3, 0, 15 * S, 8_333_333_334L));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(15 * S);
        assertThat(key.state).isEqualTo(new SlidingWindowCounterState(T0 + 5 * S, 3, 0, 10 * S));
        assertThat(key.take(T0 + 13_333_333_333L).allowed()).isFalse();
        assertThat(key.take(T0 + 13_333_333_334L)).isEqualTo(allowed(3, 0, 16_666_666_666L));
    }

    @Test
    void policyChangeKeepsCountsAgainstTheNewLimit() {
        Key key = new Key(counter(5, 10 * S));
        key.take(4, T0);
        key.policy = counter(3, 10 * S);
        // 4 in the window against 3: the next window weighs them, (10 − e')·4 <= 10·2 from e' = 5 s
        assertThat(key.take(T0 + S)).isEqualTo(denied(3, 0, 19 * S, 14 * S));
        key.policy = counter(8, 10 * S);
        assertThat(key.take(T0 + S)).isEqualTo(allowed(8, 3, 19 * S));
        key.policy = counter(8, 20 * S);
        assertThat(key.fresh(T0 + S)).isTrue();
    }

    @Test
    void yearWindowAndQuadrillionLimitUse128BitProducts() {
        long limit = 1_000_000_000_000_000L;
        long k = 54 * YEAR; // a window start
        Key key = new Key(counter(limit, YEAR));
        key.take(limit, k + 1);
        long half = YEAR / 2;
        assertThat(key.take(limit / 2, k + YEAR + half)).isEqualTo(allowed(limit, 0, YEAR + half));
        // (W/2 − d)·10^15 <= W·(5·10^14 − 1) from d = ceil(W/10^15) = 32 ns
        assertThat(key.take(k + YEAR + half)).isEqualTo(denied(limit, 0, YEAR + half, 32));
        assertThat(key.take(k + YEAR + half + 31).allowed()).isFalse();
        assertThat(key.take(k + YEAR + half + 32)).isEqualTo(allowed(limit, 0, YEAR + half - 32));
        assertThat(key.take(limit, k + 100 * YEAR)).isEqualTo(allowed(limit, 0, 2 * YEAR));
    }
}
