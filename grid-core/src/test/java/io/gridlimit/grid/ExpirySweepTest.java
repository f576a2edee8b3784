package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.LocalMapStats;
import com.hazelcast.spi.properties.ClusterProperty;
import com.hazelcast.spi.properties.HazelcastProperty;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The expiry sweep GridLimit sets (docs/reliability.md, "Expired state leaves memory"): the Hazelcast internals it
 * names are pinned to Hazelcast's own classes, values the user set are kept, and on two members with one backup
 * every expired state, owned and backup, is gone within 10 s of its expiry.
 */
class ExpirySweepTest {
    private static final String TASK = "com.hazelcast.map.impl.eviction.MapClearExpiredRecordsTask";
    private static final int KEYS = 5_000;
    private static final int IN_FLIGHT = 128;
    /**
     * The TTL Hazelcast gets for each state of the test: a fixed window of 1 s at T0 (a whole second, so the window
     * is [T0, T0 + 1 s)) has a state TTL of 1 000 ms, plus DecideProcessor's 1 000 ms whole-second margin.
     */
    private static final long STORED_TTL_MILLIS = 2_000;
    /** What the issue allows after expiry, owner and backups alike. */
    private static final long BOUND_AFTER_EXPIRY_MILLIS = 10_000;

    @Test
    void theInternalPropertiesAreHazelcastsOwn() throws ReflectiveOperationException {
        Class<?> task = Class.forName(TASK);
        assertThat(task.getField("PROP_TASK_PERIOD_SECONDS").get(null))
                .isEqualTo(ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY);
        assertThat(task.getField("PROP_CLEANUP_PERCENTAGE").get(null))
                .isEqualTo(ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY);
        assertThat(task.getField("PROP_CLEANUP_OPERATION_COUNT").get(null))
                .isEqualTo(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY);
        // the names the task really reads (its HazelcastProperty fields), and the defaults reliability.md states
        assertThat(property(task, "TASK_PERIOD_SECONDS").getName()).isEqualTo(ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY);
        assertThat(property(task, "TASK_PERIOD_SECONDS").getDefaultValue()).isEqualTo("5");
        assertThat(property(task, "CLEANUP_PERCENTAGE").getName()).isEqualTo(ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY);
        assertThat(property(task, "CLEANUP_PERCENTAGE").getDefaultValue()).isEqualTo("10");
        assertThat(property(task, "CLEANUP_OPERATION_COUNT").getName())
                .isEqualTo(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY);
        assertThat(property(task, "CLEANUP_OPERATION_COUNT").getDefaultValue()).as("computed when unset").isNull();
        assertThat(ClusterProperty.MAP_EXPIRY_DELAY_SECONDS.getName())
                .isEqualTo(ExpirySweep.BACKUP_EXPIRY_DELAY_PROPERTY);
        assertThat(ClusterProperty.MAP_EXPIRY_DELAY_SECONDS.getDefaultValue()).isEqualTo("10");
    }

    @Test
    void configureSetsTheSweepAndKeepsWhatTheUserSet() {
        Config defaults = GridLimitHazelcast.configure(new Config());
        assertThat(defaults.getProperty(ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY)).isEqualTo("1");
        assertThat(defaults.getProperty(ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY)).isEqualTo("100");
        assertThat(defaults.getProperty(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY)).as("Hazelcast's 271 partitions")
                .isEqualTo("271");
        assertThat(defaults.getProperty(ExpirySweep.BACKUP_EXPIRY_DELAY_PROPERTY)).isEqualTo("2");

        Config own = new Config();
        own.setProperty("hazelcast.partition.count", "31");
        own.setProperty(ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY, "3");
        own.setProperty(ExpirySweep.BACKUP_EXPIRY_DELAY_PROPERTY, "10");
        GridLimitHazelcast.configure(own);
        GridLimitHazelcast.configure(own);
        assertThat(own.getProperty(ExpirySweep.TASK_PERIOD_SECONDS_PROPERTY)).isEqualTo("3");
        assertThat(own.getProperty(ExpirySweep.BACKUP_EXPIRY_DELAY_PROPERTY)).isEqualTo("10");
        assertThat(own.getProperty(ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY)).isEqualTo("100");
        assertThat(own.getProperty(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY)).isEqualTo("31");

        Config broken = new Config();
        broken.setProperty("hazelcast.partition.count", "many");
        ExpirySweep.configure(broken);
        assertThat(broken.getProperties()).as("left for the member to refuse")
                .doesNotContainKey(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY);
    }

