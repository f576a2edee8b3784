package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.EntryView;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Backups, member loss and migration on a real three-member loopback cluster (one cluster for the class, to keep
 * the suite fast): the algorithm runs once per decision and never on a backup; a key whose owner is terminated
 * continues exactly from the state its promoted backup holds, TTL included; a joining member moves partitions
 * without changing any key's state. Each test holds for whatever membership the previous ones left (at least two
 * members), and they run in this order: reads, owner loss, join.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GridMembershipTest {
    private GridTestSupport.Cluster cluster;
    private HazelcastInstance caller;
    private HazelcastRateLimiter limiter;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(4, 1);
        // policies named b2-* keep two backups: with three members every member holds a replica of every key
        cluster.extraMapConfigs.add(GridLimitHazelcast.mapConfig(2).setName(GridLimitHazelcast.MAP_PREFIX + "b2-*"));
        for (int i = 0; i < 3; i++) {
            cluster.startMember(T0);
        }
        cluster.awaitSafe();
        caller = cluster.members.get(0);
        limiter = HazelcastRateLimiter.create(caller);
    }

    @AfterAll
    void stop() {
        if (limiter != null) {
            limiter.close();
        }
        cluster.close();
    }

    private IMap<String, LimiterState> map(Policy policy) {
        return caller.getMap(GridLimitHazelcast.mapName(policy.name()));
    }

    /** Tracks, per key, the state the pure algorithm says the grid must hold. */
    private static final class Expected {
        final Map<String, LimiterState> states = new HashMap<>();

        Decision apply(Policy policy, String key, long cost, long nowNanos) {
            Outcome o = RateLimitAlgorithms.apply(states.get(policy.name() + "/" + key), policy, cost, nowNanos);
            states.put(policy.name() + "/" + key, o.state());
            return o.decision();
        }

        LimiterState state(Policy policy, String key) {
            return states.get(policy.name() + "/" + key);
        }
    }

    @Test
    @Order(1)
    void timeIsReadOncePerDecisionAndOnlyByTheOwner() throws Exception {
        List<Policy> policies = GridTestSupport.policies("b2-", 5);
        cluster.setNanos(T0);
        cluster.resetReads();
        Map<HazelcastInstance, Long> invocationsByOwner = new HashMap<>();
        Expected expected = new Expected();
        List<String> keys = new java.util.ArrayList<>();
        for (HazelcastInstance member : cluster.running()) {
            keys.addAll(cluster.keysOwnedBy(member, "reads-" + member.getName() + "-", 2));
        }
        for (Policy policy : policies) {
            for (String key : keys) {
                HazelcastInstance owner = cluster.ownerOf(key);
                long now = T0;
                cluster.setNanos(now);
                assertThat(limiter.tryAcquire(policy, key, 2)).isEqualTo(expected.apply(policy, key, 2, now));
                assertThat(limiter.tryAcquire(policy, key, 4)).isEqualTo(expected.apply(policy, key, 4, now));
                assertThat(limiter.tryAcquireAsync(policy, key, 3).toCompletableFuture().get(30, TimeUnit.SECONDS))
                        .isEqualTo(expected.apply(policy, key, 3, now));
                now -= 1_000_000; // a step back: the denial writes the rebased state, and its backups
                cluster.setNanos(now);
                assertThat(limiter.tryAcquire(policy, key, 1)).isEqualTo(expected.apply(policy, key, 1, now));
                Outcome[] batch = RateLimitAlgorithms.applyAll(expected.state(policy, key), policy, new long[] {1, 1},
                        now);
                assertThat(limiter.tryAcquireAll(policy, key, new long[] {1, 1}))
                        .containsExactly(batch[0].decision(), batch[1].decision());
                expected.states.put(policy.name() + "/" + key, batch[1].state());
                assertThat(map(policy).get(key)).isEqualTo(expected.state(policy, key));
                invocationsByOwner.merge(owner, 5L, Long::sum);
            }
        }
        long total = invocationsByOwner.values().stream().mapToLong(Long::longValue).sum();
        assertThat(total).isEqualTo((long) policies.size() * keys.size() * 5);
        assertThat(cluster.totalReads()).as("one time reading per decision, cluster-wide").isEqualTo(total);
        for (HazelcastInstance member : cluster.running()) {
            assertThat(cluster.clockOf(member).reads()).as("readings on %s", member.getName())
                    .isEqualTo(invocationsByOwner.getOrDefault(member, 0L));
        }
        assertThat(invocationsByOwner).as("every member owns some keys").hasSize(cluster.running().size());
    }

    @Test
    @Order(2)
    void keysOfATerminatedOwnerContinueExactlyFromThePromotedBackup() throws Exception {
        List<HazelcastInstance> running = cluster.running();
        HazelcastInstance victim = running.get(running.size() - 1);
        assertThat(victim).isNotSameAs(caller);
        List<Policy> policies = GridTestSupport.policies("loss-", 5);
        Expected expected = new Expected();
        Map<String, long[]> writeWindows = new HashMap<>();
        List<String> keys = cluster.keysOwnedBy(victim, "loss-", 3);
        long now = T0;
        cluster.setNanos(now);
        for (Policy policy : policies) {
            for (String key : keys) {
                assertThat(limiter.tryAcquire(policy, key, 2)).isEqualTo(expected.apply(policy, key, 2, now));
            }
        }
        now += Duration.ofMinutes(10).toNanos();
        cluster.setNanos(now);
        for (Policy policy : policies) {
            for (String key : keys) {
                long before = System.currentTimeMillis();
                assertThat(limiter.tryAcquire(policy, key, 1)).isEqualTo(expected.apply(policy, key, 1, now));
                writeWindows.put(policy.name() + "/" + key, new long[] {before, System.currentTimeMillis()});
            }
        }

        victim.getLifecycleService().terminate();
        cluster.awaitClusterSize(running.size() - 1);
        cluster.awaitSafe();

        for (Policy policy : policies) {
            Outcome sameTime = RateLimitAlgorithms.apply(expected.state(policy, keys.get(0)), policy, 1, now);
            long ttlNanos = RateLimitAlgorithms.apply(
                    RateLimitAlgorithms.apply(null, policy, 2, T0).state(), policy, 1, now).ttlNanos();
            for (String key : keys) {
                assertThat(cluster.ownerOf(key)).isNotSameAs(victim);
                assertThat(map(policy).get(key)).as("promoted state of %s %s", policy.name(), key)
                        .isEqualTo(expected.state(policy, key));
                long[] window = writeWindows.get(policy.name() + "/" + key);
                EntryView<String, LimiterState> view = map(policy).getEntryView(key);
                assertThat(view.getTtl()).isEqualTo(DecideProcessor.storedTtlMillis(ttlNanos) / 1000 * 1000);
                assertThat(view.getExpirationTime())
                        .isGreaterThanOrEqualTo(window[0] + DecideProcessor.ttlMillis(ttlNanos))
                        .isLessThanOrEqualTo(window[1] + DecideProcessor.storedTtlMillis(ttlNanos));
                Decision next = limiter.tryAcquire(policy, key, 1);
                assertThat(next).as("%s %s continues", policy.name(), key)
                        .isEqualTo(expected.apply(policy, key, 1, now));
                assertThat(next).isEqualTo(sameTime.decision());
                assertThat(next.remaining()).isEqualTo(1);
            }
        }
    }

    @Test
    @Order(3)
    void aJoiningMemberMovesPartitionsWithoutChangingAnyKey() {
        List<Policy> policies = GridTestSupport.policies("mig-", 5);
        Expected expected = new Expected();
        long now = T0 + Duration.ofMinutes(20).toNanos();
        cluster.setNanos(now);
        Map<String, HazelcastInstance> ownersBefore = new HashMap<>();
        for (int k = 0; k < 40; k++) {
            ownersBefore.put("mig-" + k, cluster.ownerOf("mig-" + k));
        }
        for (Policy policy : policies) {
            for (String key : ownersBefore.keySet()) {
                assertThat(limiter.tryAcquire(policy, key, 2)).isEqualTo(expected.apply(policy, key, 2, now));
            }
        }

        HazelcastInstance joined = cluster.startMember(now);
        cluster.awaitSafe();

        long moved = ownersBefore.keySet().stream().filter(k -> cluster.ownerOf(k) == joined).count();
        assertThat(moved).as("keys now owned by the new member").isPositive();
        ManualTimeSource joinedClock = cluster.clockOf(joined);
        joinedClock.resetReads();
        for (Policy policy : policies) {
            for (String key : ownersBefore.keySet()) {
                assertThat(map(policy).get(key)).as("state of %s %s", policy.name(), key)
                        .isEqualTo(expected.state(policy, key));
            }
            for (String key : ownersBefore.keySet()) {
                Decision next = limiter.tryAcquire(policy, key, 1);
                assertThat(next).isEqualTo(expected.apply(policy, key, 1, now));
                assertThat(next.remaining()).isEqualTo(2);
            }
        }
        assertThat(joinedClock.reads()).as("the new owner decides its keys").isEqualTo(moved * policies.size());
    }
}
