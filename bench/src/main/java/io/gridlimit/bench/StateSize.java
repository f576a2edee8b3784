package io.gridlimit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Grid bytes per idle key: two embedded members (one synchronous backup, GridLimit's default map config; BINARY
 * in-memory format), {@value #KEYS} keys per limiter, each key decided once (cost 1) and then left idle. For each
 * GridLimit algorithm ({@link BenchPolicies}, plus the sliding-window log holding its full 100 entries) and for
 * Bucket4j's bucket of the same bandwidth (capacity 100; refills and windows of 1 hour here, 1 minute for the composite's
 * second band, so that nothing expires while it is measured; sizes do not depend on the period):
 * <ul>
 *   <li>serialized bytes of one stored value: {@code Data.totalSize()} through the member's
 *       {@code SerializationService} (GridLimit: the Compact state, schema id included; Bucket4j: its
 *       {@code byte[]});</li>
 *   <li>heap per entry on the owner and on the backup: {@code LocalMapStats} owned (backup) entry memory cost
 *       summed over both members, divided by the owned (backup) entry count: Hazelcast's own estimate of key,
 *       value and record overhead.</li>
 * </ul>
 * Prints a Markdown table. {@code java --add-opens=... -cp bench/target/benchmarks.jar io.gridlimit.bench.StateSize}
 */
public final class StateSize {
    static final int KEYS = 10_000;

    private StateSize() {
    }

    /**
     * Measures and prints.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        System.setProperty("hazelcast.logging.type", "jdk");
        java.util.logging.Logger.getLogger("com.hazelcast").setLevel(java.util.logging.Level.WARNING);
        Config first = BenchMember.config();
        int port = first.getNetworkConfig().getPort();
        HazelcastInstance a = Hazelcast.newHazelcastInstance(first);
        Config second = BenchMember.config();
        second.setClusterName(first.getClusterName());
        second.getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1:" + port);
        first.getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1:" + second.getNetworkConfig().getPort());
        HazelcastInstance b = Hazelcast.newHazelcastInstance(second);
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(a)) {
            if (a.getCluster().getMembers().size() != 2) {
                throw new IllegalStateException("members did not join: " + a.getCluster().getMembers());
            }
            SerializationService ss = ((SerializationServiceSupport) a).getSerializationService();
            System.out.println("| limiter | serialized bytes per key | heap per entry, owner (B) | heap per entry, backup (B)"
                    + " | entries owned / backup |");
            System.out.println("|---|---:|---:|---:|---:|");
            for (String algorithm : BenchPolicies.ALGORITHMS) {
                Policy policy = hourly(algorithm);
                for (int i = 0; i < KEYS; i++) {
                    limiter.tryAcquire(policy, BenchKeys.get(i), 1);
                }
                row("GridLimit " + algorithm, a, b, GridLimitHazelcast.mapName(policy.name()), ss);
            }
            Policy log = Policy.builder("bench-log-full").slidingWindowLog(100, Duration.ofHours(1)).build();
            for (int i = 0; i < 1000; i++) {
                for (int j = 0; j < 100; j++) {
                    limiter.tryAcquire(log, BenchKeys.get(i), 1);
                }
            }
            row("GridLimit sliding-window-log, 100 entries (1 000 keys)", a, b,
                    GridLimitHazelcast.mapName(log.name()), ss);

            IMap<String, byte[]> map = a.getMap("bucket4j.size");
            HazelcastProxyManager<String> proxies = Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ofSeconds(1))).build();
            BucketConfiguration configuration = BucketConfiguration.builder()
                    .addLimit(l -> l.capacity(BenchPolicies.RATE_PER_SECOND)
                            .refillGreedy(BenchPolicies.RATE_PER_SECOND, Duration.ofHours(1)))
                    .build();
            for (int i = 0; i < KEYS; i++) {
                proxies.builder().build(BenchKeys.get(i), () -> configuration).tryConsume(1);
            }
            row("Bucket4j token bucket (same bandwidth)", a, b, "bucket4j.size", ss);
        } finally {
            b.shutdown();
            a.shutdown();
        }
    }

    /** {@link BenchPolicies#of} with 1-hour periods and windows, so that no state expires while it is measured. */
    private static Policy hourly(String algorithm) {
        Duration hour = Duration.ofHours(1);
        long q = BenchPolicies.RATE_PER_SECOND;
        Policy.Builder b = Policy.builder("size-" + algorithm);
        switch (algorithm) {
            case "token-bucket" -> b.tokenBucket(q, q, hour);
            case "gcra" -> b.gcra(q, q, hour);
            case "fixed-window" -> b.fixedWindow(q, hour);
            case "calendar" -> b.calendar(q, io.gridlimit.calendar.CalendarPeriods.daily(
                    java.time.ZoneId.of("Europe/Berlin")));
            case "sliding-window-log" -> b.slidingWindowLog(q, hour);
            case "sliding-window-counter" -> b.slidingWindowCounter(q, hour);
            case "composite" -> b.band(Band.tokenBucket("burst", q, q, hour))
                    .band(Band.slidingWindowCounter("minute", 5000, Duration.ofMinutes(1)));
            default -> throw new IllegalArgumentException(algorithm);
        }
        return b.build();
    }

    private static void row(String name, HazelcastInstance a, HazelcastInstance b, String mapName,
                            SerializationService ss) {
        IMap<String, Object> map = a.getMap(mapName);
        Object value = map.get(BenchKeys.get(0));
        int bytes = ss.toData(value).totalSize();
        long ownedCost = 0;
        long backupCost = 0;
        long owned = 0;
        long backups = 0;
        for (HazelcastInstance m : List.of(a, b)) {
            LocalMapStats stats = m.getMap(mapName).getLocalMapStats();
            ownedCost += stats.getOwnedEntryMemoryCost();
            backupCost += stats.getBackupEntryMemoryCost();
            owned += stats.getOwnedEntryCount();
            backups += stats.getBackupEntryCount();
        }
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %d / %d |%n", name, bytes,
                owned == 0 ? 0 : ownedCost / owned, backups == 0 ? 0 : backupCost / backups, owned, backups);
    }
}
