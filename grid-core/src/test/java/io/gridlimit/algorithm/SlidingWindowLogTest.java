package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.MS;
import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class SlidingWindowLogTest {
    /** A reading aligned to 30 s windows (1 700 000 010 s), playing the seed's "0 s". */
    static final long T0 = 1_700_000_010L * S;

    static Policy log(long limit, long windowNanos) {
        return Policy.builder("p").slidingWindowLog(limit, Duration.ofNanos(windowNanos)).build();
    }

    @Test
    void seed003LogTable() {
        // the table of docs/SPEC.md §3 worked by hand: window 30 s, limit 5
        Key key = new Key(log(5, 30 * S));
        long w = 30 * S + 1; // an entry's capacity returns at s + W + 1 ns
        assertThat(key.take(T0)).isEqualTo(allowed(5, 4, w));
        assertThat(key.take(T0 + 5 * S)).isEqualTo(allowed(5, 3, w));
        assertThat(key.take(T0 + 5 * S)).isEqualTo(allowed(5, 2, w));
        assertThat(key.take(T0 + 15 * S)).isEqualTo(allowed(5, 1, w));
        assertThat(key.take(T0 + 15 * S)).isEqualTo(allowed(5, 0, w));
        // 25 s: denied at the limit; the entry of 0 s leaves at 30 s + 1 ns -> Retry-After 6 s (SPEC §3)
        assertThat(key.take(T0 + 25 * S)).isEqualTo(denied(5, 0, 20 * S + 1, 5 * S + 1));
        assertThat(key.last.write()).isFalse();
        // 35 s: the window looks back to 5 s; the request of 0 s no longer counts (4 in view)
        assertThat(key.take(T0 + 35 * S)).isEqualTo(allowed(5, 0, w));
        // 40 s: looks back to 10 s; 3 in view; two admitted, the third denied
        assertThat(key.take(T0 + 40 * S)).isEqualTo(allowed(5, 1, w));
        assertThat(key.take(T0 + 40 * S)).isEqualTo(allowed(5, 0, w));
        assertThat(key.take(T0 + 40 * S)).isEqualTo(denied(5, 0, w, 5 * S + 1));
        // the entries of 5 s were pruned; same-instant requests share an entry
        SlidingWindowLogState s = (SlidingWindowLogState) key.state;
        assertThat(s.entryNanos()).containsExactly(T0 + 15 * S, T0 + 35 * S, T0 + 40 * S);
        assertThat(s.entryCosts()).containsExactly(2, 1, 2);
    }

    @Test
    void seed003ExerciseThreeLogAdmitsAt33Seconds() {
        // the previous window's 5 requests all came in its first second
        Key key = new Key(log(5, 30 * S));
        for (int i = 0; i < 5; i++) {
            key.take(T0 + i * 200 * MS);
        }
        assertThat(key.take(T0 + 32 * S)).isEqualTo(allowed(5, 4, 30 * S + 1)); // 0.8 s went out at 30.8 s
        Key late = new Key(log(5, 30 * S));
        for (int i = 0; i < 5; i++) {
            late.take(T0 + i * 200 * MS);
        }
        assertThat(late.take(T0 + 33 * S)).isEqualTo(allowed(5, 4, 30 * S + 1));
    }

    @Test
    void anEntryCountsThroughTheClosedEndOfItsWindow() {
        Key key = new Key(log(2, 10 * S));
        key.take(2, T0);
        assertThat(key.take(T0 + 10 * S)).isEqualTo(denied(2, 0, 1, 1));
        assertThat(key.take(T0 + 10 * S + 1)).isEqualTo(allowed(2, 1, 10 * S + 1));
        // cost 2 needs both entries gone; 3 never passes
        assertThat(key.take(2, T0 + 10 * S + 1)).isEqualTo(denied(2, 1, 10 * S + 1, 10 * S + 1));
        assertThat(key.take(3, T0 + 10 * S + 1)).isEqualTo(denied(2, 1, 10 * S + 1, Decision.NO_RETRY));
        assertThat(key.fresh(T0 + 20 * S + 1)).isFalse();
        assertThat(key.fresh(T0 + 20 * S + 2)).isTrue();
    }

    @Test
    void retryAfterWaitsForAsManyEntriesAsTheCostNeeds() {
        Key key = new Key(log(10, 10 * S));
        key.take(3, T0);
        key.take(4, T0 + 2 * S);
        key.take(3, T0 + 4 * S);
        assertThat(key.take(1, T0 + 5 * S)).isEqualTo(denied(10, 0, 9 * S + 1, 5 * S + 1));
        assertThat(key.take(4, T0 + 5 * S)).isEqualTo(denied(10, 0, 9 * S + 1, 7 * S + 1));
        assertThat(key.take(8, T0 + 5 * S)).isEqualTo(denied(10, 0, 9 * S + 1, 9 * S + 1));
    }

    @Test
    void clockStepBackShiftsEveryEntry() {
        Key key = new Key(log(2, 10 * S));
        key.take(T0 + 10 * S);
        key.take(T0 + 12 * S);
        // the same denial as at T0 + 12 s (retry 8 s + 1 ns), measured from the corrected reading
        assertThat(key.take(T0 + 7 * S)).isEqualTo(denied(2, 0, 10 * S + 1, 8 * S + 1));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(10 * S + 1);
        assertThat(((SlidingWindowLogState) key.state).entryNanos()).containsExactly(T0 + 5 * S, T0 + 7 * S);
        assertThat(key.take(T0 + 15 * S)).isEqualTo(denied(2, 0, 2 * S + 1, 1));
        assertThat(key.take(T0 + 15 * S + 1)).isEqualTo(allowed(2, 0, 10 * S + 1));
    }

    @Test
    void policyChangeKeepsEntriesAgainstTheNewLimit() {
        Key key = new Key(log(5, 10 * S));
        key.take(4, T0);
        key.policy = log(3, 10 * S);
        assertThat(key.take(T0 + S)).isEqualTo(denied(3, 0, 9 * S + 1, 9 * S + 1));
        key.policy = log(6, 10 * S);
        assertThat(key.take(T0 + S)).isEqualTo(allowed(6, 1, 10 * S + 1));
        key.policy = log(6, 20 * S);
        assertThat(key.fresh(T0 + S)).isTrue();
        assertThat(key.take(6, T0 + S)).isEqualTo(allowed(6, 0, 20 * S + 1));
    }

    @Test
    void yearWindowLargeLimitAndCenturyGap() {
        Key key = new Key(log(100_000, YEAR));
        assertThat(key.take(99_999, T0)).isEqualTo(allowed(100_000, 1, YEAR + 1));
        assertThat(key.take(T0 + YEAR)).isEqualTo(allowed(100_000, 0, YEAR + 1));
        assertThat(key.take(T0 + YEAR)).isEqualTo(denied(100_000, 0, YEAR + 1, 1));
        assertThat(key.take(100_000, T0 + YEAR + 1)).isEqualTo(denied(100_000, 99_999, YEAR, YEAR));
        assertThat(key.take(100_000, T0 + 100 * YEAR)).isEqualTo(allowed(100_000, 0, YEAR + 1));
        assertThat(((SlidingWindowLogState) key.state).size()).isEqualTo(1);
    }
}
