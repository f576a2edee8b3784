package io.gridlimit.micronaut.grid;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.micronaut.config.HazelcastMode;
import io.gridlimit.micronaut.config.HazelcastSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code max-keys-per-member} and {@code min-cluster-size} in a member configuration read from the user's own
 * Hazelcast file, without starting anything: GridLimit's {@code gridlimit.*} map configuration is added with the
 * bound when the file has none, a file's own {@code gridlimit.*} map configuration is kept as written, and
 * split-brain protection (2 or more) covers the {@code gridlimit.*} maps in both cases.
 */
class GridFactoryLimitsTest {
    @Test
    void aFileWithoutGridLimitMapsGetsTheBoundAndTheProtection(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hazelcast.yaml");
        Files.writeString(file, """
                hazelcast:
                  cluster-name: from-file
                """);
        Config c = GridFactory.memberConfig(new HazelcastSettings(HazelcastMode.EMBEDDED, "ignored", 5701,
                List.of("127.0.0.1"), file, 40_000, 2));
        MapConfig maps = c.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
        assertThat(maps.getEvictionConfig().getSize()).isEqualTo(40_000);
        assertThat(maps.getBackupCount()).isEqualTo(GridLimitHazelcast.DEFAULT_BACKUP_COUNT);
        assertThat(maps.getSplitBrainProtectionName()).isEqualTo(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
        assertThat(c.getSplitBrainProtectionConfig(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME)
                .getMinimumClusterSize()).isEqualTo(2);
    }

    @Test
    void aFilesOwnGridLimitMapConfigurationIsKept(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hazelcast.yaml");
        Files.writeString(file, """
                hazelcast:
                  cluster-name: from-file
                  map:
                    gridlimit.*:
                      backup-count: 2
                      eviction:
                        max-size-policy: PER_NODE
                        size: 777
                """);
        Config c = GridFactory.memberConfig(new HazelcastSettings(HazelcastMode.EMBEDDED, "ignored", 5701,
                List.of("127.0.0.1"), file, 40_000, 5));
        MapConfig maps = c.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
        assertThat(maps.getEvictionConfig().getSize()).isEqualTo(777);
        assertThat(maps.getBackupCount()).isEqualTo(2);
        assertThat(maps.getSplitBrainProtectionName()).isEqualTo(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
        assertThat(c.getSplitBrainProtectionConfig(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME)
                .getMinimumClusterSize()).isEqualTo(5);
    }

    @Test
    void settingsWithoutAFileGetTheBoundAndNoProtectionBelowTwo() {
        Config c = GridFactory.memberConfig(new HazelcastSettings(HazelcastMode.EMBEDDED, "shop", 5801,
                List.of("127.0.0.1"), null, 1_000, 1));
        MapConfig maps = c.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
        assertThat(maps.getEvictionConfig().getSize()).isEqualTo(1_000);
        assertThat(maps.getSplitBrainProtectionName()).isNull();
        assertThat(c.getSplitBrainProtectionConfigs()).doesNotContainKey(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
    }
}
