package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Settlement;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import io.gridlimit.grid.lease.LeaseSettings;

/**
 * Quota leases on real members (docs/SPEC.md §13): two members with one backup, their clocks frozen or stepped by
 * hand, each limiter with its own manual monotonic ticker and no sweeper thread (the test sweeps). Every policy is a
 * token bucket of capacity 1000 refilling one token every 10 s, a fresh name per test.
 *
 * <p>Why so slow a refill: Hazelcast expires a state by its own wall clock, and a state's TTL is its time until it
 * equals a fresh one (SPEC §8), on the owner's clock, which these tests freeze. A state one token short of full thus
 * lives at least 10 s of real time, longer than any test here takes on a loaded machine; with one token per
 * millisecond a state written by the first request expired within a few milliseconds of real time, and the next
 * request found a full bucket (an extra unit: 982 for 981, 1009 admitted of 1000 under three CPU hogs).
 *
 * <p>With the default settings a key asks for a lease once 8 units were asked in the current window: requests 1 to
 * 7 go to the owner one by one, request 8 takes a lease of 8 units (itself the first), and the grant grows with
 * the observed rate up to a tenth of the capacity (100).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseGridTest {
    private static final Executor DIRECT = Runnable::run;
    /** The refill period of one token of every fresh policy. */
    private static final Duration TOKEN_PERIOD = Duration.ofSeconds(10);
    private static final long TOKEN_NANOS = TOKEN_PERIOD.toNanos();
    private GridTestSupport.Cluster cluster;
    private final AtomicLong ticksA = new AtomicLong(1_000_000_000_000L);
    private final AtomicLong ticksB = new AtomicLong(5_000_000_000_000L);
    private HazelcastRateLimiter a;
    private HazelcastRateLimiter b;
    private HazelcastRateLimiter plain;
    private int policies;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(2, 1);
        cluster.startMember(T0);
        cluster.startMember(T0);
        a = HazelcastRateLimiter.builder(cluster.members.get(0)).leases(true).leaseTicker(ticksA::get).build();
        b = HazelcastRateLimiter.builder(cluster.members.get(1)).leases(true).leaseTicker(ticksB::get).build();
        plain = HazelcastRateLimiter.create(cluster.members.get(0));
    }

    @AfterAll
    void stop() {
        a.close();
        b.close();
        plain.close();
        cluster.close();
    }

    private Policy freshPolicy() {
        String name = "lease" + (++policies);
        return Policy.builder(name).single(Band.tokenBucket(name, 1000, 1, TOKEN_PERIOD)).build();
    }

    private static Decision ask(HazelcastRateLimiter limiter, Policy policy, String key) {
        return limiter.tryAcquireAsync(policy, key, 1).toCompletableFuture().join();
    }

    /** The most one request could take now, by the owner's own (exact) decisions: probes that are never admitted. */
    private long available(Policy policy, String key) {
        Decision probe = plain.tryAcquire(policy, key, policy.bands().get(0).capacity());
        if (probe.allowed()) {
            throw new AssertionError("probe admitted: " + probe);
        }
        return probe.remaining();
    }

    private LimiterState stored(Policy policy, String key) {
        return cluster.members.get(0).<String, LimiterState>getMap("gridlimit." + policy.name()).get(key);
    }

    @Test
    void aBusyKeyIsDecidedFromLeasesAndAdmitsExactlyTheLimit() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        long asked = a.leaseStats().asked();
        int admitted = 0;
        for (int i = 0; i < 2000; i++) {
            admitted += ask(a, policy, "hot").allowed() ? 1 : 0;
        }
        // the clock is frozen: exactly the capacity, every leased unit used
        assertThat(admitted).isEqualTo(1000);
        long leases = a.leaseStats().asked() - asked;
        // 7 + 8 + 16 + 32 + 64 + 100 × 8 + ... : a few dozen lease requests, not 1000 decisions
        assertThat(leases).isBetween(5L, 40L);
        assertThat(a.leaseStats().localDenials()).isGreaterThan(900);
        // each used-up grant was closed with the next lease request: the owner does not count its units as out
        assertThat(a.leaseStats().closedEarly()).isGreaterThanOrEqualTo(leases - 2);
        LimiterState state = stored(policy, "hot");
        assertThat(state instanceof ReservedState r ? r.leaseCount() : 0).isLessThanOrEqualTo(1);
    }

    @Test
    void twoReplicasNeverAdmitAboveTheLimitAndTheUnusedUnitsComeBackAtTheEnd() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        int admitted = 0;
        for (int i = 0; i < 1500; i++) {
            admitted += ask(i % 2 == 0 ? a : b, policy, "shared").allowed() ? 1 : 0;
        }
        assertThat(admitted).isLessThanOrEqualTo(1000);
        // both replicas' leases end (their own tickers) and are given back; the owner's clock has not moved
        ticksA.addAndGet(2_000_000_000L);
        ticksB.addAndGet(2_000_000_000L);
        a.leases().sweep().join();
        b.leases().sweep().join();
        long left = available(policy, "shared");
        assertThat(admitted + left).as("admitted %d, left %d", admitted, left).isEqualTo(1000);
    }

    @Test
    void aGiveBackAtTheEndReturnsExactlyTheUnusedUnits() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        for (int i = 0; i < 10; i++) {
            assertThat(ask(a, policy, "k").allowed()).isTrue();
        }
        // 7 on the owner, then a lease of 8 (requests 8, 9, 10 from it): 1000 − 7 − 8 = 985 on the owner
        assertThat(available(policy, "k")).isEqualTo(985);
        ReservedState s = (ReservedState) stored(policy, "k");
        assertThat(s.leaseUnits()).containsExactly(8);
        assertThat(s.leaseHolderHigh()).containsExactly(
                cluster.members.get(0).getLocalEndpoint().getUuid().getMostSignificantBits());
        ticksA.addAndGet(2_000_000_000L);
        a.leases().sweep().join();
        // 5 unused units come back: 990 = 1000 − the 10 requests
        assertThat(available(policy, "k")).isEqualTo(990);
        assertThat(((ReservedState) stored(policy, "k")).leaseCount()).isZero();
    }

    @Test
    void aHolderThatNeverGivesBackLeavesItsUnitsConsumedUntilTheEnd() {
        cluster.setNanos(T0);
        // capacity 100 refilling 2 a second (one token per 500 ms), so that the state written by the one request
        // decided on the owner lives 500 ms of real time at least (Hazelcast's expiry, see the class note); leases of
        // at most 10 units, asked once 2 units were asked in a window, living 2 s
        String name = "lease" + (++policies);
        Policy policy = Policy.builder(name).single(Band.tokenBucket(name, 100, 2, Duration.ofSeconds(1))).build();
        HazelcastInstance client = cluster.startClient();
        AtomicLong ticks = new AtomicLong(0);
        LeaseSettings settings = new LeaseSettings(2_000_000_000L, 1_000_000_000L, 2,
                LeaseSettings.DEFAULTS.capacityShare(), LeaseSettings.DEFAULTS.maxKeys());
        HazelcastRateLimiter holder = HazelcastRateLimiter.builder(client).leases(settings).leaseTicker(ticks::get)
                .build();
        ask(holder, policy, "k"); // cold: decided on the owner
        ask(holder, policy, "k"); // 2 units asked: a lease of 2, this request the first from it
        assertThat(available(policy, "k")).isEqualTo(97); // 1 decided on the owner, a lease of 2 out
        // the holder dies without a give-back
        client.getLifecycleService().terminate();
        // the lease lives two sizing windows (2 s). 1.8 s later the bucket would hold 97 + 3 = 100 without the
        // cap; with it, 100 − 2 at most
        cluster.setNanos(T0 + 1_800_000_000L);
        assertThat(available(policy, "k")).isEqualTo(98);
        // the lease ends at T0 + 2 s with its units consumed; refill resumes from there
        cluster.setNanos(T0 + 2_000_000_000L);
        assertThat(available(policy, "k")).isEqualTo(98);
        cluster.setNanos(T0 + 2_500_000_000L);
        assertThat(available(policy, "k")).isEqualTo(99);
    }

    @Test
    void aReservationFromALeaseIsGivenBackIntoTheLeaseOnce() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        for (int i = 0; i < 8; i++) {
            ask(a, policy, "r");
        }
        Decision d = a.reserveHereAsync(policy, "r", 3, DIRECT).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(4); // 8 leased, 1 + 3 taken
        assertThat(a.giveBack(policy, d.reservation()).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.SETTLED);
        assertThat(a.giveBack(policy, d.reservation()).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.ALREADY_SETTLED);
        assertThat(ask(a, policy, "r").remaining()).isEqualTo(6); // the 3 are back in the lease
        ticksA.addAndGet(2_000_000_000L);
        a.leases().sweep().join();
        // 7 on the owner + 2 from the lease: 991
        assertThat(available(policy, "r")).isEqualTo(991);
        // after the lease ended a local reservation settles nothing: its cost stands
        assertThat(a.giveBack(policy, d.reservation()).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.EXPIRED);
    }

    @Test
    void aDenialIsAnsweredLocallyUntilTheOwnersRetryAfter() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        assertThat(plain.tryAcquire(policy, "d", 1000).allowed()).isTrue();
        // a cold key's denials go to the owner; the 8th request makes the key busy, and its lease request is
        // answered with the owner's denial
        long asked = a.leaseStats().asked();
        Decision first = null;
        for (int i = 0; i < 8; i++) {
            first = ask(a, policy, "d");
            assertThat(first.allowed()).isFalse();
        }
        assertThat(a.leaseStats().asked()).isEqualTo(asked + 1);
        assertThat(first.retryAfterNanos()).isEqualTo(TOKEN_NANOS); // one token per 10 s
        long local = a.leaseStats().localDenials();
        Decision second = ask(a, policy, "d");
        assertThat(second.allowed()).isFalse();
        assertThat(a.leaseStats().localDenials()).isEqualTo(local + 1);
        // the owner's retryAfter less the time since it was asked (the ticker has not moved)
        assertThat(second.retryAfterNanos()).isEqualTo(TOKEN_NANOS);
        // once the ticker passes the owner's retryAfter the owner decides again (its clock moved 10 s too)
        ticksA.addAndGet(TOKEN_NANOS);
        cluster.setNanos(T0 + TOKEN_NANOS);
        assertThat(ask(a, policy, "d").allowed()).isTrue();
    }

    @Test
    void aPolicyChangeEndsTheGrantAndGivesItsUnusedUnitsBack() {
        cluster.setNanos(T0);
        Policy policy = freshPolicy();
        for (int i = 0; i < 9; i++) {
            ask(a, policy, "c");
        }
        // 7 + a lease of 8 (2 used): 985 on the owner; the same name now refills twice as fast
        Policy changed = Policy.builder(policy.name()).single(Band.tokenBucket(policy.name(), 1000, 2,
                TOKEN_PERIOD)).build();
        Decision d = a.tryAcquireAsync(changed, "c", 1).toCompletableFuture().join();
        assertThat(d.allowed()).isTrue();
        // the old grant's give-back (6 unused) left before the new lease request, which took 10 (1 used): 981
        assertThat(plain.tryAcquire(changed, "c", 1000).remaining()).isEqualTo(981);
        ticksA.addAndGet(2_000_000_000L);
        a.leases().sweep().join();
        // 1000 − 9 − 1 = 990 once the new lease's 9 unused units are back too
        assertThat(plain.tryAcquire(changed, "c", 1000).remaining()).isEqualTo(990);
    }
}
