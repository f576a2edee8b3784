package io.gridlimit.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.time.ClusterTimeSource;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Member and client configuration, and how a member finds its time source. */
class GridLimitHazelcastTest {

    @Test
    void memberConfigurationRegistersSerializationAndThePolicyMaps() {
        Config config = GridLimitHazelcast.configure(new Config());
        SerializationConfig serialization = config.getSerializationConfig();
        assertThat(serialization.getDataSerializableFactories().get(0x474C))
                .isInstanceOf(GridLimitDataSerializableFactory.class);
        MapConfig maps = config.getMapConfigs().get("gridlimit.*");
        assertThat(maps.getBackupCount()).isEqualTo(1);
        assertThat(maps.getAsyncBackupCount()).isZero();
        assertThat(maps.getInMemoryFormat()).isEqualTo(InMemoryFormat.BINARY);
        assertThat(maps.isStatisticsEnabled()).isTrue();
        assertThat(maps.getTimeToLiveSeconds()).as("TTL is per entry").isZero();
        assertThat(config.getUserContext()).doesNotContainKey(GridLimitHazelcast.TIME_SOURCE_KEY);

        // idempotent, and a map config given by the user is kept
        config.addMapConfig(GridLimitHazelcast.mapConfig(2));
        GridLimitHazelcast.configure(config);
        assertThat(config.getMapConfigs().get("gridlimit.*").getBackupCount()).isEqualTo(2);

        TimeSource clock = new ManualTimeSource(0);
        GridLimitHazelcast.configure(config, clock);
        assertThat(config.getUserContext().get(GridLimitHazelcast.TIME_SOURCE_KEY)).isSameAs(clock);
        assertThat(GridLimitHazelcast.mapName("api")).isEqualTo("gridlimit.api");
    }

