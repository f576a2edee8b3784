package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The conservative split-brain merge: exact merged states per algorithm (with and without the policy), shapes the
 * policy ignores, and a randomized check that the merged state never admits what either side would deny.
 */
class MergeStatesTest {
    /** Aligned to 10 s windows. */
    private static final long T0 = 1_700_000_000L * S;
    private static final Duration SEC = Duration.ofSeconds(1);
    private static final Duration TEN = Duration.ofSeconds(10);

    private static final Policy TB = Policy.builder("tb").tokenBucket(10, 1, SEC).build();
    private static final Policy GCRA = Policy.builder("gcra").gcra(10, 1, SEC).build();
    private static final Policy FW = Policy.builder("fw").fixedWindow(10, TEN).build();
    private static final Policy SWC = Policy.builder("swc").slidingWindowCounter(10, TEN).build();
    private static final Policy SWL = Policy.builder("swl").slidingWindowLog(5, TEN).build();
    private static final Policy COMP = Policy.builder("comp")
            .band(Band.tokenBucket("burst", 10, 1, SEC))
            .band(Band.slidingWindowLog("hourly", 5, Duration.ofHours(1)))
            .build();

    private static LimiterState merge(LimiterState a, LimiterState b, Policy p) {
        LimiterState ab = MergeStates.moreConsumed(a, b, p);
        assertThat(MergeStates.moreConsumed(b, a, p)).as("symmetric").isEqualTo(ab);
        return ab;
    }

    @Test
    void tokenBucketKeepsFewerTokensAtTheLaterWrite() {
        // a: 4 tokens at T0 -> 7 at T0+3s; b: 5 tokens at T0+3s -> b
        TokenBucketState a = new TokenBucketState(T0, 4, 0, S);
        TokenBucketState b = new TokenBucketState(T0 + 3 * S, 5, 0, S);
        assertThat(merge(a, b, TB)).isEqualTo(new TokenBucketState(T0 + 3 * S, 5, 0, S));
        // a: 1 token at T0 -> 3 at T0+2s; b: 5 -> a's level, stamped at T0+2s
        TokenBucketState a2 = new TokenBucketState(T0, 1, 0, S);
        TokenBucketState b2 = new TokenBucketState(T0 + 2 * S, 5, 0, S);
        assertThat(merge(a2, b2, TB)).isEqualTo(new TokenBucketState(T0 + 2 * S, 3, 0, S));
        // capacity caps the refill: a empty at T0 is full (10) at T0+20s
        TokenBucketState b3 = new TokenBucketState(T0 + 20 * S, 9, 0, S);
        assertThat(merge(new TokenBucketState(T0, 0, 0, S), b3, TB)).isEqualTo(b3);
    }

    @Test
    void tokenBucketComparesFractionsExactly() {
        // 3 tokens per 2 s: a = 1 token at T0 -> 2 + 1/2 at T0+1s; b = 2 + 0 at T0+1s: b has fewer
        Policy p = Policy.builder("tb").tokenBucket(10, 3, Duration.ofSeconds(2)).build();
        TokenBucketState a = new TokenBucketState(T0, 1, 0, 2 * S);
        TokenBucketState b = new TokenBucketState(T0 + S, 2, 0, 2 * S);
        assertThat(merge(a, b, p)).isEqualTo(b);
        TokenBucketState b2 = new TokenBucketState(T0 + S, 2, S + 1, 2 * S);
        assertThat(merge(a, b2, p)).isEqualTo(new TokenBucketState(T0 + S, 2, S, 2 * S));
    }

    @Test
    void tokenBucketWithoutThePolicyTakesFewerStoredTokensAtTheLaterWrite() {
        TokenBucketState a = new TokenBucketState(T0, 1, 7, S);
        TokenBucketState b = new TokenBucketState(T0 + 2 * S, 5, 0, S);
        assertThat(merge(a, b, null)).isEqualTo(new TokenBucketState(T0 + 2 * S, 1, 7, S));
    }

