package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.MS;
import static io.gridlimit.algorithm.Key.S;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;

import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exact values of quota leases on the owner (docs/SPEC.md §13), for the token bucket and GCRA (one body, both
 * algorithms: GCRA's decisions equal the bucket's). The policy: capacity 1000, 1000 tokens per second, so one
 * token per millisecond and a reservation hold of {@code C·P/R} = 1 s. Time is a plain {@code long}.
 */
class LeasesTest {
    /** 2026-01-01T00:00:00Z. */
    private static final long T0 = 1_767_225_600L * S;
    private static final long HOLDER_HIGH = 0x1111L;
    private static final long HOLDER_LOW = 0x2222L;

    static Policy bucket(Algorithm algorithm, long capacity) {
        Band band = algorithm == Algorithm.GCRA ? Band.gcra("p", capacity, capacity, Duration.ofSeconds(1))
                : Band.tokenBucket("p", capacity, capacity, Duration.ofSeconds(1));
        return Policy.builder("p").single(band).build();
    }

    /** One key as the grid keeps it. */
    static final class LeasedKey {
        final String key = "user:1";
        final Policy policy;
        LimiterState state;
        final Random random = new Random(7);

        LeasedKey(Policy policy) {
            this.policy = policy;
        }

        LeaseGrant lease(long cost, long units, long lifeNanos, long nowNanos) {
            LeaseGrant g = RateLimitAlgorithms.lease(state, policy, key, cost, units, lifeNanos, HOLDER_HIGH,
                    HOLDER_LOW, false, nowNanos, random);
            if (g.outcome().write()) {
                state = g.outcome().state();
            }
            return g;
        }

        Decision take(Policy p, long cost, long nowNanos) {
            Outcome o = RateLimitAlgorithms.apply(state, p, cost, nowNanos);
            if (o.write()) {
                state = o.state();
            }
            return o.decision();
        }

        Decision take(long cost, long nowNanos) {
            return take(policy, cost, nowNanos);
        }

        Settlement settle(Reservation r, long actual, long nowNanos) {
            SettleOutcome o = RateLimitAlgorithms.settle(state, policy, key, r, actual, nowNanos);
            if (o.write()) {
                state = o.state();
            }
            return o.settlement();
        }