    @Test
    void aSystemPropertyWinsOverGridLimitsValue() {
        String name = ExpirySweep.CLEANUP_PERCENTAGE_PROPERTY;
        String before = System.getProperty(name);
        System.setProperty(name, "25");
        try {
            Config config = ExpirySweep.configure(new Config());
            assertThat(config.getProperties()).doesNotContainKey(name);
            assertThat(config.getProperty(name)).isEqualTo("25");
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }

    /**
     * Two members, one synchronous backup, 31 partitions: {@value #KEYS} keys each decided once (a fixed window of
     * 1 s, Hazelcast TTL {@value #STORED_TTL_MILLIS} ms of wall time). Every state has expired at the latest
     * {@value #STORED_TTL_MILLIS} ms after the last decision returned; by {@value #BOUND_AFTER_EXPIRY_MILLIS} ms after
     * that, both members must hold no owned and no backup entry. Hazelcast's default sweep (3 of 31 partitions every
     * 5 s here, backups 10 s late) leaves most of them for close to a minute.
     */
    @Test
    void expiredStatesAndTheirBackupsLeaveWithinTenSeconds() throws InterruptedException {
        try (GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(2, 1)) {
            HazelcastInstance first = cluster.startMember(T0);
            cluster.startMember(T0);
            cluster.awaitSafe();
            assertThat(first.getConfig().getProperty(ExpirySweep.CLEANUP_OPERATION_COUNT_PROPERTY)).isEqualTo("31");
            Policy policy = Policy.builder("sweep").fixedWindow(10, Duration.ofSeconds(1)).build();
            String map = GridLimitHazelcast.mapName(policy.name());
            try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(first)) {
                Semaphore inFlight = new Semaphore(IN_FLIGHT);
                AtomicReference<Object> failure = new AtomicReference<>();
                for (int i = 0; i < KEYS; i++) {
                    inFlight.acquire();
                    limiter.tryAcquireAsync(policy, "k" + i, 1).whenComplete((Decision d, Throwable e) -> {
                        if (e != null || !d.allowed() || d.remaining() != 9) {
                            failure.compareAndSet(null, e != null ? e : d);
                        }
                        inFlight.release();
                    });
                }
                inFlight.acquire(IN_FLIGHT);
                long lastDecisionMillis = System.currentTimeMillis();
                assertThat(failure.get()).as("every key is new: allowed with 9 left").isNull();
                long heldAtLastDecision = held(cluster, map);
                assertThat(heldAtLastDecision).as("states were stored, owner and backup").isPositive();

                long deadline = lastDecisionMillis + STORED_TTL_MILLIS + BOUND_AFTER_EXPIRY_MILLIS;
                await().atMost(Duration.ofMillis(Math.max(1, deadline - System.currentTimeMillis())))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> assertThat(held(cluster, map)).isZero());
                System.out.printf("expiry sweep: %d entries held at the last decision, none %d ms later%n",
                        heldAtLastDecision, System.currentTimeMillis() - lastDecisionMillis);
            }
        }
    }

    /** Owned plus backup entries of the map on every running member. */
    private static long held(GridTestSupport.Cluster cluster, String map) {
        long held = 0;
        for (HazelcastInstance member : cluster.running()) {
            LocalMapStats stats = member.getMap(map).getLocalMapStats();
            held += stats.getOwnedEntryCount() + stats.getBackupEntryCount();
        }
        return held;
    }

    private static HazelcastProperty property(Class<?> task, String field) throws ReflectiveOperationException {
        Field f = task.getDeclaredField(field);
        f.setAccessible(true);
        return (HazelcastProperty) f.get(null);
    }
}