    @Test
    void gcraKeepsTheLaterTat() {
        Key a = new Key(GCRA);
        a.take(9, T0); // TAT = T0 + 9 s
        Key b = new Key(GCRA);
        b.take(3, T0 + 2 * S); // TAT = T0 + 5 s
        GcraState expected = new GcraState(T0 + 2 * S, 0, T0 + 9 * S, 10, 1, S);
        assertThat(merge(a.state, b.state, GCRA)).isEqualTo(expected);
        assertThat(merge(a.state, b.state, null)).isEqualTo(expected);
        // and the later write wins when its TAT is later too
        Key c = new Key(GCRA);
        c.take(8, T0 + S); // TAT = T0 + 9 s, written later
        Key d = new Key(GCRA);
        d.take(6, T0); // TAT = T0 + 6 s
        assertThat(merge(c.state, d.state, GCRA)).isEqualTo(c.state);
        assertThat(RateLimitAlgorithms.apply(merge(a.state, b.state, GCRA), GCRA, 1, T0 + 2 * S).decision()
                .remaining()).isEqualTo(2);
    }

    @Test
    void fixedWindowKeepsTheHigherCountOfTheSameWindow() {
        FixedWindowState a = new FixedWindowState(T0, 4, 10 * S);
        FixedWindowState b = new FixedWindowState(T0 + 2 * S, 6, 10 * S);
        assertThat(merge(a, b, FW)).isEqualTo(new FixedWindowState(T0 + 2 * S, 6, 10 * S));
        assertThat(merge(new FixedWindowState(T0 + 2 * S, 9, 10 * S), new FixedWindowState(T0 + S, 3, 10 * S), FW))
                .isEqualTo(new FixedWindowState(T0 + 2 * S, 9, 10 * S));
        // an earlier window counts nothing in the later one
        FixedWindowState old = new FixedWindowState(T0 + 9 * S, 9, 10 * S);
        FixedWindowState next = new FixedWindowState(T0 + 10 * S, 1, 10 * S);
        assertThat(merge(old, next, FW)).isEqualTo(next);
        assertThat(merge(old, next, null)).isEqualTo(next);
    }

    @Test
    void slidingWindowCounterKeepsTheHigherCountsSeenFromTheLaterWindow() {
        SlidingWindowCounterState a = new SlidingWindowCounterState(T0, 3, 2, 10 * S);
        SlidingWindowCounterState b = new SlidingWindowCounterState(T0 + 10 * S, 1, 5, 10 * S);
        // a is one window behind: its current becomes previous (3), its previous is gone
        assertThat(merge(a, b, SWC)).isEqualTo(new SlidingWindowCounterState(T0 + 10 * S, 1, 5, 10 * S));
        SlidingWindowCounterState b2 = new SlidingWindowCounterState(T0 + 10 * S, 1, 2, 10 * S);
        assertThat(merge(a, b2, SWC)).isEqualTo(new SlidingWindowCounterState(T0 + 10 * S, 1, 3, 10 * S));
        SlidingWindowCounterState c = new SlidingWindowCounterState(T0, 4, 0, 10 * S);
        SlidingWindowCounterState d = new SlidingWindowCounterState(T0 + S, 2, 7, 10 * S);
        assertThat(merge(c, d, null)).isEqualTo(new SlidingWindowCounterState(T0 + S, 4, 7, 10 * S));
        // two windows behind: nothing left
        assertThat(merge(new SlidingWindowCounterState(T0 - 11 * S, 9, 9, 10 * S), d, SWC)).isEqualTo(d);
    }

