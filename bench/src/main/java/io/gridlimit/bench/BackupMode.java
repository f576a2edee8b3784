package io.gridlimit.bench;

import com.hazelcast.config.MapConfig;
import io.gridlimit.grid.GridLimitHazelcast;

import java.util.Locale;

/**
 * The backup modes the cluster benchmarks compare, applied to every map a cluster row touches (GridLimit's
 * {@code gridlimit.*}, which holds the no-op floor's map too, and Bucket4j's {@code bucket4j.*}) on every member:
 * <ul>
 *   <li>{@link #SYNC} ({@code sync}): backup-count 1, async-backup-count 0: GridLimit's production default
 *       ({@link GridLimitHazelcast#DEFAULT_BACKUP_COUNT}); a decision answers after the backup acknowledged;</li>
 *   <li>{@link #ASYNC} ({@code async}): backup-count 0, async-backup-count 1: the decision answers before the
 *       backup is applied, so a member lost in that window loses the update;</li>
 *   <li>{@link #NONE} ({@code none}): no backup: a lost member loses its keys' state.</li>
 * </ul>
 * Stateless; thread-safe.
 */
public enum BackupMode {
    /** One synchronous backup (the production default). */
    SYNC(1, 0),
    /** One asynchronous backup. */
    ASYNC(0, 1),
    /** No backup. */
    NONE(0, 0);

    private final int backupCount;
    private final int asyncBackupCount;

    BackupMode(int backupCount, int asyncBackupCount) {
        this.backupCount = backupCount;
        this.asyncBackupCount = asyncBackupCount;
    }

    /**
     * Parses the JMH parameter value.
     *
     * @param name {@code sync}, {@code async} or {@code none}
     * @return the mode, never null
     * @throws IllegalArgumentException if {@code name} is none of these (the message names it)
     */
    public static BackupMode of(String name) {
        for (BackupMode mode : values()) {
            if (mode.label().equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("backups must be sync, async or none, got '" + name + "'");
    }

    /** @return the parameter value: {@code sync}, {@code async} or {@code none} */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return synchronous backups per partition, 0 or 1 */
    public int backupCount() {
        return backupCount;
    }

    /** @return asynchronous backups per partition, 0 or 1 */
    public int asyncBackupCount() {
        return asyncBackupCount;
    }

    /**
     * Sets this mode's backup counts on a map configuration.
     *
     * @param map the configuration, changed in place
     * @return {@code map}
     */
    public MapConfig applyTo(MapConfig map) {
        return map.setBackupCount(backupCount).setAsyncBackupCount(asyncBackupCount);
    }

    /**
     * GridLimit's {@code gridlimit.*} map configuration ({@link GridLimitHazelcast#mapConfig(int)}: merge policy,
     * eviction bound, state-loss listener) with this mode's backups.
     *
     * @return a new map configuration named {@link GridLimitHazelcast#MAP_CONFIG_NAME}
     */
    public MapConfig gridLimitMapConfig() {
        return applyTo(GridLimitHazelcast.mapConfig(backupCount));
    }
}
