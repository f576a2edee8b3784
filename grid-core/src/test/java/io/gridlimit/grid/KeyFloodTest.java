package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Key flood against the per-member bound (docs/reliability.md, "Eviction at the per-member bound"): one embedded
 * member (71 partitions, {@link ManualTimeSource}) whose policy map is bounded at {@value #BOUND} entries per member
 * receives {@value #PHASE_KEYS} × 2 = 1 000 000 distinct keys through {@link HazelcastRateLimiter#tryAcquireAsync}
 * with at most {@value #IN_FLIGHT} calls in flight.
 *
 * <p>Policy: token bucket, capacity 10 tokens, 1 token per hour. Before the flood the key {@code hot} is depleted
 * (cost 10 at T0, fresh again at T0 + 10 h); every {@value #CHECK_EVERY} flood keys it is asked again and must stay
 * denied with exactly the tokens its own refill gives (0 in phase 1, 1 in phase 2): its state is never evicted and
 * never silently refilled.
 *
 * <ul>
 *   <li>Phase 1, clock at T0: {@value #PHASE_KEYS} keys {@code a<i>}, cost 1 each (not fresh for 1 h), so every
 *       eviction of phase 1 loses state and is counted by {@link StateLoss#evictedNotFresh()}.</li>
 *   <li>The clock moves to T0 + 1 h: every phase-1 state left in the map now equals a fresh state.</li>
 *   <li>Phase 2: {@value #PHASE_KEYS} keys {@code b<i>}, cost 1 each. An evicted phase-1 key was fresh (counted
 *       by {@link StateLoss#evictedFresh()}, not lost); an evicted phase-2 key was not (lost).</li>
 * </ul>
 *
 * <p>Exact bound: Hazelcast enforces {@code PER_NODE} per partition and evicts when a partition holds more than
 * {@code bound × members / partitions} = 20 000 / 71 = 281.69 entries, so each partition holds at most 281 and the
 * member at most 71 × 281 = 19 951 ≤ 20 000 owned entries. Memory: the owned entry memory cost stays below
 * {@value #BOUND} × {@value #BYTES_PER_ENTRY_CEILING} bytes (reliability.md sizes a state at roughly 200 to 400 bytes
 * with its key and record). Nothing expires during the test: the TTLs Hazelcast sees are 1 h + 1 s and more of wall
 * time, so every entry that leaves the map was evicted, and the counters must account for each of them exactly.
 * No timed assertion: the only waits are for the asynchronous eviction events to be delivered.
 */
class KeyFloodTest {
    private static final int PARTITIONS = 71;
    private static final int BOUND = 20_000;
    private static final int PHASE_KEYS = 500_000;
    private static final int IN_FLIGHT = 256;
    private static final int CHECK_EVERY = 10_000;
    /** Ceiling of the owned entry memory cost per entry, in bytes (key + state + record, BINARY format). */
    private static final long BYTES_PER_ENTRY_CEILING = 400;
    private static final Duration HOUR = Duration.ofHours(1);

    private HazelcastInstance member;

    @AfterEach
    void stop() {
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    private static HazelcastInstance start(ManualTimeSource clock) {
        int port = GridTestSupport.freePorts(1)[0];
        String name = "gridlimit-flood-" + UUID.randomUUID();
        Config config = new Config();
        config.setClusterName(name);
        config.setInstanceName(name);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.partition.count", Integer.toString(PARTITIONS));
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.logging.type", "none");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port);
        config.addMapConfig(GridLimitHazelcast.mapConfig(0, BOUND));
        GridLimitHazelcast.configure(config, clock);
        return Hazelcast.newHazelcastInstance(config);
    }

    @Test
    void aMillionKeysStayWithinTheBoundAndTheDepletedKeyIsNeverRefilled() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0);
        member = start(clock);
        Policy policy = Policy.builder("flood").tokenBucket(10, 1, HOUR).build();
        IMap<String, LimiterState> map = member.getMap(GridLimitHazelcast.mapName("flood"));
        StateLoss loss = StateLoss.of(member);
        long perPartition = (long) Math.floor((double) BOUND * 1 / PARTITIONS);
        long maxOwned = PARTITIONS * perPartition;
        assertThat(maxOwned).isEqualTo(19_951);

        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(member)) {
            Decision depleted = limiter.tryAcquire(policy, "hot", 10);
            assertThat(depleted.allowed()).isTrue();
            assertThat(depleted.remaining()).isZero();

            flood(limiter, policy, "a", 1, 0, map, maxOwned);
            long size1 = map.size();
            assertThat(size1).isLessThanOrEqualTo(maxOwned);
            long evicted1 = PHASE_KEYS + 1 - size1; // every key written once, nothing expired
            // the listener judges freshness at delivery: let every phase-1 event arrive before the clock moves
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> loss.evictedFresh() + loss.evictedNotFresh() == evicted1);
            assertThat(loss.evictedFresh()).as("phase 1 holds no fresh state").isZero();
            assertThat(loss.evictedNotFresh()).isEqualTo(evicted1);

            clock.setNanos(T0 + HOUR.toNanos()); // every phase-1 state equals a fresh one; hot has 1 token
            flood(limiter, policy, "b", 2, 1, map, maxOwned);
            long size2 = map.size();
            assertThat(size2).isLessThanOrEqualTo(maxOwned);
            long phase1Left = map.keySet().stream().filter(k -> k.startsWith("a")).count();
            long phase2Left = map.keySet().stream().filter(k -> k.startsWith("b")).count();
            assertThat(map.containsKey("hot")).isTrue();
            assertThat(1 + phase1Left + phase2Left).isEqualTo(size2);
            long freshEvicted2 = (size1 - 1) - phase1Left;
            long notFreshEvicted2 = PHASE_KEYS - phase2Left;
            await().atMost(Duration.ofSeconds(60)).until(() -> loss.evictedFresh() + loss.evictedNotFresh()
                    == evicted1 + freshEvicted2 + notFreshEvicted2);
            assertThat(freshEvicted2).as("fresh states exist to evict first").isPositive();
            assertThat(loss.evictedFresh()).as("fresh evictions are not losses").isEqualTo(freshEvicted2);
            assertThat(loss.evictedNotFresh()).isEqualTo(evicted1 + notFreshEvicted2);
            assertThat(loss.lost()).isEqualTo(evicted1 + notFreshEvicted2);
            assertThat(loss.entriesLostWithPartitions()).isZero();

            LocalMapStats stats = map.getLocalMapStats();
            assertThat(stats.getOwnedEntryCount()).isEqualTo(size2);
            assertThat(stats.getOwnedEntryMemoryCost()).isPositive()
                    .isLessThan(BOUND * BYTES_PER_ENTRY_CEILING);
            assertThat(map.get("hot")).as("the depleted key kept its state")
                    .isEqualTo(new TokenBucketState(T0, 0, 0, HOUR.toNanos()));
        }
    }

    /**
     * Sends {@value #PHASE_KEYS} distinct keys {@code prefix<i>} (cost 1) with at most {@value #IN_FLIGHT} in flight;
     * every {@value #CHECK_EVERY} keys asks {@code hot} for {@code hotCost}, which must be denied with
     * {@code hotRemaining} left, and checks the owned entry count against {@code maxOwned} with no call in flight. Returns when every call
     * has completed; fails on the first failed call.
     */
    private static void flood(HazelcastRateLimiter limiter, Policy policy, String prefix, long hotCost,
                              long hotRemaining, IMap<String, LimiterState> map, long maxOwned)
            throws InterruptedException {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < PHASE_KEYS; i++) {
            inFlight.acquire();
            limiter.tryAcquireAsync(policy, prefix + i, 1).whenComplete((d, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else if (!d.allowed()) {
                    failure.compareAndSet(null, new AssertionError("a new key was denied: " + d));
                }
                inFlight.release();
            });
            if (i % CHECK_EVERY == 0) {
                // quiescent point: a partition holds one entry over its share between an insert and the eviction
                // that follows it in the same operation, so the exact bound is checked with nothing in flight
                inFlight.acquire(IN_FLIGHT);
                inFlight.release(IN_FLIGHT);
                Decision hot = limiter.tryAcquire(policy, "hot", hotCost);
                assertThat(hot.allowed()).as("hot after %s%d", prefix, i).isFalse();
                assertThat(hot.remaining()).as("hot after %s%d", prefix, i).isEqualTo(hotRemaining);
                assertThat(map.getLocalMapStats().getOwnedEntryCount()).as("owned after %s%d", prefix, i)
                        .isLessThanOrEqualTo(maxOwned);
            }
        }
        inFlight.acquire(IN_FLIGHT);
        inFlight.release(IN_FLIGHT);
        assertThat(failure.get()).isNull();
    }
}