    @Test
    void slidingWindowLogTakesTheUnionBoundedByTheLimitKeepingTheNewest() {
        // shared history T0 x2; side a adds T0+1s x2; side b adds T0+2s x1 and T0+3s x1
        SlidingWindowLogState a = new SlidingWindowLogState(T0 + S, 10 * S, new long[] {T0, T0 + S},
                new int[] {2, 2});
        SlidingWindowLogState b = new SlidingWindowLogState(T0 + 3 * S, 10 * S,
                new long[] {T0, T0 + 2 * S, T0 + 3 * S}, new int[] {2, 1, 1});
        assertThat(merge(a, b, SWL)).isEqualTo(new SlidingWindowLogState(T0 + 3 * S, 10 * S,
                new long[] {T0, T0 + S, T0 + 2 * S, T0 + 3 * S}, new int[] {1, 2, 1, 1}));
        // without the policy the bound is the largest log limit: the whole union (6) stays
        assertThat(merge(a, b, null)).isEqualTo(new SlidingWindowLogState(T0 + 3 * S, 10 * S,
                new long[] {T0, T0 + S, T0 + 2 * S, T0 + 3 * S}, new int[] {2, 2, 1, 1}));
        // one entry time on both sides is one entry with the larger cost
        assertThat(merge(new SlidingWindowLogState(T0, 10 * S, new long[] {T0}, new int[] {2}),
                new SlidingWindowLogState(T0, 10 * S, new long[] {T0}, new int[] {3}), SWL))
                .isEqualTo(new SlidingWindowLogState(T0, 10 * S, new long[] {T0}, new int[] {3}));
        // entries that no longer count at the later write are dropped (s < t - W)
        SlidingWindowLogState old = new SlidingWindowLogState(T0, 10 * S, new long[] {T0 - S, T0},
                new int[] {1, 1});
        SlidingWindowLogState later = new SlidingWindowLogState(T0 + 10 * S, 10 * S, new long[] {T0 + 10 * S},
                new int[] {1});
        assertThat(merge(old, later, SWL)).isEqualTo(new SlidingWindowLogState(T0 + 10 * S, 10 * S,
                new long[] {T0, T0 + 10 * S}, new int[] {1, 1}));
    }

    @Test
    void compositeMergesEachBandByName() {
        Key a = new Key(COMP);
        a.take(4, T0);
        a.take(2, T0 + S); // burst: 10-4 -> 7 at T0+1s -> 5; hourly: T0 x4, T0+1s x2... limit 5 denies cost 2
        Key b = new Key(COMP);
        b.take(1, T0 + 3 * S);
        CompositeState merged = (CompositeState) merge(a.state, b.state, COMP);
        CompositeState as = (CompositeState) a.state;
        CompositeState bs = (CompositeState) b.state;
        assertThat(merged.lastNanos()).isEqualTo(T0 + 3 * S);
        assertThat(merged.bandNames()).containsExactly("burst", "hourly");
        Policy burst = Policy.builder("burst").tokenBucket(10, 1, SEC).build();
        Policy hourly = Policy.builder("hourly").slidingWindowLog(5, Duration.ofHours(1)).build();
        assertThat(merged.bandState("burst"))
                .isEqualTo(MergeStates.moreConsumed(as.bandState("burst"), bs.bandState("burst"), burst))
                .isEqualTo(new TokenBucketState(T0 + 3 * S, 9, 0, S));
        assertThat(merged.bandState("hourly"))
                .isEqualTo(MergeStates.moreConsumed(as.bandState("hourly"), bs.bandState("hourly"), hourly))
                .isEqualTo(new SlidingWindowLogState(T0 + 3 * S, Duration.ofHours(1).toNanos(),
                        new long[] {T0, T0 + 3 * S}, new int[] {4, 1}));
        // without the policy: the same bands merged by name, the bucket by its stored tokens
        CompositeState blind = (CompositeState) merge(a.state, b.state, null);
        assertThat(blind.bandState("burst")).isEqualTo(new TokenBucketState(T0 + 3 * S, 6, 0, S));
        assertThat(blind.bandState("hourly")).isEqualTo(merged.bandState("hourly"));
    }

