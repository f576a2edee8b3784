package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A hostile review of quota leases (docs/SPEC.md §13) on real members: two members with one backup, frozen owner
 * clocks, three leasing replicas (member 0, member 1 and a client), each with its own manual ticker and no sweeper,
 * and a plain limiter without leases as the exact reference. With the default settings a key's requests 1 to 7 go
 * to the owner one by one and request 8 takes a lease of 8 units.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseAttackGridTest {
    private static final java.util.concurrent.Executor DIRECT = Runnable::run;
    private GridTestSupport.Cluster cluster;
    private final AtomicLong ticksA = new AtomicLong(1_000_000_000_000L);
    private final AtomicLong ticksB = new AtomicLong(5_000_000_000_000L);
    private final AtomicLong ticksC = new AtomicLong(9_000_000_000_000L);
    private HazelcastRateLimiter a;
    private HazelcastRateLimiter b;
    private HazelcastRateLimiter c;
    private HazelcastRateLimiter plain;
    private int policies;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(2, 1);
        cluster.startMember(T0);
        cluster.startMember(T0);
        a = HazelcastRateLimiter.builder(cluster.members.get(0)).leases(true).leaseTicker(ticksA::get).build();
        b = HazelcastRateLimiter.builder(cluster.members.get(1)).leases(true).leaseTicker(ticksB::get).build();
        c = HazelcastRateLimiter.builder(cluster.startClient()).leases(true).leaseTicker(ticksC::get).build();
        plain = HazelcastRateLimiter.create(cluster.members.get(0));
    }

    @AfterAll
    void stop() {
        a.close();
        b.close();
        c.close();
        plain.close();
        cluster.close();
    }

    /** A token bucket of 1000 refilling 1000 an hour: its state outlives the test in real time. */
    private Policy hourly() {
        String name = "attack" + (++policies);
        return Policy.builder(name).single(Band.tokenBucket(name, 1000, 1000, Duration.ofHours(1))).build();
    }

    private static boolean take(HazelcastRateLimiter limiter, Policy policy, String key, long cost) {
        return take(limiter, policy, key, cost, DIRECT);
    }

    private static boolean take(HazelcastRateLimiter limiter, Policy policy, String key, long cost,
                                java.util.concurrent.Executor on) {
        return limiter.tryAcquireAsync(policy, key, cost, on).toCompletableFuture().join().allowed();
    }

    private static Decision reserveHere(HazelcastRateLimiter limiter, Policy policy, String key, long cost) {
        return reserveHere(limiter, policy, key, cost, DIRECT);
    }

    private static Decision reserveHere(HazelcastRateLimiter limiter, Policy policy, String key, long cost,
                                        java.util.concurrent.Executor on) {
        return limiter.reserveHereAsync(policy, key, cost, on).toCompletableFuture().join();
    }

    /** The most one request could take now, by the owner's own decision (a probe above the least capacity). */
    private long available(Policy policy, String key) {
        Decision probe = plain.tryAcquire(policy, key, 1001); // above every narrowest band used here
        assertThat(probe.allowed()).isFalse();
        return probe.remaining();
    }

    private void endLeases() {
        ticksA.addAndGet(5_000_000_000L);
        ticksB.addAndGet(5_000_000_000L);
        ticksC.addAndGet(5_000_000_000L);
        a.leases().sweep().join();
        b.leases().sweep().join();
        c.leases().sweep().join();
    }

    /**
     * One script of reservations and settles, run through a leasing replica on one key and through the plain
     * limiter (reservations on the owner, the exact limiter) on another: 984 taken at once, 7 single requests, an
     * 8th (the lease's first unit), a reservation of 4 settled to 7 (3 more than reserved, when the grant has no
     * unit left), a reservation of 3 given back, then three requests of 1.
     *
     * <p>Exactly: 984 + 7 + 1 + 4 + 3 = 999 leave 1; the settle to 7 charges 3 (a debt of 2), the give-back of 3
     * brings the bucket to 1: one of the three requests is admitted. From the lease (SPEC §13): a charge beyond the
     * units the grant holds ends the grant and charges the owner at once (the lease settled to the 11 units used),
     * so the later give-back of 3 finds the grant ended and answers {@code expired} (its cost stands): all three
     * are denied, never more than the exact limiter admits. (Before: the charge beyond the units left was dropped
     * from the grant's count, the give-back refilled the grant with units it no longer had, and all three were
     * admitted.)
     */
    @Test
    void aChargeBeyondTheGrantsUnitsThenAGiveBackAdmitsMoreThanTheExactLimiter() {
        cluster.setNanos(T0);
        Policy policy = hourly();
        List<Boolean> exact = script(plain, policy, "exact", Settlement.Status.SETTLED);
        List<Boolean> leased = script(a, policy, "leased", Settlement.Status.EXPIRED);
        assertThat(exact).containsExactly(true, false, false);
        assertThat(leased).as("the same script from a lease").containsExactly(false, false, false);
    }

    private List<Boolean> script(HazelcastRateLimiter limiter, Policy policy, String key,
                                 Settlement.Status giveBack) {
        assertThat(plain.tryAcquire(policy, key, 984).allowed()).isTrue();
        for (int i = 0; i < 8; i++) {
            assertThat(take(limiter, policy, key, 1)).isTrue();
        }
        Decision r1 = reserveHere(limiter, policy, key, 4);
        Decision r2 = reserveHere(limiter, policy, key, 3);
        assertThat(r1.allowed()).isTrue();
        assertThat(r2.allowed()).isTrue();
        assertThat(limiter.settleAsync(policy, r1.reservation(), 7).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.SETTLED);
        assertThat(limiter.giveBack(policy, r2.reservation()).toCompletableFuture().join().status())
                .isEqualTo(giveBack);
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(take(limiter, policy, key, 1));
        }
        return out;
    }

    /**
     * A reservation from a lease settled above its cost and above the grant's units: the rest is only charged with
     * the lease's settle, so meanwhile the owner hands out tokens the exact limiter (which charged at once) no
     * longer has. 980 taken, 7 single requests, an 8th (a lease of 8: 5 stay on the owner), a reservation of 2
     * settled to 12: exactly, 980 + 8 + 2 + 10 = 1000 and a request of 1 is denied; the owner still has its 5 and
     * admits it (the 10 are charged only when the lease is settled).
     */
    @Test
    void aChargeDeferredToTheLeasesSettleLetsTheOwnerAdmitWhatTheExactLimiterRefuses() {
        cluster.setNanos(T0);
        Policy policy = hourly();
        for (String key : List.of("exact", "leased")) {
            HazelcastRateLimiter limiter = key.equals("exact") ? plain : a;
            assertThat(plain.tryAcquire(policy, key, 980).allowed()).isTrue();
            for (int i = 0; i < 8; i++) {
                assertThat(take(limiter, policy, key, 1)).isTrue();
            }
            Decision r = reserveHere(limiter, policy, key, 2);
            assertThat(r.allowed()).isTrue();
            assertThat(limiter.settleAsync(policy, r.reservation(), 12).toCompletableFuture().join().status())
                    .isEqualTo(Settlement.Status.SETTLED);
        }
        // exact: 980 + 8 + 2 = 990, then a charge of 10: 0
        assertThat(plain.tryAcquire(policy, "exact", 1).allowed()).isFalse();
        assertThat(plain.tryAcquire(policy, "leased", 1).allowed()).as("owner while the charge waits on the holder")
                .isFalse();
    }

    /**
     * Three replicas (two members and a client) and eight threads each hammer one key of one policy with a frozen
     * owner clock: plain requests, reservations from leases settled to less than reserved (0 included, twice), all of
     * random cost 1 to 3. The units consumed (a settled reservation its actual, an expired one its reserved cost, a
     * decision its cost) never exceed the capacity, and once every lease ended and came back, consumed plus the
     * owner's tokens are the capacity exactly.
     */
    @Test
    void threeReplicasHammeringOneKeyNeverConsumeAboveTheCapacity() throws Exception {
        for (Policy policy : List.of(
                hourly(),
                Policy.builder("attack-gcra" + (++policies)).gcra(1000, 1000, Duration.ofHours(1)).build(),
                Policy.builder("attack-comp" + (++policies))
                        .band(Band.tokenBucket("wide", 3000, 3000, Duration.ofHours(1)))
                        .band(Band.tokenBucket("narrow", 1000, 1000, Duration.ofHours(1)))
                        .build())) {
            hammer(policy, 1000);
        }
    }

    private void hammer(Policy policy, long capacity) throws Exception {
        cluster.setNanos(T0);
        List<HazelcastRateLimiter> replicas = List.of(a, b, c);
        long leasedBefore = replicas.stream().mapToLong(r -> r.leaseStats().leasedDecisions()).sum();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        // not a direct executor: see aDirectExecutorFailsTheNextCoalescedBatch
        ExecutorService on = Executors.newFixedThreadPool(2);
        List<Future<long[]>> work = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                HazelcastRateLimiter limiter = replicas.get(t % 3);
                long seed = t;
                work.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    long consumed = 0;
                    long admitted = 0;
                    for (int i = 0; i < 250; i++) {
                        long cost = 1 + random.nextInt(3);
                        if (random.nextBoolean()) {
                            if (take(limiter, policy, "hot", cost, on)) {
                                consumed += cost;
                                admitted++;
                            }
                            continue;
                        }
                        Decision d = reserveHere(limiter, policy, "hot", cost, on);
                        if (!d.allowed()) {
                            continue;
                        }
                        admitted++;
                        long actual = random.nextInt((int) cost + 1);
                        Settlement s = limiter.settleAsync(policy, d.reservation(), actual).toCompletableFuture()
                                .join();
                        Settlement again = limiter.giveBack(policy, d.reservation()).toCompletableFuture().join();
                        consumed += switch (s.status()) {
                            case SETTLED -> actual;
                            case EXPIRED, UNKNOWN -> cost;
                            default -> throw new AssertionError(s);
                        };
                        assertThat(again.status()).isIn(Settlement.Status.ALREADY_SETTLED,
                                Settlement.Status.EXPIRED, Settlement.Status.UNKNOWN);
                    }
                    return new long[] {consumed, admitted};
                }));
            }
            long consumed = 0;
            for (Future<long[]> f : work) {
                consumed += f.get()[0];
            }
            assertThat(consumed).as(policy.name()).isLessThanOrEqualTo(capacity);
            // the attack went through leases: most admissions were decided from grants
            assertThat(replicas.stream().mapToLong(r -> r.leaseStats().leasedDecisions()).sum() - leasedBefore)
                    .as(policy.name()).isGreaterThan(capacity / 3);
            endLeases();
            long left = available(policy, "hot");
            assertThat(consumed + left).as("%s: consumed %d, left %d", policy.name(), consumed, left)
                    .isEqualTo(capacity);
        } finally {
            pool.shutdownNow();
            on.shutdownNow();
        }
    }

    /**
     * {@code tryAcquireAsync(policy, key, cost, executor)} with a direct executor ({@code Runnable::run}, a valid
     * {@link java.util.concurrent.Executor}; also what {@code async.NeverRejectingExecutor} falls back to when an event
     * loop rejects): the owner's answer to a coalesced batch runs on Hazelcast's response thread, and the coalescer
     * sends the next batch of the key from there, which Hazelcast refuses ({@code IllegalThreadStateException:
     * ... response thread cannot make remote call}): every request of that batch fails. Pairs of requests of one
     * key owned by the other member, the second queued behind the first, through a leasing replica on a cold key
     * (below min-units: decided on the owner, coalesced) and through the plain limiter: no request may fail.
     */
    @Test
    void aDirectExecutorFailsTheNextCoalescedBatch() {
        cluster.setNanos(T0);
        Policy policy = hourly();
        List<String> keys = cluster.keysOwnedBy(cluster.members.get(1), "direct", 40);
        long failed = 0;
        for (String key : keys) {
            for (HazelcastRateLimiter limiter : List.of(a, plain)) {
                CompletableFuture<Decision> first = limiter.tryAcquireAsync(policy, key, 1, DIRECT)
                        .toCompletableFuture();
                CompletableFuture<Decision> second = limiter.tryAcquireAsync(policy, key, 1, DIRECT)
                        .toCompletableFuture();
                for (CompletableFuture<Decision> f : List.of(first, second)) {
                    try {
                        f.join();
                    } catch (java.util.concurrent.CompletionException e) {
                        failed++;
                    }
                }
            }
        }
        assertThat(failed).as("requests failed of %d", 4 * keys.size()).isZero();
    }

    /**
     * A reservation whose caller gave up (the filter's timeout) while the owner's grant was on its way: the
     * admission is delivered on the caller's executor, and its undo (the units back into the grant) runs there. If
     * the grant was closed in between (used up by other requests and closed with the next lease request, or ended),
     * the undo finds it closed and does nothing: the cancelled request's unit was settled as used. 7 requests on the
     * owner; the 8th, a reservation, takes a lease of 8 and its delivery waits on a held executor; its caller
     * cancels; 7 more requests use the grant up, the next one closes it (used 8) and takes a lease of 16; then the
     * delivery runs. Consumed by the 15 answered requests: 15, so 985 once the leases came back; found 984.
     */
    @Test
    void aCancelledAdmissionWhoseGrantClosedFirstStaysConsumed() {
        cluster.setNanos(T0);
        Policy policy = hourly();
        java.util.concurrent.ConcurrentLinkedQueue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.Executor later = held::add;
        for (int i = 0; i < 7; i++) {
            assertThat(take(a, policy, "cancel", 1)).isTrue();
        }
        CompletableFuture<Decision> timedOut = a.reserveHereAsync(policy, "cancel", 1, later).toCompletableFuture();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !held.isEmpty());
        assertThat(timedOut.cancel(false)).isTrue();
        for (int i = 0; i < 8; i++) {
            assertThat(take(a, policy, "cancel", 1)).isTrue();
        }
        Runnable delivery;
        while ((delivery = held.poll()) != null) {
            delivery.run();
        }
        endLeases();
        assertThat(available(policy, "cancel")).as("15 answered requests of 1, the cancelled one consumed nothing")
                .isEqualTo(985);
    }

    /** A local reservation settled through another replica is refused (forged) and its cost stands: never a double. */
    @Test
    void aLocalReservationSettledElsewhereChangesNothing() {
        cluster.setNanos(T0);
        Policy policy = hourly();
        for (int i = 0; i < 8; i++) {
            assertThat(take(a, policy, "x", 1)).isTrue();
        }
        Decision r = reserveHere(a, policy, "x", 5);
        Reservation handle = r.reservation();
        assertThat(b.giveBack(policy, handle).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.FORGED);
        assertThat(c.settleAsync(policy, handle, 0).toCompletableFuture().join().status())
                .isEqualTo(Settlement.Status.FORGED);
        // the lease of 8: 1 + 5 used; the give-back elsewhere returned nothing
        endLeases();
        assertThat(available(policy, "x")).isEqualTo(1000 - 7 - 6);
    }
}
