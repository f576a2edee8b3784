package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.YEAR;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;

import java.time.Duration;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

/**
 * {@link RateLimitAlgorithms#hit}: envoyproxy/ratelimit's counting (docs/SPEC.md §3, "Every hit counts"), worked by
 * hand on a fixed window of 3 per 10 s.
 */
class EveryHitTest {
    /** The start of a 10 s window. */
    private static final long K = 54 * YEAR;

    private static Policy fixed(long limit, long windowNanos) {
        return Policy.builder("p").fixedWindow(limit, Duration.ofNanos(windowNanos)).build();
    }

    private static Outcome hit(LimiterState state, Policy policy, long cost, long nowNanos) {
        return RateLimitAlgorithms.hit(state, policy, cost, nowNanos);
    }

    @Test
    void aDeniedHitCountsAndUsesUpTheWindow() {
        Policy p = fixed(3, 10 * S);
        Outcome a = hit(null, p, 2, K + 2 * S);
        assertThat(a.decision()).isEqualTo(allowed(3, 1, 8 * S));
        assertThat(a.state()).isEqualTo(new FixedWindowState(K + 2 * S, 2, 10 * S));
        assertThat(a.ttlNanos()).isEqualTo(8 * S);
        // 2 + 2 > 3: denied, and counted (the reference's INCRBY comes first)
        Outcome b = hit(a.state(), p, 2, K + 3 * S);
        assertThat(b.decision()).as("1 was left when it came").isEqualTo(denied(3, 1, 7 * S, 7 * S));
        assertThat(b.write()).isTrue();
        assertThat(b.state()).isEqualTo(new FixedWindowState(K + 3 * S, 4, 10 * S));
        // a hit of 1 that apply would admit (2 + 1 <= 3) is over here: the denied hit counted
        assertThat(RateLimitAlgorithms.apply(a.state(), p, 1, K + 3 * S).decision().allowed()).isTrue();
        Outcome c = hit(b.state(), p, 1, K + 4 * S);
        assertThat(c.decision()).isEqualTo(denied(3, 0, 6 * S, 6 * S));
        assertThat(c.state()).isEqualTo(new FixedWindowState(K + 4 * S, 5, 10 * S));
        // a cost above the limit never passes, and counts too
        Outcome d = hit(c.state(), p, 4, K + 5 * S);
        assertThat(d.decision()).isEqualTo(denied(3, 0, 5 * S, Decision.NO_RETRY));
        assertThat(d.state()).isEqualTo(new FixedWindowState(K + 5 * S, 9, 10 * S));
        // the next window starts empty
        Outcome e = hit(d.state(), p, 3, K + 10 * S);
        assertThat(e.decision()).isEqualTo(allowed(3, 0, 10 * S));
        assertThat(e.state()).isEqualTo(new FixedWindowState(K + 10 * S, 3, 10 * S));
    }

    @Test
    void aPeekPassesAtTheLimitAndWritesNothing() {
        Policy p = fixed(3, 10 * S);
        Outcome full = hit(null, p, 3, K + S);
        Outcome peek = hit(full.state(), p, 0, K + 2 * S);
        assertThat(peek.decision()).isEqualTo(allowed(3, 0, 8 * S));
        assertThat(peek.write()).isFalse();
        assertThat(peek.state()).isSameAs(full.state());
        Outcome over = hit(full.state(), p, 1, K + 2 * S);
        Outcome peekOver = hit(over.state(), p, 0, K + 3 * S);
        assertThat(peekOver.decision()).isEqualTo(denied(3, 0, 7 * S, 7 * S));
        assertThat(peekOver.write()).isFalse();
        // a peek at a fresh key: the whole limit, no reset (nothing counted yet)
        Outcome fresh = hit(null, p, 0, K);
        assertThat(fresh.decision()).isEqualTo(allowed(3, 3, 0));
        assertThat(fresh.write()).isFalse();
    }