    @Test
    void shapesThePolicyIgnoresLoseAndOtherwiseTheNewerStateIsKept() {
        FixedWindowState fw = new FixedWindowState(T0 + S, 9, 10 * S);
        TokenBucketState tb = new TokenBucketState(T0, 3, 0, S);
        // under the token bucket policy the fixed window state is fresh: the bucket state stands
        assertThat(merge(fw, tb, TB)).isSameAs(tb);
        // under a fixed window of 20 s, neither counts: the newer is kept
        Policy fw20 = Policy.builder("fw").fixedWindow(10, Duration.ofSeconds(20)).build();
        assertThat(merge(fw, tb, fw20)).isSameAs(fw);
        // no policy, different algorithms or windows: the newer
        assertThat(merge(fw, tb, null)).isSameAs(fw);
        assertThat(merge(new FixedWindowState(T0, 1, 20 * S), fw, null)).isSameAs(fw);
        assertThat(MergeStates.moreConsumed(null, tb, TB)).isSameAs(tb);
        assertThat(MergeStates.moreConsumed(tb, null, null)).isSameAs(tb);
        assertThat(MergeStates.moreConsumed(null, null, TB)).isNull();
    }

    /**
     * Two sides share a history, then decide independently; at any later instant and cost, a request the merged
     * state admits is admitted by each side's state, and what the merged state has available before the request
     * is at most what each side has.
     */
    @Test
    void theMergedStateNeverAdmitsWhatEitherSideWouldDeny() {
        List<Policy> policies = List.of(TB, GCRA, FW, SWC, SWL, COMP,
                Policy.builder("tbf").tokenBucket(7, 3, Duration.ofMillis(1500)).build());
        Random random = new Random(42);
        int checks = 0;
        for (Policy p : policies) {
            for (int round = 0; round < 200; round++) {
                Key shared = new Key(p);
                long t = T0 + random.nextInt(10_000) * 1_000_000L;
                for (int i = random.nextInt(4); i > 0; i--) {
                    t += random.nextInt(3_000) * 1_000_000L;
                    shared.take(1 + random.nextInt(3), t);
                }
                Key a = new Key(p);
                a.state = shared.state;
                Key b = new Key(p);
                b.state = shared.state;
                long ta = t;
                long tb = t;
                for (int i = random.nextInt(6); i > 0; i--) {
                    ta += random.nextInt(3_000) * 1_000_000L;
                    a.take(1 + random.nextInt(3), ta);
                }
                for (int i = random.nextInt(6); i > 0; i--) {
                    tb += random.nextInt(3_000) * 1_000_000L;
                    b.take(1 + random.nextInt(3), tb);
                }
                for (Policy known : new Policy[] {p, null}) {
                    LimiterState merged = MergeStates.moreConsumed(a.state, b.state, known);
                    long base = Math.max(ta, tb);
                    for (long later : new long[] {0, 1, 700_000_000L, 2_000_000_000L, 9_999_999_999L, 10_000_000_001L}) {
                        for (long cost = 1; cost <= 3; cost++) {
                            long now = base + later;
                            var m = RateLimitAlgorithms.apply(merged, p, cost, now).decision();
                            var da = RateLimitAlgorithms.apply(a.state, p, cost, now).decision();
                            var db = RateLimitAlgorithms.apply(b.state, p, cost, now).decision();
                            if (!p.isComposite()) { // a composite's remaining is that of its binding band
                                assertThat(available(m, cost)).as("%s %s a=%s b=%s known=%s now=%s", p, merged,
                                        a.state, b.state, known, now)
                                        .isLessThanOrEqualTo(Math.min(available(da, cost), available(db, cost)));
                            }
                            if (m.allowed()) {
                                assertThat(da.allowed() && db.allowed()).as("%s %s", p, merged).isTrue();
                            }
                            checks++;
                        }
                    }
                }
            }
        }
        assertThat(checks).isEqualTo(7 * 200 * 2 * 6 * 3);
    }

    /** What was available before the request: remaining is after the request when admitted, now when denied. */
    private static long available(io.gridlimit.api.Decision d, long cost) {
        return d.allowed() ? d.remaining() + cost : d.remaining();
    }
}
