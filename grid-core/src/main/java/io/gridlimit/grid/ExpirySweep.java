package io.gridlimit.grid;

import com.hazelcast.config.Config;
import com.hazelcast.spi.properties.ClusterProperty;
import com.hazelcast.spi.properties.HazelcastProperties;
import java.util.Objects;

/**
 * Sets Hazelcast's expiry sweep so that an expired state leaves memory within seconds of its expiry, on its
 * owner and on its backups (docs/reliability.md, "Expired state leaves memory"; SPEC §8: every state is stored with
 * a per-entry TTL). {@link GridLimitHazelcast#configure(Config)} calls {@link #configure(Config)}.
 *
 * <p>Hazelcast removes an expired entry when it is read, or when its background sweep finds it. The sweep
 * ({@code MapClearExpiredRecordsTask}) runs every {@value #TASK_PERIOD_SECONDS_PROPERTY} seconds; each run sends
 * one cleanup operation to at most {@value #CLEANUP_OPERATION_COUNT_PROPERTY} of the member's partitions (owned or
 * backup, least recently swept first, none swept again within 1 s); each operation scans
 * {@code max(100, percentage × n / 100)} of the partition's {@code n} expirable entries per map from where the last
 * scan stopped, within 1 ms per map. An owner removes an entry at its expiration time; a backup replica at its
 * expiration time plus {@value #BACKUP_EXPIRY_DELAY_PROPERTY} seconds (it expires TTL entries by its own sweep;
 * the primary sends backups only idle expiries). Hazelcast's defaults (5 s; 10 %; {@code min(partitions / 10,
 * 3 × partition threads)}, 6 on 2 cores; 10 s) sweep 6 partitions every 5 s: about 65 expired states freed per
 * second, 10 736 of 20 000 still held after 140 s.
 *
 * <p>GridLimit's values: a run every {@value #TASK_PERIOD_SECONDS} s, every partition in each run (operation count
 * = the member's partition count), {@value #CLEANUP_PERCENTAGE} % of each partition's entries per operation, and
 * backups {@value #BACKUP_EXPIRY_DELAY_SECONDS} s after their owner. Since a partition is swept at most once per
 * second and the next run starts about 1 s after the previous one, a partition is swept every 1 to 2 s and each
 * sweep examines all its entries: an owner frees an expired state within about 2 s, a backup within about
 * {@value #BACKUP_EXPIRY_DELAY_SECONDS} + 2 s, as long as a partition's expired entries fit in one 1 ms scan per map
 * (measured in bench/README.md, "Expiry sweep"). A backup is safe to drop early: GridLimit's backup processor
 * writes the whole state the primary computed, whether or not the backup still holds an entry.
 *
 * <p>The three {@code hazelcast.internal.map.expiration.*} properties are Hazelcast internals, read from the
 * constants of {@code com.hazelcast.map.impl.eviction.MapClearExpiredRecordsTask} in Hazelcast 5.7; a test pins
 * each name to that class. {@code hazelcast.map.expiry.delay.seconds} is the public
 * {@link ClusterProperty#MAP_EXPIRY_DELAY_SECONDS}. They are member-wide: they apply to every map of the member.
 * Stateless and thread-safe.
 */
public final class ExpirySweep {
    /** Seconds between two runs of the sweep (Hazelcast's default 5). */
    public static final String TASK_PERIOD_SECONDS_PROPERTY = "hazelcast.internal.map.expiration.task.period.seconds";
    /** Percentage of a partition's expirable entries one cleanup operation scans, in (0, 100] (default 10). */
    public static final String CLEANUP_PERCENTAGE_PROPERTY = "hazelcast.internal.map.expiration.cleanup.percentage";
    /** Partitions one run of the sweep sends a cleanup operation to (default: computed, 6 on 2 cores). */
    public static final String CLEANUP_OPERATION_COUNT_PROPERTY =
            "hazelcast.internal.map.expiration.cleanup.operation.count";
    /** Seconds a backup replica keeps an entry past its expiration time (default 10). */
    public static final String BACKUP_EXPIRY_DELAY_PROPERTY = "hazelcast.map.expiry.delay.seconds";
    /** GridLimit's {@value #TASK_PERIOD_SECONDS_PROPERTY}: 1 second. */
    public static final int TASK_PERIOD_SECONDS = 1;
    /** GridLimit's {@value #CLEANUP_PERCENTAGE_PROPERTY}: 100 (every entry of a partition, within 1 ms per map). */
    public static final int CLEANUP_PERCENTAGE = 100;
    /** GridLimit's {@value #BACKUP_EXPIRY_DELAY_PROPERTY}: 2 seconds. */
    public static final int BACKUP_EXPIRY_DELAY_SECONDS = 2;

    private ExpirySweep() {
    }

    /**
     * Sets each of the four properties that the configuration (or a JVM system property of the same name) does
     * not set already: {@value #TASK_PERIOD_SECONDS_PROPERTY} = {@value #TASK_PERIOD_SECONDS},
     * {@value #CLEANUP_PERCENTAGE_PROPERTY} = {@value #CLEANUP_PERCENTAGE}, {@value #CLEANUP_OPERATION_COUNT_PROPERTY}
     * = the configuration's partition count ({@code hazelcast.partition.count}, default 271) as it is when this runs,
     * and {@value #BACKUP_EXPIRY_DELAY_PROPERTY} = {@value #BACKUP_EXPIRY_DELAY_SECONDS}. A value already set is kept
     * as given (Hazelcast checks it when the member starts); with a partition count that is not an integer the
     * operation count is left unset, and the member refuses that count when it starts. Calling it twice is harmless.
     *
     * @param config a member configuration, changed in place
     * @return {@code config}
     * @throws NullPointerException if {@code config} is null
     */
    public static Config configure(Config config) {
        Objects.requireNonNull(config, "config");
        setIfAbsent(config, TASK_PERIOD_SECONDS_PROPERTY, TASK_PERIOD_SECONDS);
        setIfAbsent(config, CLEANUP_PERCENTAGE_PROPERTY, CLEANUP_PERCENTAGE);
        Integer partitions = partitionCount(config);
        if (partitions != null) {
            setIfAbsent(config, CLEANUP_OPERATION_COUNT_PROPERTY, partitions);
        }
        setIfAbsent(config, BACKUP_EXPIRY_DELAY_PROPERTY, BACKUP_EXPIRY_DELAY_SECONDS);
        return config;
    }

    /** @return the partition count the member will read, or null when it is not an integer (the member refuses it) */
    private static Integer partitionCount(Config config) {
        try {
            return new HazelcastProperties(config).getInteger(ClusterProperty.PARTITION_COUNT);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code Config.getProperty} also reads the JVM system property of that name. */
    private static void setIfAbsent(Config config, String name, int value) {
        if (config.getProperty(name) == null) {
            config.setProperty(name, Integer.toString(value));
        }
    }
}