        /** The most a single request could take now: the binary search over the owner's decisions. */
        long available(long nowNanos) {
            long lo = 0;
            long hi = 2000;
            while (lo < hi) {
                long mid = (lo + hi + 1) / 2;
                if (RateLimitAlgorithms.apply(state, policy, mid, nowNanos).decision().allowed()) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGrantIsConsumedAtOnceAndRecordedWithItsHolderAndEnd(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        LeaseGrant g = k.lease(1, 100, S, T0);
        assertThat(g.grantedUnits()).isEqualTo(100);
        // the owner grants min(asked life 1 s, hold C·P/R = 1 s)
        assertThat(g.leaseEndNanos()).isEqualTo(T0 + S);
        Decision d = g.outcome().decision();
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(900); // 1000 − 100
        assertThat(d.reservation().cost()).isEqualTo(100);
        ReservedState s = (ReservedState) k.state;
        assertThat(s.leaseIds()).containsExactly(d.reservation().id());
        assertThat(s.leaseUnits()).containsExactly(100);
        assertThat(s.leaseEndsAtNanos()).containsExactly(T0 + S);
        assertThat(s.leaseHolderHigh()).containsExactly(HOLDER_HIGH);
        assertThat(s.leaseHolderLow()).containsExactly(HOLDER_LOW);
        assertThat(k.available(T0)).isEqualTo(900);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aFullBucketCannotRefillBehindALease(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        k.lease(1, 100, S, T0);
        // without the cap, 500 ms refill 500 tokens and the bucket is full again (1000) while 100 are out
        assertThat(k.available(T0 + 500 * MS)).isEqualTo(900); // C − n
        assertThat(k.take(901, T0 + 500 * MS).allowed()).isFalse();
        assertThat(k.take(900, T0 + 500 * MS).allowed()).isTrue();
        // 900 taken at 500 ms: 0 left, then 1 token per ms, still under the cap
        assertThat(k.available(T0 + 600 * MS)).isEqualTo(100);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void anUnreturnedLeaseEndsWithItsUnitsConsumedThenRefillResumes(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        k.lease(1, 100, S, T0);
        // at the end (T0 + 1 s) the level is held at 900; 10 ms later 910, not 1000
        assertThat(k.available(T0 + S)).isEqualTo(900);
        assertThat(k.available(T0 + S + 10 * MS)).isEqualTo(910);
        assertThat(k.available(T0 + S + 100 * MS)).isEqualTo(1000);
        // a decision after the end drops the record; the lease's reservation held until T0 + 1 s too, so the
        // bookkeeping goes with it
        k.take(1, T0 + S + 10 * MS);
        assertThat(k.state).isNotInstanceOf(ReservedState.class);
        assertThat(k.available(T0 + S + 10 * MS)).isEqualTo(909);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGiveBackReturnsTheUnusedUnitsOnceAndLiftsTheCap(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        Reservation lease = k.lease(1, 100, S, T0).outcome().decision().reservation();
        // at 100 ms: level capped at 900; the holder used 40, gives back 60: 960, no cap left
        assertThat(k.settle(lease, 40, T0 + 100 * MS).status()).isEqualTo(Settlement.Status.SETTLED);
        assertThat(k.available(T0 + 100 * MS)).isEqualTo(960);
        assertThat(((ReservedState) k.state).leaseCount()).isZero();
        // a retried give-back changes nothing
        assertThat(k.settle(lease, 0, T0 + 100 * MS).status()).isEqualTo(Settlement.Status.ALREADY_SETTLED);
        assertThat(k.available(T0 + 100 * MS)).isEqualTo(960);
        assertThat(k.available(T0 + 140 * MS)).isEqualTo(1000);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGiveBackUnderAnotherOpenLeaseStaysUnderThatLeasesCap(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        Reservation a = k.lease(1, 100, S, T0).outcome().decision().reservation();
        k.lease(1, 100, S, T0); // 800 left, cap 800
        assertThat(k.available(T0 + 50 * MS)).isEqualTo(800);
        // a gives back all 100 at 50 ms: 900, and the cap of b is C − 100 = 900
        k.settle(a, 0, T0 + 50 * MS);
        assertThat(k.available(T0 + 50 * MS)).isEqualTo(900);
        assertThat(k.available(T0 + 500 * MS)).isEqualTo(900);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGiveBackAfterTheEndChangesNothing(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        Reservation lease = k.lease(1, 100, S / 2, T0).outcome().decision().reservation();
        // the lease's reservation expires at the lease's end, not at the hold of 1 s
        assertThat(lease.expiresAtNanos()).isEqualTo(T0 + S / 2);
        assertThat(k.take(900, T0).allowed()).isTrue(); // 0 left, 100 out until T0 + 500 ms
        // 0 at T0, one token per millisecond (the cap of 900 never binds): 600 at 600 ms, after the lease's end
        assertThat(k.available(T0 + 600 * MS)).isEqualTo(600);
        // 30 unused units given back after the end: expired, they stay consumed (returning them could exceed the
        // exact limiter, whose bucket may have filled and been drawn on since)
        assertThat(k.settle(lease, 70, T0 + 600 * MS).status()).isEqualTo(Settlement.Status.EXPIRED);
        assertThat(k.available(T0 + 600 * MS)).isEqualTo(600);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aClockStepBackHoldsTheCapLonger(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        k.lease(1, 100, S, T0 + 10 * S);
        // the owner's clock steps back 5 s: the lease's end (T0 + 11 s) is further away, nothing refills or is lost
        assertThat(k.available(T0 + 5 * S)).isEqualTo(900);
        assertThat(k.take(900, T0 + 5 * S).allowed()).isTrue();
        assertThat(k.available(T0 + 5 * S + 950 * MS)).isEqualTo(900); // 950 refilled, capped at C − 100
    }

    /**
     * A lease that ended stays ended after a clock step back (docs/SPEC.md §2, §13): once a write at or after its
     * end dropped its record, a give-back at a reading stepped back before that end answers {@code expired}, as it
     * would have at the reading before the step. Capacity 20, 20 tokens per second (one per 50 ms, hold 1 s).
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aLeaseThatEndedStaysEndedAfterAClockStepBack(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 20));
        // T0: a lease of 12 until T0 + 200 ms; the holder spends 1 (the request in hand) and keeps 11 unused
        LeaseGrant g = k.lease(1, 12, 200 * MS, T0);
        assertThat(g.grantedUnits()).isEqualTo(12);
        assertThat(g.leaseEndNanos()).isEqualTo(T0 + 200 * MS);
        Reservation lease = g.outcome().decision().reservation();
        // T0 + 100 ms: 8 + 2 refilled, capped at C − 12 = 8; a reservation of 1 (expiring at T0 + 1.1 s) keeps the
        // key's reservation bookkeeping beyond the lease's end: 7
        Outcome reserved = RateLimitAlgorithms.reserve(k.state, k.policy, k.key, 1, T0 + 100 * MS, k.random);
        assertThat(reserved.decision().allowed()).isTrue();
        k.state = reserved.state();
        // the lease ends at T0 + 200 ms with 7 + 2 capped at 8; 550 ms refill 11 more: 19 at T0 + 750 ms, never full
        assertThat(k.available(T0 + 750 * MS)).isEqualTo(19);
        assertThat(k.take(19, T0 + 750 * MS).allowed()).isTrue(); // this write drops the ended lease's record
        ReservedState afterEnd = (ReservedState) k.state;
        assertThat(afterEnd.leaseCount()).isZero();
        assertThat(afterEnd.expiredThroughNanos()).isEqualTo(T0 + 200 * MS);
        // the owner's clock steps back 600 ms, to T0 + 150 ms, before the lease's end: the rebase keeps 0 tokens
        assertThat(k.available(T0 + 150 * MS)).isZero();
        // the holder's late give-back of its 11 unused units: the lease ended before the step, so it stays expired
        // and its units stay consumed. (Before the fix it was settled and 11 came back, while the exact limiter, on
        // the real clock at T0 + 750 ms, had 1 left: 19 at T0, full from T0 + 50 ms on, 1 reserved at T0 + 100 ms,
        // full again, 19 taken at T0 + 750 ms. Admitting those 11 would have been 10 above the limit.)
        Settlement s = k.settle(lease, 1, T0 + 150 * MS);
        assertThat(s.status()).isEqualTo(Settlement.Status.EXPIRED);
        assertThat(k.available(T0 + 150 * MS)).isZero();
        // a retry after the clock caught up answers the same
        assertThat(k.settle(lease, 1, T0 + 800 * MS).status()).isEqualTo(Settlement.Status.EXPIRED);
        // the exact limiter on the real clock, seeing only the admitted requests, has 1 left at T0 + 750 ms
        LeasedKey exact = new LeasedKey(k.policy);
        assertThat(exact.take(1, T0).allowed()).isTrue();
        assertThat(exact.take(1, T0 + 100 * MS).allowed()).isTrue();
        assertThat(exact.take(19, T0 + 750 * MS).allowed()).isTrue();
        assertThat(exact.available(T0 + 750 * MS)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aPolicyChangeKeepsTheLeasesUnderTheNewCapacity(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        k.lease(1, 100, S, T0);
        // the policy shrinks to capacity 500 (500 per second): 900 clamps to 500, the lease's 100 cap it at 400
        Policy smaller = bucket(algorithm, 500);
        assertThat(k.take(smaller, 401, T0 + 10 * MS).allowed()).isFalse();
        assertThat(k.take(smaller, 400, T0 + 10 * MS).allowed()).isTrue();
    }

    @Test
    void aPolicyWithAWindowBandIsNotLeased() {
        Policy windowed = Policy.builder("p").single(Band.fixedWindow("p", 1000, Duration.ofSeconds(1))).build();
        LeasedKey k = new LeasedKey(windowed);
        LeaseGrant g = k.lease(1, 100, S, T0);
        assertThat(g.grantedUnits()).isZero();
        assertThat(g.outcome().decision().allowed()).isTrue();
        assertThat(g.outcome().decision().remaining()).isEqualTo(999); // the request alone was decided
        assertThat(RateLimitAlgorithms.leasable(windowed)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGrantIsAtMostWhatIsLeftAndAtLeastTheCost(Algorithm algorithm) {
        LeasedKey k = new LeasedKey(bucket(algorithm, 1000));
        assertThat(k.take(970, T0).allowed()).isTrue();
        assertThat(k.lease(5, 100, S, T0).grantedUnits()).isEqualTo(30); // all that is left
        LeaseGrant none = k.lease(1, 100, S, T0);
        assertThat(none.grantedUnits()).isZero();
        assertThat(none.outcome().decision().allowed()).isFalse();
        assertThat(none.outcome().decision().retryAfterNanos()).isEqualTo(MS); // one token per millisecond
    }

    @Test
    void aKeyGrantsAtMostMaxLeasesAtOnce() {
        LeasedKey k = new LeasedKey(bucket(Algorithm.TOKEN_BUCKET, 1000));
        for (int i = 0; i < ReservedState.MAX_LEASES; i++) {
            assertThat(k.lease(1, 10, S, T0).grantedUnits()).isEqualTo(10);
        }
        LeaseGrant g = k.lease(1, 10, S, T0);
        assertThat(g.grantedUnits()).isZero();
        assertThat(g.outcome().decision().remaining()).isEqualTo(1000 - 640 - 1);
    }

    @Test
    void aLeaseLivesAtMostTheReservationHold() {
        // capacity 10 at 1000 per second: hold C·P/R = 10 ms, so a lease of 1 s asked ends at 10 ms
        Policy fast = Policy.builder("p").single(Band.tokenBucket("p", 10, 1000, Duration.ofSeconds(1))).build();
        LeasedKey k = new LeasedKey(fast);
        assertThat(k.lease(1, 5, S, T0).leaseEndNanos()).isEqualTo(T0 + 10 * MS);
    }

    @Test
    void badQuantitiesAreRefused() {
        LeasedKey k = new LeasedKey(bucket(Algorithm.TOKEN_BUCKET, 1000));
        assertThatThrownBy(() -> k.lease(5, 4, S, T0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("units 4 must be >= cost 5");
        assertThatThrownBy(() -> k.lease(1, 4, 0, T0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("durationNanos 0");
    }

    @Test
    void aMergeKeepsBothSidesLeases() {
        LeasedKey a = new LeasedKey(bucket(Algorithm.TOKEN_BUCKET, 1000));
        LeasedKey b = new LeasedKey(bucket(Algorithm.TOKEN_BUCKET, 1000));
        a.lease(1, 100, S, T0);
        b.lease(1, 50, S / 2, T0);
        LimiterState merged = MergeStates.moreConsumed(a.state, b.state, a.policy);
        ReservedState m = (ReservedState) merged;
        assertThat(m.leaseUnits()).containsExactly(50, 100); // by end
        assertThat(m.leaseEndsAtNanos()).containsExactly(T0 + S / 2, T0 + S);
        LeasedKey after = new LeasedKey(a.policy);
        after.state = merged;
        // the more consumed side (900) under both caps: 1000 − 150 = 850
        assertThat(after.available(T0 + 100 * MS)).isEqualTo(850);
    }
}
