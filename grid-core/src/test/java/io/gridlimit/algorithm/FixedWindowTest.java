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

class FixedWindowTest {
    /** The start of a 10 s window (and of a 365-day one: 54 · 365 days). */
    private static final long K = 54 * YEAR;

    private static Policy fixed(long limit, long windowNanos) {
        return Policy.builder("p").fixedWindow(limit, Duration.ofNanos(windowNanos)).build();
    }

    @Test
    void countsPerAlignedWindow() {
        Key key = new Key(fixed(3, 10 * S));
        assertThat(key.take(K + 2 * S)).isEqualTo(allowed(3, 2, 8 * S));
        assertThat(key.last.ttlNanos()).isEqualTo(8 * S);
        assertThat(key.take(2, K + 3 * S)).isEqualTo(allowed(3, 0, 7 * S));
        assertThat(key.take(K + 9 * S)).isEqualTo(denied(3, 0, S, S));
        assertThat(key.last.write()).isFalse();
        assertThat(key.take(4, K + 9 * S)).isEqualTo(denied(3, 0, S, Decision.NO_RETRY));
        assertThat(key.take(K + 10 * S - 1)).isEqualTo(denied(3, 0, 1, 1));
        // the boundary burst of aligned windows (docs/SPEC.md §3): a new window starts empty
        assertThat(key.take(3, K + 10 * S)).isEqualTo(allowed(3, 0, 10 * S));
        assertThat(key.fresh(K + 20 * S - 1)).isFalse();
        assertThat(key.fresh(K + 20 * S)).isTrue();
        // a denial in an empty window reports no reset
        Key other = new Key(fixed(3, 10 * S));
        assertThat(other.take(5, K)).isEqualTo(denied(3, 3, 0, Decision.NO_RETRY));
    }

    @Test
    void clockStepBackCarriesTheCountIntoTheReadingsWindow() {
        Key key = new Key(fixed(3, 10 * S));
        key.take(2, K + 12 * S); // window [K+10, K+20)
        // corrected back into window [K, K+10): the count 2 comes along and expires with that window
        assertThat(key.take(2, K + 5 * S)).isEqualTo(denied(3, 1, 5 * S, 5 * S));
        assertThat(key.last.write()).isTrue();
        assertThat(key.last.ttlNanos()).isEqualTo(5 * S);
        assertThat(key.state).isEqualTo(new FixedWindowState(K + 5 * S, 2, 10 * S));
        assertThat(key.take(K + 9 * S)).isEqualTo(allowed(3, 0, S));
        assertThat(key.take(K + 10 * S)).isEqualTo(allowed(3, 2, 10 * S));
        // a step back within the same window keeps the count
        key.take(K + 15 * S);
        assertThat(key.take(K + 11 * S)).isEqualTo(allowed(3, 0, 9 * S));
    }

    @Test
    void policyChangeKeepsCountsAgainstTheNewLimit() {
        Key key = new Key(fixed(5, 10 * S));
        key.take(4, K);
        key.policy = fixed(3, 10 * S);
        assertThat(key.take(K + S)).isEqualTo(denied(3, 0, 9 * S, 9 * S));
        key.policy = fixed(10, 10 * S);
        assertThat(key.take(K + S)).isEqualTo(allowed(10, 5, 9 * S));
        key.policy = fixed(10, 20 * S);
        assertThat(key.fresh(K + S)).isTrue();
        assertThat(key.take(K + S)).isEqualTo(allowed(10, 9, 19 * S));
        key.policy = Policy.builder("p").slidingWindowCounter(10, Duration.ofSeconds(20)).build();
        assertThat(key.fresh(K + S)).isTrue();
    }

    @Test
    void hugeLimitAndYearWindow() {
        long limit = 1_000_000_000_000_000L;
        Key key = new Key(fixed(limit, YEAR));
        assertThat(key.take(limit - 1, K + 1)).isEqualTo(allowed(limit, 1, YEAR - 1));
        assertThat(key.take(2, K + 1)).isEqualTo(denied(limit, 1, YEAR - 1, YEAR - 1));
        assertThat(key.take(limit, K + 100 * YEAR)).isEqualTo(allowed(limit, 0, YEAR));
    }
}
