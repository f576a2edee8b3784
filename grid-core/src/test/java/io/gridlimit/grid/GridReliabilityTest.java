package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.TcpIpConfig;
import com.hazelcast.core.EntryView;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionException;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.MergeStates;
import io.gridlimit.algorithm.SlidingWindowLogState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Policy;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reliability of the policy maps on real loopback members (docs/SPEC.md §8): two clusters
 * with diverged state heal into one and every key holds the conservative merge with the later expiry; eviction at
 * a small per-member bound takes fresh-equivalent states first and counts the non-fresh ones; partitions lost with
 * their members are counted; split-brain protection refuses decisions on a member left alone.
 */
class GridReliabilityTest {
    private static final long S = 1_000_000_000L;
    private final List<HazelcastInstance> started = new ArrayList<>();
    private final String clusterName = "gridlimit-rel-" + UUID.randomUUID();

    @AfterEach
    void stop() {
        started.forEach(m -> m.getLifecycleService().terminate());
    }

    /** A loopback member joining the given ports by TCP-IP, with fast join, failure detection and merge checks. */
    private HazelcastInstance member(int port, int[] joinPorts, ManualTimeSource clock, MapConfig maps,
                                     Consumer<Config> more) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setInstanceName(clusterName + "-" + port);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.partition.count", "31");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        config.setProperty("hazelcast.max.no.heartbeat.seconds", "5");
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "1");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "1");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.partition.migration.interval", "0");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (int p : joinPorts) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + p);
        }
        config.addMapConfig(maps);
        GridLimitHazelcast.configure(config, clock);
        more.accept(config);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        started.add(member);
        return member;
    }

    private static void awaitSize(int size, HazelcastInstance... members) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (HazelcastInstance m : members) {
                if (!m.getLifecycleService().isRunning() || m.getCluster().getMembers().size() != size) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void twoSidesHealIntoTheConservativeMergeOfEveryKeyWithTheLaterExpiry() {
        int[] ports = GridTestSupport.freePorts(2);
        ManualTimeSource clockA = new ManualTimeSource(T0);
        ManualTimeSource clockB = new ManualTimeSource(T0);
        // each side knows only itself: two clusters of one member under one cluster name, as after a split
        HazelcastInstance a = member(ports[0], new int[] {ports[0]}, clockA, GridLimitHazelcast.mapConfig(1), c -> { });
        HazelcastInstance b = member(ports[1], new int[] {ports[1]}, clockB, GridLimitHazelcast.mapConfig(1), c -> { });
        assertThat(a.getCluster().getMembers()).hasSize(1);
        assertThat(b.getCluster().getMembers()).hasSize(1);
        List<Policy> policies = GridTestSupport.policies("merge-", 10);
        try (HazelcastRateLimiter onA = HazelcastRateLimiter.create(a);
             HazelcastRateLimiter onB = HazelcastRateLimiter.create(b)) {
            // the history both sides share, then each side's own traffic: k1 spends more on A, k2 more on B
            for (Policy p : policies) {
                for (String key : List.of("k1", "k2")) {
                    onA.tryAcquire(p, key, 2);
                    onB.tryAcquire(p, key, 2);
                }
            }
            clockA.setNanos(T0 + S);
            clockB.setNanos(T0 + 2 * S);
            for (Policy p : policies) {
                onA.tryAcquire(p, "k1", 5);
                onB.tryAcquire(p, "k1", 2);
                onA.tryAcquire(p, "k2", 3);
                onB.tryAcquire(p, "k2", 7);
            }
        }
        Map<String, LimiterState> expected = new HashMap<>();
        Map<String, Long> expectedExpiry = new HashMap<>();
        for (Policy p : policies) {
            IMap<String, LimiterState> mapA = a.getMap(GridLimitHazelcast.mapName(p.name()));
            IMap<String, LimiterState> mapB = b.getMap(GridLimitHazelcast.mapName(p.name()));
            for (String key : List.of("k1", "k2")) {
                EntryView<String, LimiterState> va = mapA.getEntryView(key);
                EntryView<String, LimiterState> vb = mapB.getEntryView(key);
                expected.put(p.name() + "/" + key, MergeStates.moreConsumed(va.getValue(), vb.getValue(), p));
                expectedExpiry.put(p.name() + "/" + key, Math.max(va.getExpirationTime(), vb.getExpirationTime()));
                assertThat(va.getValue()).isNotEqualTo(vb.getValue());
            }
        }
        // exact values of two of them (the others are checked against MergeStates, tested exactly on its own)
        long hour = Duration.ofHours(1).toNanos();
        assertThat(expected.get("merge-tb/k1")).isEqualTo(new TokenBucketState(T0 + 2 * S, 3, 2 * S, hour));
        assertThat(expected.get("merge-swl/k2")).isEqualTo(new SlidingWindowLogState(T0 + 2 * S, hour,
                new long[] {T0 + S, T0 + 2 * S}, new int[] {3, 7}));

        // heal: let each side find the other
        a.getConfig().getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1:" + ports[1]);
        b.getConfig().getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1:" + ports[0]);
        awaitSize(2, a, b);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (Policy p : policies) {
                IMap<String, LimiterState> map = a.getMap(GridLimitHazelcast.mapName(p.name()));
                for (String key : List.of("k1", "k2")) {
                    assertThat(map.get(key)).as(p.name() + "/" + key).isEqualTo(expected.get(p.name() + "/" + key));
                }
            }
        });
        for (Policy p : policies) {
            IMap<String, LimiterState> map = b.getMap(GridLimitHazelcast.mapName(p.name()));
            for (String key : List.of("k1", "k2")) {
                EntryView<String, LimiterState> view = map.getEntryView(key);
                assertThat(view.getValue()).isEqualTo(expected.get(p.name() + "/" + key));
                assertThat(view.getExpirationTime()).as("expiry of " + p.name() + "/" + key)
                        .isEqualTo(expectedExpiry.get(p.name() + "/" + key));
            }
        }
    }

    @Test
    void evictionAtTheBoundTakesFreshEquivalentStatesFirstAndCountsTheOthers() {
        int[] ports = GridTestSupport.freePorts(1);
        ManualTimeSource clock = new ManualTimeSource(T0);
        // 31 partitions, one member: a bound of 155 entries per member is 5 entries per partition
        HazelcastInstance m = member(ports[0], ports, clock, GridLimitHazelcast.mapConfig(0, 155), c -> { });
        Policy policy = Policy.builder("ev").tokenBucket(10, 1, Duration.ofHours(1)).build();
        IMap<String, LimiterState> map = m.getMap(GridLimitHazelcast.mapName("ev"));
        int partition = m.getPartitionService().getPartition("hot").getPartitionId();
        List<String> sameContainer = new ArrayList<>();
        for (int i = 0; sameContainer.size() < 10; i++) {
            if (m.getPartitionService().getPartition("key-" + i).getPartitionId() == partition) {
                sameContainer.add("key-" + i);
            }
        }
        List<String> cold = sameContainer.subList(0, 4);
        List<String> fillers = sameContainer.subList(4, 10);
        StateLoss loss = StateLoss.of(m);
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(m)) {
            assertThat(limiter.tryAcquire(policy, "hot", 10).remaining()).isZero(); // depleted: fresh in 10 h
            for (String key : cold) {
                limiter.tryAcquire(policy, key, 1); // fresh in 1 h
            }
            assertThat(map.size()).isEqualTo(5);
            clock.setNanos(T0 + Duration.ofHours(1).toNanos()); // the cold states are fresh now, still stored
            for (String key : fillers) {
                limiter.tryAcquire(policy, key, 2); // each one over the bound evicts one entry
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> loss.evictedFresh() + loss.evictedNotFresh() == fillers.size());
        assertThat(loss.evictedFresh()).as("the fresh-equivalent states went first").isEqualTo(4);
        assertThat(loss.evictedNotFresh()).as("then the nearest to fresh").isEqualTo(2);
        assertThat(loss.lost()).isEqualTo(2);
        assertThat(map.size()).isEqualTo(5);
        assertThat(map.get("hot")).as("the depleted key was not refilled")
                .isEqualTo(new TokenBucketState(T0, 0, 0, Duration.ofHours(1).toNanos()));
        for (String key : cold) {
            assertThat(map.containsKey(key)).isFalse();
        }
    }

    @Test
    void partitionsLostWithTheirOnlyReplicaAreCounted() {
        int[] ports = GridTestSupport.freePorts(2);
        HazelcastInstance survivor = member(ports[0], ports, new ManualTimeSource(T0), GridLimitHazelcast.mapConfig(0),
                c -> { });
        HazelcastInstance victim = member(ports[1], ports, new ManualTimeSource(T0), GridLimitHazelcast.mapConfig(0),
                c -> { });
        awaitSize(2, survivor, victim);
        await().atMost(Duration.ofSeconds(60)).until(() -> survivor.getPartitionService().isClusterSafe());
        Policy policy = Policy.builder("pl").fixedWindow(10, Duration.ofHours(1)).build();
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(survivor)) {
            for (int i = 0; i < 200; i++) {
                limiter.tryAcquire(policy, "key-" + i, 1);
            }
        }
        long victimPartitions = 0;
        for (Partition p : survivor.getPartitionService().getPartitions()) {
            if (victim.getCluster().getLocalMember().equals(p.getOwner())) {
                victimPartitions++;
            }
        }
        assertThat(victimPartitions).isPositive();
        StateLoss loss = StateLoss.of(survivor);
        StateLoss victimLoss = StateLoss.of(victim);
        assertThat(loss.lost()).isZero();
        victim.getLifecycleService().terminate();
        long expected = victimPartitions;
        await().atMost(Duration.ofSeconds(60)).until(() -> loss.partitionsLost() == expected);
        // no survivor held them: each loss adds the survivor's average entries per owned partition (>= 1 here)
        assertThat(loss.entriesLostWithPartitions()).isGreaterThanOrEqualTo(expected);
        assertThat(loss.lost()).isEqualTo(loss.entriesLostWithPartitions());
        assertThat(victimLoss.partitionsLost()).isZero();
    }

    @Test
    void withSplitBrainProtectionAMemberLeftAloneRefusesToDecide() {
        int[] ports = GridTestSupport.freePorts(2);
        Consumer<Config> protect = c -> GridLimitHazelcast.requireMinimumClusterSize(c, 2);
        HazelcastInstance kept = member(ports[0], ports, new ManualTimeSource(T0), GridLimitHazelcast.mapConfig(1),
                protect);
        HazelcastInstance other = member(ports[1], ports, new ManualTimeSource(T0), GridLimitHazelcast.mapConfig(1),
                protect);
        awaitSize(2, kept, other);
        Policy policy = Policy.builder("sbp").fixedWindow(10, Duration.ofHours(1)).build();
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(kept)) {
            assertThat(limiter.tryAcquire(policy, "k", 1).allowed()).isTrue();
            other.getLifecycleService().terminate();
            awaitSize(1, kept);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try {
                    limiter.tryAcquire(policy, "k", 1);
                    return false;
                } catch (SplitBrainProtectionException e) {
                    return true;
                }
            });
            assertThatThrownBy(() -> limiter.tryAcquire(policy, "k", 1))
                    .isInstanceOf(SplitBrainProtectionException.class);
        }
    }
}
