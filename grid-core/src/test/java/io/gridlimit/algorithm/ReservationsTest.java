package io.gridlimit.algorithm;

import static io.gridlimit.algorithm.Key.S;
import static io.gridlimit.algorithm.Key.allowed;
import static io.gridlimit.algorithm.Key.denied;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.api.Settlement.Status;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exact values of reservations, settles and debts per algorithm (docs/SPEC.md §10), each number worked by hand in
 * the comments. Time is a plain {@code long}; the random source is seeded.
 */
class ReservationsTest {
    /** A reading aligned to every window of 1 s to 1 h: 2026-01-01T00:00:00Z. */
    private static final long T0 = 1_767_225_600L * S;

    /** One key as the grid keeps it, with reservations. */
    static final class ReservedKey {
        final String key = "user:1";
        Policy policy;
        LimiterState state;
        final Random random = new Random(42);

        ReservedKey(Policy policy) {
            this.policy = policy;
        }

        Decision reserve(long cost, long nowNanos) {
            Outcome o = RateLimitAlgorithms.reserve(state, policy, key, cost, nowNanos, random);
            if (o.write()) {
                state = o.state();
            }
            return o.decision();
        }

        Decision take(long cost, long nowNanos) {
            Outcome o = RateLimitAlgorithms.apply(state, policy, cost, nowNanos);
            if (o.write()) {
                state = o.state();
            }
            return o.decision();
        }

        Settlement settle(Reservation r, long actual, long nowNanos) {
            SettleOutcome o = RateLimitAlgorithms.settle(state, policy, key, r, actual, nowNanos);
            if (o.write()) {
                state = o.state();
            }
            return o.settlement();
        }
    }

    static Policy bucket(Algorithm algorithm, long capacity, long maxDebt) {
        Band band = algorithm == Algorithm.GCRA ? Band.gcra("p", capacity, 1, Duration.ofSeconds(1))
                : Band.tokenBucket("p", capacity, 1, Duration.ofSeconds(1));
        return Policy.builder("p").single(band.withMaxDebt(maxDebt)).build();
    }

    private static Settlement settled(long actual, long excess) {
        return new Settlement(Status.SETTLED, actual, excess);
    }

