package io.gridlimit.micronaut.config;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code gridlimit.hazelcast.max-keys-per-member} (default 1 000 000, in [1 000, 100 000 000]) and
 * {@code gridlimit.hazelcast.min-cluster-size} (default 0 = off, in [0, 1 000]): a bad value stops the boot with
 * the usual message naming the path and the value (as in {@link ConfigValidationTest}); a good value reaches the
 * embedded member's {@code gridlimit.*} map configuration (PER_NODE eviction size) and split-brain protection
 * ({@code GridLimitHazelcast.requireMinimumClusterSize}, grid-core/docs/reliability.md).
 */
class HazelcastLimitsConfigTest {
    private static final String H = "gridlimit.hazelcast.";

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource({
            "max-keys-per-member, 999",
            "max-keys-per-member, 100000001",
            "max-keys-per-member, lots",
            "max-keys-per-member, 0",
            "min-cluster-size, -1",
            "min-cluster-size, 1001",
            "min-cluster-size, two"})
    void aBadValueStopsTheBoot(String key, String value) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(H + "port", Integer.toString(Ports.freePort()));
        properties.put(H + key, value);
        assertThatThrownBy(() -> ApplicationContext.run(properties).close())
                .hasMessageContaining("Invalid GridLimit configuration")
                .hasMessageContaining(H + key)
                .hasMessageContaining("'" + value + "'");
    }

    @Test
    void defaultsBoundAMillionKeysAndLeaveSplitBrainProtectionOff() {
        try (ApplicationContext ctx = ApplicationContext.run(member(Map.of()))) {
            Config config = ctx.getBean(HazelcastInstance.class).getConfig();
            MapConfig maps = config.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
            assertThat(maps.getEvictionConfig().getMaxSizePolicy()).isEqualTo(MaxSizePolicy.PER_NODE);
            assertThat(maps.getEvictionConfig().getSize()).isEqualTo(1_000_000);
            assertThat(maps.getSplitBrainProtectionName()).isNull();
            assertThat(config.getSplitBrainProtectionConfigs())
                    .doesNotContainKey(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
        }
    }

    @Test
    void goodValuesReachTheMembersMapAndSplitBrainProtectionConfig() {
        try (ApplicationContext ctx = ApplicationContext.run(member(Map.of(H + "max-keys-per-member", "25000",
                H + "min-cluster-size", "3")))) {
            Config config = ctx.getBean(HazelcastInstance.class).getConfig();
            MapConfig maps = config.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
            assertThat(maps.getEvictionConfig().getMaxSizePolicy()).isEqualTo(MaxSizePolicy.PER_NODE);
            assertThat(maps.getEvictionConfig().getSize()).isEqualTo(25_000);
            assertThat(maps.getSplitBrainProtectionName()).isEqualTo(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
            SplitBrainProtectionConfig protection =
                    config.getSplitBrainProtectionConfig(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
            assertThat(protection.isEnabled()).isTrue();
            assertThat(protection.getMinimumClusterSize()).isEqualTo(3);
        }
    }

    @Test
    void theMemberBindsOnlyToLoopbackAndIsNamedAfterTheApplication() {
        Map<String, Object> props = member(Map.of("micronaut.application.name", "gl-named"));
        props.remove(H + "cluster-name");
        try (ApplicationContext ctx = ApplicationContext.run(props)) {
            Config config = ctx.getBean(HazelcastInstance.class).getConfig();
            assertThat(config.getClusterName()).isEqualTo("gl-named");
            assertThat(config.getNetworkConfig().getInterfaces().isEnabled()).isTrue();
            assertThat(config.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
            assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
            assertThat(ctx.getBean(HazelcastInstance.class).getCluster().getLocalMember().getAddress().getHost())
                    .isEqualTo("127.0.0.1");
        }
    }

    @Test
    void aMinimumClusterSizeOfOneIsOff() {
        try (ApplicationContext ctx = ApplicationContext.run(member(Map.of(H + "min-cluster-size", "1",
                H + "max-keys-per-member", "1000")))) {
            Config config = ctx.getBean(HazelcastInstance.class).getConfig();
            MapConfig maps = config.getMapConfigs().get(GridLimitHazelcast.MAP_CONFIG_NAME);
            assertThat(maps.getEvictionConfig().getSize()).isEqualTo(1_000);
            assertThat(maps.getSplitBrainProtectionName()).isNull();
            assertThat(config.getSplitBrainProtectionConfigs())
                    .doesNotContainKey(GridLimitHazelcast.SPLIT_BRAIN_PROTECTION_NAME);
        }
    }

    /** An embedded member alone on a free port, in its own cluster, with the given extra properties. */
    private static Map<String, Object> member(Map<String, Object> extra) {
        int port = Ports.freePort();
        Map<String, Object> all = new HashMap<>(extra);
        all.put(H + "port", Integer.toString(port));
        all.put(H + "members", "127.0.0.1:" + port);
        all.put(H + "cluster-name", "gl-limits-" + port);
        return all;
    }
}
