package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.internal.Wide;

import java.math.BigInteger;
import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The facade's preconditions, applyAll, isFresh; and the 128-bit helper the algorithms rely on. */
class RateLimitAlgorithmsTest {
    private static final Policy POLICY = Policy.builder("p").tokenBucket(3, 1, Duration.ofSeconds(1)).build();

    @Test
    void costOutsideItsRangeIsRejectedNamingIt() {
        assertThatThrownBy(() -> RateLimitAlgorithms.apply(null, POLICY, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(
                        "cost must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> RateLimitAlgorithms.apply(null, POLICY, 1_000_000_000_000_001L, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cost")
                .hasMessageContaining("1000000000000001");
        assertThatThrownBy(() -> RateLimitAlgorithms.apply(null, null, 1, 0))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("policy");
        assertThatThrownBy(() -> RateLimitAlgorithms.applyAll(null, POLICY, new long[] {1, -1}, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("costs[1]")
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> RateLimitAlgorithms.isFresh(null, null, 0)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void largestCostIsAccepted() {
        Outcome o = RateLimitAlgorithms.apply(null, POLICY, 1_000_000_000_000_000L, 0);
        assertThat(o.decision().allowed()).isFalse();
        assertThat(o.decision().isUnsatisfiable()).isTrue();
    }

    @Test
    void applyAllDecidesInSequenceAtOneInstant() {
        Key key = new Key(POLICY);
        key.take(2, 10 * S);
        Outcome[] all = RateLimitAlgorithms.applyAll(key.state, POLICY, new long[] {1, 1, 2, 1}, 10 * S + S / 2);
        Outcome a = RateLimitAlgorithms.apply(key.state, POLICY, 1, 10 * S + S / 2);
        Outcome b = RateLimitAlgorithms.apply(a.state(), POLICY, 1, 10 * S + S / 2);
        Outcome c = RateLimitAlgorithms.apply(b.state(), POLICY, 2, 10 * S + S / 2);
        assertThat(all).hasSize(4);
        assertThat(all[0].decision()).isEqualTo(a.decision());
        assertThat(all[0].decision().allowed()).isTrue();
        assertThat(all[1].decision()).isEqualTo(b.decision());
        assertThat(all[1].decision().allowed()).isFalse();
        assertThat(all[2].decision()).isEqualTo(c.decision());
        assertThat(all[2].decision().retryAfterNanos()).isEqualTo(1_500_000_000L);
        assertThat(all[3].state()).isEqualTo(a.state());
        assertThat(all[3].write()).isFalse();
        assertThat(RateLimitAlgorithms.applyAll(null, POLICY, new long[0], 0)).isEmpty();
    }

    @Test
    void isFreshMeansIndistinguishableFromNoState() {
        assertThat(RateLimitAlgorithms.isFresh(null, POLICY, 0)).isTrue();
        Key key = new Key(POLICY);
        key.take(5 * S);
        assertThat(key.fresh(5 * S)).isFalse();
        assertThat(key.fresh(6 * S - 1)).isFalse();
        assertThat(key.fresh(6 * S)).isTrue();
        Policy composite = Policy.builder("c").band(Band.tokenBucket("a", 1, 1, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("b", 1, Duration.ofSeconds(10))).build();
        Key c = new Key(composite);
        c.take(10 * S);
        assertThat(c.fresh(11 * S)).isFalse(); // the bucket is full, the window still counts 1
        assertThat(c.fresh(20 * S)).isTrue();
    }

    @Test
    void stateConstructorsRejectImpossibleValues() {
        assertThatThrownBy(() -> new TokenBucketState(0, 1, 5, 5)).hasMessageContaining("tokenFraction");
        assertThatThrownBy(() -> new FixedWindowState(0, -1, 5)).hasMessageContaining("count");
        assertThatThrownBy(() -> new SlidingWindowLogState(10, 5, new long[] {3, 3}, new int[] {1, 1}))
                .hasMessageContaining("entryNanos[1]");
        assertThatThrownBy(() -> new SlidingWindowLogState(10, 5, new long[] {3}, new int[] {0}))
                .hasMessageContaining("entryCosts[0]");
        assertThatThrownBy(() -> new CompositeState(0, new String[] {"a"},
                new LimiterState[] {new CompositeState(0, new String[0], new LimiterState[0])}))
                .hasMessageContaining("composite");
        assertThatThrownBy(() -> new GcraState(0, 0, 0, 1, 0, 1)).hasMessageContaining("refillTokens");
    }

    @Test
    void wideMatchesBigIntegerOnExtremes() {
        long[] values = {0, 1, -1, 7, Long.MAX_VALUE, Long.MIN_VALUE, 1_000_000_000_000_000L,
                31_536_000_000_000_000L, -31_536_000_000_000_000L, 0x7fff_ffff_ffffL};
        long[] divisors = {1, 3, 7, 1_000_000_000L, 31_536_000_000_000_000L, Long.MAX_VALUE};
        for (long a : values) {
            for (long b : values) {
                Wide p = Wide.product(a, b).add(Wide.of(a)).subtract(b);
                BigInteger big = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).add(BigInteger.valueOf(a))
                        .subtract(BigInteger.valueOf(b));
                assertThat(p.toBigInteger()).isEqualTo(big);
                assertThat(Wide.of(p.high(), p.low())).isEqualTo(p);
                assertThat(p.compareTo(Wide.of(a))).isEqualTo(big.compareTo(BigInteger.valueOf(a)));
                assertThat(p.signum()).isEqualTo(big.signum());
                assertThat(p.fitsLong()).isEqualTo(big.bitLength() < 64);
                for (long d : divisors) {
                    BigInteger bd = BigInteger.valueOf(d);
                    BigInteger floor = big.subtract(big.mod(bd)).divide(bd);
                    assertThat(p.floorDiv(d).toBigInteger()).isEqualTo(floor);
                    assertThat(p.floorMod(d)).isEqualTo(big.mod(bd).longValueExact());
                    BigInteger ceil = big.negate().subtract(big.negate().mod(bd)).divide(bd).negate();
                    assertThat(p.ceilDiv(d).toBigInteger()).isEqualTo(ceil);
                }
            }
        }
        assertThat(Wide.product(Long.MAX_VALUE, Long.MAX_VALUE).saturatedLong()).isEqualTo(Long.MAX_VALUE);
        assertThat(Wide.product(Long.MAX_VALUE, -3).saturatedLong()).isEqualTo(Long.MIN_VALUE);
    }
}