    private static Settlement inDebt(long actual, long excess) {
        return new Settlement(Status.SETTLED, actual, excess, true);
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void bucketGivesTokensBackAsIfTheActualCostHadBeenTaken(Algorithm algorithm) {
        ReservedKey key = new ReservedKey(bucket(algorithm, 10, 10));
        // capacity 10, 1 token/s: reserve 4 -> 6 left, full again in 4 s
        Decision d = key.reserve(4, T0);
        assertThat(d.withReservation(null)).isEqualTo(allowed(10, 6, 4 * S));
        Reservation r = d.reservation();
        assertThat(r.cost()).isEqualTo(4);
        assertThat(r.reservedAtNanos()).isEqualTo(T0);
        assertThat(r.expiresAtNanos()).as("hold: capacity·P/R = 10 s").isEqualTo(T0 + 10 * S);
        // 0.5 s later: 6.5 tokens; settle to 1 gives 3 back -> 9.5; take 1 -> 8.5: remaining 8, full in 1.5 s,
        // exactly as taking 1 at T0 and 1 at T0 + 0.5 s
        assertThat(key.settle(r, 1, T0 + S / 2)).isEqualTo(settled(1, 0));
        assertThat(key.take(1, T0 + S / 2)).isEqualTo(allowed(10, 8, 1_500_000_000L));
        ReservedKey direct = new ReservedKey(key.policy);
        direct.take(1, T0);
        assertThat(direct.take(1, T0 + S / 2)).isEqualTo(allowed(10, 8, 1_500_000_000L));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void bucketGiveBackIsCappedAtCapacity(Algorithm algorithm) {
        ReservedKey key = new ReservedKey(bucket(algorithm, 10, 10));
        Reservation r = key.reserve(4, T0).reservation();
        // 3 s later: 9 tokens; 4 back would be 13: capped at 10 (TAT not before now)
        assertThat(key.settle(r, 0, T0 + 3 * S)).isEqualTo(settled(0, 0));
        assertThat(key.take(1, T0 + 3 * S)).isEqualTo(allowed(10, 9, S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void bucketChargeCreatesADebtThatLaterRequestsRepay(Algorithm algorithm) {
        ReservedKey key = new ReservedKey(bucket(algorithm, 10, 10));
        Reservation r = key.reserve(2, T0).reservation(); // 8 left
        // settle to 15: 13 more; 8 - 13 = -5 (within the maximum debt 10)
        assertThat(key.settle(r, 15, T0)).isEqualTo(inDebt(15, 0));
        // remaining max(0, -5) = 0; full after 15 tokens (15 s); 1 token after 6 s
        assertThat(key.take(1, T0)).isEqualTo(denied(10, 0, 15 * S, 6 * S));
        assertThat(key.take(1, T0 + 6 * S)).isEqualTo(allowed(10, 0, 10 * S));
        // a retried settle, with any actual, changes nothing
        LimiterState before = key.state;
        assertThat(key.settle(r, 0, T0 + 6 * S)).isEqualTo(new Settlement(Status.ALREADY_SETTLED, 15, 0));
        assertThat(key.state).isSameAs(before);
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void bucketDebtStopsAtTheMaximumAndReportsTheExcess(Algorithm algorithm) {
        ReservedKey key = new ReservedKey(bucket(algorithm, 10, 10));
        Reservation r = key.reserve(2, T0).reservation(); // 8 left
        // settle to 25: 23 more, but the balance stops at -10: 18 charged, 5 reported
        assertThat(key.settle(r, 25, T0)).isEqualTo(inDebt(25, 5));
        assertThat(key.take(1, T0)).isEqualTo(denied(10, 0, 20 * S, 11 * S));

        ReservedKey none = new ReservedKey(bucket(algorithm, 10, 0));
        Reservation r0 = none.reserve(2, T0).reservation();
        // maximum debt 0: 13 more with 8 left: 8 charged, 5 reported; the bucket is empty, not below
        assertThat(none.settle(r0, 15, T0)).isEqualTo(settled(15, 5));
        assertThat(none.take(1, T0)).isEqualTo(denied(10, 0, 10 * S, S));
    }

    @ParameterizedTest
    @EnumSource(names = {"TOKEN_BUCKET", "GCRA"})
    void unknownForgedExpiredAndOtherPolicyChangeNothing(Algorithm algorithm) {
        ReservedKey key = new ReservedKey(bucket(algorithm, 10, 10));
        Reservation r = key.reserve(4, T0).reservation();
        LimiterState before = key.state;
        byte[] mac = r.mac();
        mac[0] ^= 1;
        assertThat(key.settle(r.withMac(mac), 0, T0).status()).isEqualTo(Status.FORGED);
        Reservation otherId = new Reservation("p", "user:1", r.stateId(), r.id() + 1, T0, r.expiresAtNanos(), 4,
                r.bands(), r.mac());
        assertThat(key.settle(otherId, 0, T0).status()).as("another id under the same MAC").isEqualTo(Status.FORGED);
        Reservation otherState = new Reservation("p", "user:1", r.stateId() + 1, r.id(), T0, r.expiresAtNanos(), 4,
                r.bands(), r.mac());
        assertThat(key.settle(otherState, 0, T0)).isEqualTo(new Settlement(Status.UNKNOWN, 4, 0));
        assertThat(key.settle(r, 0, r.expiresAtNanos())).isEqualTo(new Settlement(Status.EXPIRED, 4, 0));
        assertThat(key.state).isSameAs(before);
        // a reservation of another key is refused by the signature: the key is signed
        SettleOutcome otherKey = RateLimitAlgorithms.settle(key.state, key.policy, "user:2", r, 0, T0);
        assertThat(otherKey.settlement().status()).isEqualTo(Status.FORGED);
        assertThat(RateLimitAlgorithms.settle(null, key.policy, "user:1", r, 0, T0).settlement().status())
                .as("a lost state").isEqualTo(Status.UNKNOWN);
        assertThatThrownBy(() -> key.settle(r, -1, T0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("actual must be in [0, 1000000000000000], got -1");
    }

    @Test
    void aTokenRoundTripsAndBadTokensAreNamed() {
        ReservedKey key = new ReservedKey(bucket(Algorithm.TOKEN_BUCKET, 10, 10));
        Reservation r = key.reserve(4, T0).reservation();
        assertThat(Reservation.parse(r.token())).isEqualTo(r);
        assertThatThrownBy(() -> Reservation.parse("***")).hasMessage(
                "a reservation token is URL-safe base64 without padding");
        assertThatThrownBy(() -> Reservation.parse(r.token().substring(0, 20)))
                .hasMessage("the reservation token is truncated");
        assertThatThrownBy(() -> Reservation.parse("")).hasMessageStartingWith("a reservation token has 1 to 4096");
        // One reservation has one token: padding and set unused bits are refused (found by a hostile review).
        assertThatThrownBy(() -> Reservation.parse(r.token() + "==")).hasMessage(
                "a reservation token is URL-safe base64 without padding");
        assertThatThrownBy(() -> Reservation.parse("AR")).as("decodes to 0x01 with unused bits 0001").hasMessage(
                "a reservation token is URL-safe base64 without padding");
        assertThatThrownBy(() -> Reservation.parse("AQ")).as("the canonical form of 0x01 reads on")
                .hasMessage("the reservation token is truncated");
    }

    @Test
    void fixedWindowLowersTheCountInTheReservationsWindowOnly() {
        ReservedKey key = new ReservedKey(Policy.builder("p").fixedWindow(10, Duration.ofMinutes(1)).build());
        Reservation r = key.reserve(4, T0 + 10 * S).reservation();
        assertThat(r.expiresAtNanos()).as("the end of its window").isEqualTo(T0 + 60 * S);
        // settle to 1 in the same window: count 1; 9 more fit
        assertThat(key.settle(r, 1, T0 + 20 * S)).isEqualTo(settled(1, 0));
        assertThat(key.take(9, T0 + 20 * S)).isEqualTo(allowed(10, 0, 40 * S));

        ReservedKey late = new ReservedKey(key.policy);
        Reservation r2 = late.reserve(4, T0 + 50 * S).reservation();
        late.take(6, T0 + 50 * S); // the window is full
        // the reservation expires with its window: a settle in the next one changes nothing
        assertThat(late.settle(r2, 0, T0 + 61 * S).status()).isEqualTo(Status.EXPIRED);
        assertThat(late.take(10, T0 + 61 * S)).isEqualTo(allowed(10, 0, 59 * S));
    }

    @Test
    void fixedWindowChargeGoesUpToLimitPlusMaximumDebt() {
        ReservedKey key = new ReservedKey(Policy.builder("p").fixedWindow(10, Duration.ofMinutes(1)).build());
        Reservation r = key.reserve(5, T0).reservation();
        // 20 more asked; count may reach 10 + 10: 15 charged, 5 reported
        assertThat(key.settle(r, 25, T0 + S)).isEqualTo(inDebt(25, 5));
        // count 20 > 10: remaining 0, retry when the window ends
        assertThat(key.take(1, T0 + S)).isEqualTo(denied(10, 0, 59 * S, 59 * S));
        assertThat(key.take(10, T0 + 60 * S)).isEqualTo(allowed(10, 0, 60 * S));
    }

    @Test
    void slidingWindowCounterChangesTheCountWhereItNowStands() {
        Policy policy = Policy.builder("p").slidingWindowCounter(10, Duration.ofMinutes(1)).build();
        ReservedKey key = new ReservedKey(policy);
        Reservation r = key.reserve(6, T0 + 30 * S).reservation();
        assertThat(r.expiresAtNanos()).as("the end of the window after its own").isEqualTo(T0 + 120 * S);
        // next window, halfway: settle to 2 lowers the previous count to 2; weight ceil(30/60·2) = 1; free 9;
        // after taking 1: 8 (as deciding 2 at T0 + 30 s would have left)
        assertThat(key.settle(r, 2, T0 + 90 * S)).isEqualTo(settled(2, 0));
        assertThat(key.take(1, T0 + 90 * S)).isEqualTo(allowed(10, 8, 90 * S));
        ReservedKey direct = new ReservedKey(policy);
        direct.take(2, T0 + 30 * S);
        assertThat(direct.take(1, T0 + 90 * S)).isEqualTo(allowed(10, 8, 90 * S));

        ReservedKey same = new ReservedKey(policy);
        Reservation r2 = same.reserve(6, T0 + 30 * S).reservation();
        // same window: current 6 -> 14 (8 more); remaining max(0, 10 - 14) = 0
        assertThat(same.settle(r2, 14, T0 + 40 * S)).isEqualTo(inDebt(14, 0));
        assertThat(same.take(1, T0 + 40 * S).remaining()).isZero();
    }

    @Test
    void slidingWindowLogReducesOrRemovesTheEntry() {
        Policy policy = Policy.builder("p").slidingWindowLog(5, Duration.ofSeconds(30)).build();
        ReservedKey key = new ReservedKey(policy);
        Reservation r = key.reserve(3, T0).reservation();
        assertThat(r.expiresAtNanos()).as("the entry's life: W + 1 ns").isEqualTo(T0 + 30 * S + 1);
        key.take(1, T0 + S);
        // entry at T0: 3 -> 1; sum 2; 3 more fit
        assertThat(key.settle(r, 1, T0 + 2 * S)).isEqualTo(settled(1, 0));
        assertThat(((SlidingWindowLogState) ((ReservedState) key.state).inner()).entryCosts()).containsExactly(1, 1);
        assertThat(key.take(3, T0 + 2 * S)).isEqualTo(allowed(5, 0, 30 * S + 1));

        ReservedKey gone = new ReservedKey(policy);
        Reservation r2 = gone.reserve(2, T0).reservation();
        assertThat(gone.settle(r2, 0, T0 + S)).isEqualTo(settled(0, 0));
        assertThat(((SlidingWindowLogState) ((ReservedState) gone.state).inner()).size()).as("removed").isZero();
        assertThat(gone.take(5, T0 + S)).isEqualTo(allowed(5, 0, 30 * S + 1));
    }

    @Test
    void compositeSettlesEveryBandOfTheReservation() {
        Policy policy = Policy.builder("p").band(Band.tokenBucket("burst", 10, 1, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("minute", 20, Duration.ofMinutes(1))).build();
        ReservedKey key = new ReservedKey(policy);
        Reservation r = key.reserve(8, T0).reservation();
        assertThat(r.bands()).extracting(Reservation.BandShape::name).containsExactly("burst", "minute");
        assertThat(key.settle(r, 2, T0)).isEqualTo(settled(2, 0));
        // burst 10 - 2 = 8 left; minute 20 - 2 = 18 left; take 8: burst 0, binding
        assertThat(key.take(8, T0)).isEqualTo(new Decision(true, 10, 0, 10 * S, Decision.NO_RETRY, "burst"));
        // 59 s later: burst full again, 9 after 1; minute 20 - 2 - 8 - 1 = 9 too, both full in 1 s: the tie binds
        // the first declared band
        assertThat(key.take(1, T0 + 59 * S)).isEqualTo(new Decision(true, 10, 9, S, Decision.NO_RETRY, "burst"));
        assertThat(key.take(1, T0 + 59 * S)).isEqualTo(new Decision(true, 20, 8, S, Decision.NO_RETRY, "minute"));

        // a band replaced since (other window) is not touched: its state is fresh for the new shape
        Policy changed = Policy.builder("p").band(Band.tokenBucket("burst", 10, 1, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("minute", 20, Duration.ofMinutes(2))).build();
        ReservedKey k2 = new ReservedKey(policy);
        Reservation r2 = k2.reserve(8, T0).reservation();
        k2.policy = changed;
        assertThat(k2.take(2, T0).allowed()).isTrue(); // burst 0; minute, fresh in its new shape, 2
        assertThat(k2.settle(r2, 0, T0)).isEqualTo(settled(0, 0));
        // burst: 0 + 8 = 8 left, 7 after 1 (full in 3 s); minute: nothing given back, 3 after 1
        assertThat(k2.take(1, T0)).isEqualTo(new Decision(true, 10, 7, 3 * S, Decision.NO_RETRY, "burst"));
        assertThat(((CompositeState) ((ReservedState) k2.state).inner()).bandState("minute"))
                .isEqualTo(new FixedWindowState(T0, 3, 2 * 60 * S));
    }

    @Test
    void theStateIsHeldUntilTheLastReservationExpiresAndThenDropsTheBookkeeping() {
        ReservedKey key = new ReservedKey(bucket(Algorithm.TOKEN_BUCKET, 10, 10));
        Outcome o = RateLimitAlgorithms.reserve(null, key.policy, key.key, 1, T0, key.random);
        // the bucket is full after 1 s, but the reservation holds 10 s
        assertThat(o.ttlNanos()).isEqualTo(10 * S);
        key.state = o.state();
        assertThat(RateLimitAlgorithms.isFresh(key.state, key.policy, T0 + 5 * S)).isFalse();
        assertThat(RateLimitAlgorithms.isFresh(key.state, key.policy, T0 + 10 * S)).isTrue();
        key.take(1, T0 + 10 * S);
        assertThat(key.state).isInstanceOf(TokenBucketState.class);
    }

    @Test
    void settleRecordsAreBoundedAndTheOldestIdsClosed() {
        ReservedKey key = new ReservedKey(Policy.builder("p").tokenBucket(1_000_000, 1, Duration.ofSeconds(1))
                .build());
        int n = ReservedState.MAX_SETTLE_RECORDS + 2;
        Reservation[] rs = new Reservation[n];
        for (int i = 0; i < n; i++) {
            rs[i] = key.reserve(2, T0).reservation();
        }
        for (int i = 0; i < n; i++) {
            assertThat(key.settle(rs[i], 1, T0).status()).isEqualTo(Status.SETTLED);
        }
        ReservedState s = (ReservedState) key.state;
        assertThat(s.settledIds()).hasSize(ReservedState.MAX_SETTLE_RECORDS);
        assertThat(s.closedBelow()).isEqualTo(3);
        assertThat(key.settle(rs[0], 1, T0).status()).as("closed: the record is gone").isEqualTo(Status.UNKNOWN);
        assertThat(key.settle(rs[n - 1], 0, T0)).isEqualTo(new Settlement(Status.ALREADY_SETTLED, 1, 0));
        // 1 000 000 - 2·1026 + 1026 = 998 974 tokens
        assertThat(key.take(1, T0).remaining()).isEqualTo(998_973);
    }

    @Test
    void aDenialCarriesNoReservationAndConsumesNothing() {
        ReservedKey key = new ReservedKey(bucket(Algorithm.TOKEN_BUCKET, 3, 3));
        assertThat(key.reserve(4, T0).reservation()).isNull();
        assertThat(key.state).isNull();
        assertThat(key.reserve(3, T0).reservation()).isNotNull();
        assertThat(key.reserve(1, T0)).isEqualTo(denied(3, 0, 3 * S, S));
    }

    @Test
    void mergeClosesEveryReservationAndKeepsTheMoreConsumedState() {
        Policy policy = bucket(Algorithm.TOKEN_BUCKET, 10, 10);
        ReservedKey a = new ReservedKey(policy);
        Reservation r = a.reserve(4, T0).reservation();
        LimiterState merged = MergeStates.moreConsumed(a.state, new TokenBucketState(T0, 3, 0, S), policy);
        assertThat(merged).isInstanceOf(ReservedState.class);
        assertThat(((ReservedState) merged).inner()).isEqualTo(new TokenBucketState(T0, 3, 0, S));
        assertThat(RateLimitAlgorithms.settle(merged, policy, "user:1", r, 0, T0).settlement().status())
                .isEqualTo(Status.UNKNOWN);
        assertThat(List.of(((ReservedState) merged).closedBelow())).containsExactly(2L);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGiveBackAfterTheBucketFilledUpGivesNothingBack(Algorithm algorithm) {
        // capacity 20, 20 tokens per second: one token per 50 ms
        Band band = algorithm == Algorithm.GCRA ? Band.gcra("p", 20, 20, Duration.ofSeconds(1))
                : Band.tokenBucket("p", 20, 20, Duration.ofSeconds(1));
        ReservedKey k = new ReservedKey(Policy.builder("p").single(band).build());
        Decision r = k.reserve(10, T0); // 10 left
        // full again at T0 + 500 ms; 7 taken then: 13, as deciding 0 at T0 would leave too
        assertThat(k.take(7, T0 + 500 * Key.MS).remaining()).isEqualTo(13);
        // a give-back of the 10 now would make 20 where the exact limiter has 13: nothing comes back (SPEC §10)
        assertThat(k.settle(r.reservation(), 0, T0 + 500 * Key.MS).status()).isEqualTo(Status.SETTLED);
        assertThat(k.take(14, T0 + 500 * Key.MS).allowed()).isFalse();
        assertThat(k.take(13, T0 + 500 * Key.MS).allowed()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void aGiveBackBeforeTheBucketFilledUpIsExact(Algorithm algorithm) {
        Band band = algorithm == Algorithm.GCRA ? Band.gcra("p", 20, 20, Duration.ofSeconds(1))
                : Band.tokenBucket("p", 20, 20, Duration.ofSeconds(1));
        ReservedKey k = new ReservedKey(Policy.builder("p").single(band).build());
        Decision r = k.reserve(10, T0); // 10 left
        assertThat(k.take(3, T0 + 100 * Key.MS).remaining()).isEqualTo(9); // 10 + 2 refilled − 3
        // give back 10 at 200 ms (11 then): 20, as deciding 0 at T0 then 3 at 100 ms leaves (20 − 3 + 2, full)
        assertThat(k.settle(r.reservation(), 0, T0 + 200 * Key.MS).status()).isEqualTo(Status.SETTLED);
        assertThat(k.take(20, T0 + 200 * Key.MS).allowed()).isTrue();
    }
}