    @Test
    void theCountSaturatesAtTheLargestLimit() {
        Policy p = fixed(Band.MAX_QUANTITY, YEAR);
        Outcome a = hit(null, p, Band.MAX_QUANTITY, K + 1);
        assertThat(a.decision()).isEqualTo(allowed(Band.MAX_QUANTITY, 0, YEAR - 1));
        Outcome b = hit(a.state(), p, Band.MAX_QUANTITY, K + 2);
        assertThat(b.decision()).isEqualTo(denied(Band.MAX_QUANTITY, 0, YEAR - 2, YEAR - 2));
        assertThat(b.state()).isEqualTo(new FixedWindowState(K + 2, Band.MAX_QUANTITY, YEAR));
    }

    @Test
    void aClockStepBackCarriesTheCountAsADecisionDoes() {
        Policy p = fixed(3, 10 * S);
        Outcome a = hit(null, p, 4, K + 12 * S); // window [K+10, K+20), over
        Outcome back = hit(a.state(), p, 0, K + 5 * S); // a peek after a step back: the rebase is written
        assertThat(back.decision()).isEqualTo(denied(3, 0, 5 * S, 5 * S));
        assertThat(back.write()).isTrue();
        assertThat(back.state()).isEqualTo(new FixedWindowState(K + 5 * S, 4, 10 * S));
    }

    @Test
    void aLoweredOrRaisedLimitSeesEveryHit() {
        // envoyproxy/ratelimit's overrides of one unit share one counter whatever their limit (docs/SPEC.md §12)
        Outcome a = hit(null, fixed(5, 10 * S), 8, K);
        Outcome raised = hit(a.state(), fixed(10, 10 * S), 2, K + S);
        assertThat(raised.decision()).isEqualTo(allowed(10, 0, 9 * S));
        Outcome lowered = hit(raised.state(), fixed(3, 10 * S), 0, K + S);
        assertThat(lowered.decision()).isEqualTo(denied(3, 0, 9 * S, 9 * S));
    }

    @Test
    void aReservedStateKeepsItsReservationsAroundTheHit() {
        Policy p = fixed(3, 10 * S);
        Outcome reserved = RateLimitAlgorithms.reserve(null, p, "k", 1, K, RandomGenerator.of("L64X128MixRandom"));
        assertThat(reserved.state()).isInstanceOf(ReservedState.class);
        Outcome h = hit(reserved.state(), p, 3, K + S);
        assertThat(h.decision()).isEqualTo(denied(3, 2, 9 * S, 9 * S));
        assertThat(h.state()).isInstanceOf(ReservedState.class);
        ReservedState r = (ReservedState) h.state();
        assertThat(r.inner()).isEqualTo(new FixedWindowState(K + S, 4, 10 * S));
        ReservedState before = (ReservedState) reserved.state();
        assertThat(r.withInner(before.inner())).as("only the limiter state changed").isEqualTo(before);
    }

    @Test
    void onlyASingleFixedWindowCountsEveryHit() {
        Policy bucket = Policy.builder("b").tokenBucket(3, 1, Duration.ofSeconds(1)).build();
        Policy composite = Policy.builder("c").band(Band.fixedWindow("s", 3, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("m", 30, Duration.ofMinutes(1))).build();
        assertThat(RateLimitAlgorithms.countsEveryHit(fixed(3, S))).isTrue();
        assertThat(RateLimitAlgorithms.countsEveryHit(bucket)).isFalse();
        assertThat(RateLimitAlgorithms.countsEveryHit(composite)).isFalse();
        assertThatThrownBy(() -> hit(null, bucket, 1, K)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policy 'b' cannot count every hit: only a single fixed-window band can "
                        + "(docs/SPEC.md §3)");
        assertThatThrownBy(() -> hit(null, fixed(3, S), -1, K)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost must be in [0, 1000000000000000], got -1");
        assertThatThrownBy(() -> hit(null, fixed(3, S), Band.MAX_QUANTITY + 1, K))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 1000000000000001");
    }
}