    @Test
    void policyMapsMergeConservativelyEvictFreshFirstAndCountLostState() {
        MapConfig maps = GridLimitHazelcast.configure(new Config()).getMapConfigs().get("gridlimit.*");
        assertThat(maps.getMergePolicyConfig().getPolicy()).isEqualTo(ConservativeMergePolicy.class.getName());
        assertThat(maps.getMergePolicyConfig().getBatchSize()).isEqualTo(100);
        assertThat(maps.getEvictionConfig().getMaxSizePolicy()).isEqualTo(MaxSizePolicy.PER_NODE);
        assertThat(maps.getEvictionConfig().getSize()).isEqualTo(1_000_000);
        assertThat(maps.getEvictionConfig().getComparatorClassName())
                .isEqualTo(FreshFirstEvictionComparator.class.getName());
        assertThat(maps.getEntryListenerConfigs()).singleElement().satisfies(l -> {
            assertThat(l.getClassName()).isEqualTo(StateLossListener.class.getName());
            assertThat(l.isLocal()).isTrue();
            assertThat(l.isIncludeValue()).isTrue();
        });
        assertThat(maps.getPartitionLostListenerConfigs()).singleElement()
                .satisfies(l -> assertThat(l.getClassName()).isEqualTo(StateLossListener.class.getName()));
        assertThat(maps.getSplitBrainProtectionName()).as("off by default").isNull();
        assertThat(GridLimitHazelcast.mapConfig(1, 5_000).getEvictionConfig().getSize()).isEqualTo(5_000);
        assertThatThrownBy(() -> GridLimitHazelcast.mapConfig(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxEntriesPerMember must be in [1, 2147483647], got 0");
    }

    @Test
    void splitBrainProtectionIsAnOptionOnEveryPolicyMap() {
        Config config = GridLimitHazelcast.configure(new Config());
        config.addMapConfig(GridLimitHazelcast.mapConfig(2).setName("gridlimit.b2-*"));
        config.addMapConfig(new MapConfig("other"));
        GridLimitHazelcast.requireMinimumClusterSize(config, 2);
        SplitBrainProtectionConfig protection = config.getSplitBrainProtectionConfig("gridlimit-minimum-cluster-size");
        assertThat(protection.isEnabled()).isTrue();
        assertThat(protection.getMinimumClusterSize()).isEqualTo(2);
        assertThat(protection.getProtectOn()).isEqualTo(SplitBrainProtectionOn.READ_WRITE);
        assertThat(config.getMapConfig("gridlimit.*").getSplitBrainProtectionName())
                .isEqualTo("gridlimit-minimum-cluster-size");
        assertThat(config.getMapConfigs().get("gridlimit.b2-*").getSplitBrainProtectionName())
                .isEqualTo("gridlimit-minimum-cluster-size");
        assertThat(config.getMapConfigs().get("other").getSplitBrainProtectionName()).isNull();
        assertThatThrownBy(() -> GridLimitHazelcast.requireMinimumClusterSize(config, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minimumClusterSize must be in [2, 1000], got 1");
    }

    @Test
    void clientConfigurationRegistersSerialization() {
        ClientConfig config = GridLimitHazelcast.configure(new ClientConfig());
        assertThat(config.getSerializationConfig().getDataSerializableFactories().get(0x474C))
                .isInstanceOf(GridLimitDataSerializableFactory.class);
    }

    @Test
    void aFactoryIdTakenByAnotherFactoryIsRefused() {
        Config config = new Config();
        DataSerializableFactory other = typeId -> null;
        config.getSerializationConfig().addDataSerializableFactory(0x474C, other);
        assertThatThrownBy(() -> GridLimitHazelcast.configure(config))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("18252");
    }

    @Test
    void backupCountIsChecked() {
        assertThat(GridLimitHazelcast.mapConfig(0).getBackupCount()).isZero();
        assertThat(GridLimitHazelcast.mapConfig(6).getBackupCount()).isEqualTo(6);
        assertThatThrownBy(() -> GridLimitHazelcast.mapConfig(7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backupCount must be in [0, 6], got 7");
        assertThatThrownBy(() -> GridLimitHazelcast.mapConfig(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void defaultMemberIsStandaloneAndDecidesOnClusterTime() {
        Config config = GridLimitHazelcast.defaultMemberConfig();
        assertThat(config.getNetworkConfig().getJoin().getMulticastConfig().isEnabled()).isFalse();
        assertThat(config.getNetworkConfig().getJoin().getAutoDetectionConfig().isEnabled()).isFalse();
        assertThat(config.getNetworkConfig().getJoin().getTcpIpConfig().isEnabled()).isFalse();
        assertThat(config.getMapConfigs()).containsKey("gridlimit.*");
        // a free port and a private cluster name: other builds run members on this machine too
        config.setClusterName("gridlimit-default-" + UUID.randomUUID());
        config.getNetworkConfig().setPort(GridTestSupport.freePorts(1)[0]).setPortAutoIncrement(false);
        config.setProperty("hazelcast.partition.count", "31");
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(member)) {
            TimeSource source = GridLimitHazelcast.timeSourceOf(member);
            assertThat(source).isInstanceOf(ClusterTimeSource.class);
            assertThat(GridLimitHazelcast.timeSourceOf(member)).as("kept in the user context").isSameAs(source);
            long beforeNanos = member.getCluster().getClusterTime() * 1_000_000L;
            Policy policy = Policy.builder("default").fixedWindow(3, Duration.ofDays(1)).build();
            Decision decision = limiter.tryAcquire(policy, "k", 1);
            long afterNanos = member.getCluster().getClusterTime() * 1_000_000L;
            assertThat(decision.remaining()).isEqualTo(2);
            assertThat(limiter.localOwnedKeyCount("default")).hasValue(1);
            assertThat(member.getMap("gridlimit.default").get("k")).isInstanceOfSatisfying(
                    io.gridlimit.algorithm.FixedWindowState.class,
                    s -> assertThat(s.lastNanos()).isBetween(beforeNanos, afterNanos));
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    @Test
    void theTimeSourceLookupRefusesWhatItCannotUse() {
        assertThatThrownBy(() -> GridLimitHazelcast.timeSourceOf(null)).isInstanceOf(IllegalStateException.class);
        Config config = new Config();
        config.getUserContext().put(GridLimitHazelcast.TIME_SOURCE_KEY, "not a clock");
        HazelcastInstance member = (HazelcastInstance) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {HazelcastInstance.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConfig")) {
                        return config;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        assertThatThrownBy(() -> GridLimitHazelcast.timeSourceOf(member)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("java.lang.String");
    }
}
