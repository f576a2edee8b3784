package io.gridlimit.grid;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.EntryListenerConfig;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MapPartitionLostListenerConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import io.gridlimit.grid.catalog.CatalogSupport;
import io.gridlimit.grid.wire.MemberContext;
import io.gridlimit.grid.wire.StateSerializers;
import io.gridlimit.grid.wire.WireFormat;
import io.gridlimit.time.ClusterTimeSource;
import io.gridlimit.time.TimeSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;
import io.gridlimit.grid.catalog.PolicyCatalog;

/**
 * Prepares Hazelcast members and clients for GridLimit (SPEC §8): registers the
 * {@link GridLimitDataSerializableFactory} and the Compact serializers of the stored states, configures the
 * policy maps {@code gridlimit.*} ({@link #mapConfig(int, int)}: backups, the conservative split-brain merge
 * policy, eviction at a per-member bound with fresh-equivalent states first, and the lost-state count), and sets
 * the {@link TimeSource} decisions read on a member. Split-brain protection is an option
 * ({@link #requireMinimumClusterSize}).
 *
 * <p>Every member must be configured (it runs the processors and stores the states); a client needs the
 * serialization part ({@link #configure(ClientConfig)}). All methods configure before start: Hazelcast copies
 * nothing back from a running instance. Stateless and thread-safe.
 *
 * <pre>{@code
 * Config config = GridLimitHazelcast.configure(new Config());   // or your own member config
 * HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
 * HazelcastRateLimiter limiter = HazelcastRateLimiter.create(member);
 * }</pre>
 */
public final class GridLimitHazelcast {
    /** Prefix of every policy map: the map of policy {@code p} is {@code gridlimit.p}. */
    public static final String MAP_PREFIX = MemberContext.MAP_PREFIX;
    /** The wildcard map configuration name covering every policy map. */
    public static final String MAP_CONFIG_NAME = MAP_PREFIX + "*";
    /** Key under which a member's {@code Config} user context holds the {@link TimeSource} of its decisions. */
    public static final String TIME_SOURCE_KEY = MemberContext.TIME_SOURCE_KEY;
    /** Synchronous backups of each policy map by default: 1. */
    public static final int DEFAULT_BACKUP_COUNT = 1;
    /**
     * The per-member bound of each policy map by default: 1 000 000 entries (keys) per map per member. A stored
     * state with its key and Hazelcast's record costs roughly 200 to 400 bytes on the heap (a sliding window log
     * more, up to 12 bytes per entry of its limit), so the bound keeps one policy map at a few hundred MB per
     * member: size the heap for (policies × bound × ~300 B) × (1 + backups), or pass a smaller bound to
     * {@link #mapConfig(int, int)}. Keys beyond it evict fresh-equivalent states first
     * ({@link FreshFirstEvictionComparator}); idle states expire by TTL long before in the usual case.
     */
    public static final int DEFAULT_MAX_ENTRIES_PER_MEMBER = 1_000_000;
    /** Entries per merge operation Hazelcast sends after a split brain heals (its default). */
    public static final int MERGE_BATCH_SIZE = MergePolicyConfig.DEFAULT_BATCH_SIZE;
    /** The name of the split-brain protection {@link #requireMinimumClusterSize} configures. */
    public static final String SPLIT_BRAIN_PROTECTION_NAME = "gridlimit-minimum-cluster-size";

    private GridLimitHazelcast() {
    }

    /**
     * Returns the map that holds a policy's state.
     *
     * @param policyName the policy name
     * @return {@code "gridlimit." + policyName}
     * @throws NullPointerException if {@code policyName} is null
     */
    public static String mapName(String policyName) {
        return MemberContext.mapName(policyName);
    }

    /**
     * Configures a member with the defaults: serialization, {@link #mapConfig(int)} with 1 synchronous backup
     * (unless the config already has a {@code gridlimit.*} map config, which is then kept as given), decisions
     * reading the member's cluster time ({@link ClusterTimeSource}) unless the user context already holds a
     * time source, the expiry sweep of {@link ExpirySweep#configure(Config)}, and the policy catalog's maps
     * ({@link PolicyCatalog}: the same backups as the policy maps, unless configured) with the member attribute
     * saying this member reads the catalog (docs/SPEC.md §11).
     *
     * @param config the member configuration, changed in place
     * @return {@code config}
     * @throws IllegalArgumentException if the factory id {@link GridLimitDataSerializableFactory#FACTORY_ID} is
     *     taken by another factory
     * @throws IllegalStateException if the running Hazelcast is older than the tested one ({@link HazelcastVersion})
     * @throws NullPointerException if {@code config} is null
     */
    public static Config configure(Config config) {
        Objects.requireNonNull(config, "config");
        HazelcastVersion.requireTested();
        configureSerialization(config.getSerializationConfig());
        WireFormat.advertise(config); // member attribute gridlimit.wire, and the writers' view (docs/wire.md)
        if (!config.getMapConfigs().containsKey(MAP_CONFIG_NAME)) {
            config.addMapConfig(mapConfig(DEFAULT_BACKUP_COUNT));
        }
        CatalogSupport.advertise(config); // member attributes gridlimit.catalog(-generations) (docs/SPEC.md §11)
        for (String catalogMap : List.of(PolicyCatalog.POLICIES_MAP, PolicyCatalog.OVERRIDES_MAP,
                PolicyCatalog.REFERENCES_MAP)) {
            if (!config.getMapConfigs().containsKey(catalogMap)) {
                config.addMapConfig(new MapConfig(catalogMap).setBackupCount(
                        config.getMapConfig(MAP_CONFIG_NAME).getBackupCount()).setAsyncBackupCount(0));
            }
        }
        ExpirySweep.configure(config);
        return config;
    }

    /**
     * Configures a member as {@link #configure(Config)} does, with the given time source for its decisions
     * (tests inject a {@link io.gridlimit.time.ManualTimeSource}; single-process use may pass a
     * {@link io.gridlimit.time.SystemTimeSource}).
     *
     * @param config the member configuration, changed in place
     * @param timeSource the clock the member's decisions read, epoch nanoseconds
     * @return {@code config}
     * @throws IllegalArgumentException if the factory id is taken by another factory
     * @throws NullPointerException if an argument is null
     */
    public static Config configure(Config config, TimeSource timeSource) {
        configure(config);
        config.getUserContext().put(TIME_SOURCE_KEY, Objects.requireNonNull(timeSource, "timeSource"));
        return config;
    }

    /**
     * Configures a client: registers the factory and the Compact serializers.
     *
     * @param config the client configuration, changed in place
     * @return {@code config}
     * @throws IllegalArgumentException if the factory id is taken by another factory
     * @throws IllegalStateException if the running Hazelcast is older than the tested one ({@link HazelcastVersion})
     * @throws NullPointerException if {@code config} is null
     */
    public static ClientConfig configure(ClientConfig config) {
        Objects.requireNonNull(config, "config");
        HazelcastVersion.requireTested();
        configureSerialization(config.getSerializationConfig());
        WireFormat.advertise(config); // the writers' view of the members' formats (docs/wire.md)
        return config;
    }

    /**
     * Registers the {@link GridLimitDataSerializableFactory} and one explicit Compact serializer per stored state.
     * Calling it twice on one config is harmless.
     *
     * @param serialization a member's or a client's serialization configuration, changed in place
     * @return {@code serialization}
     * @throws IllegalArgumentException if the factory id is taken by another factory
     */
    public static SerializationConfig configureSerialization(SerializationConfig serialization) {
        Objects.requireNonNull(serialization, "serialization");
        DataSerializableFactory present =
                serialization.getDataSerializableFactories().get(GridLimitDataSerializableFactory.FACTORY_ID);
        if (present instanceof GridLimitDataSerializableFactory) {
            return serialization;
        }
        if (present != null || serialization.getDataSerializableFactoryClasses()
                .containsKey(GridLimitDataSerializableFactory.FACTORY_ID)) {
            throw new IllegalArgumentException("DataSerializableFactory id "
                    + GridLimitDataSerializableFactory.FACTORY_ID + " is already taken by another factory");
        }
        serialization.addDataSerializableFactory(GridLimitDataSerializableFactory.FACTORY_ID,
                new GridLimitDataSerializableFactory());
        for (CompactSerializer<?> serializer : StateSerializers.all()) {
            serialization.getCompactSerializationConfig().addSerializer(serializer);
        }
        return serialization;
    }

    /**
     * The configuration of the policy maps {@code gridlimit.*} with the default per-member bound
     * ({@link #DEFAULT_MAX_ENTRIES_PER_MEMBER}); see {@link #mapConfig(int, int)}.
     *
     * @param backupCount synchronous backups, in [0, 6]
     * @return a new map config named {@link #MAP_CONFIG_NAME}
     * @throws IllegalArgumentException if {@code backupCount} is out of range
     */
    public static MapConfig mapConfig(int backupCount) {
        return mapConfig(backupCount, DEFAULT_MAX_ENTRIES_PER_MEMBER);
    }

    /**
     * The configuration of the policy maps {@code gridlimit.*}: the given number of synchronous backups, no
     * asynchronous backup, in-memory format BINARY (a decision deserializes once on the partition thread either
     * way), statistics on (for the owned-key gauge), no map-wide TTL (each entry carries its own, SPEC §8), and:
     * <ul>
     *   <li>the split-brain merge policy {@link ConservativeMergePolicy}: after a heal each key keeps a state at
     *   least as consumed as both sides' (docs/SPEC.md §8);</li>
     *   <li>eviction at {@code maxEntriesPerMember} entries per map per member (Hazelcast's {@code PER_NODE}
     *   bound, enforced per partition as {@code bound × members / partitions}), fresh-equivalent states first
     *   ({@link FreshFirstEvictionComparator}, SPEC §8);</li>
     *   <li>{@link StateLossListener}, which counts evicted non-fresh states and entries lost with a partition
     *   into the member's {@link StateLoss} ({@code gridlimit.state.lost}).</li>
     * </ul>
     *
     * @param backupCount synchronous backups, in [0, 6]
     * @param maxEntriesPerMember the bound, entries per policy map per member, in [1, Integer.MAX_VALUE]
     * @return a new map config named {@link #MAP_CONFIG_NAME}
     * @throws IllegalArgumentException if a value is out of range (the message names it)
     */
    public static MapConfig mapConfig(int backupCount, int maxEntriesPerMember) {
        if (backupCount < 0 || backupCount > MapConfig.MAX_BACKUP_COUNT) {
            throw new IllegalArgumentException("backupCount must be in [0, " + MapConfig.MAX_BACKUP_COUNT
                    + "], got " + backupCount);
        }
        if (maxEntriesPerMember < 1) {
            throw new IllegalArgumentException(
                    "maxEntriesPerMember must be in [1, " + Integer.MAX_VALUE + "], got " + maxEntriesPerMember);
        }
        MapConfig map = new MapConfig(MAP_CONFIG_NAME)
                .setBackupCount(backupCount)
                .setAsyncBackupCount(0)
                .setInMemoryFormat(InMemoryFormat.BINARY)
                .setStatisticsEnabled(true)
                .setMergePolicyConfig(new MergePolicyConfig(ConservativeMergePolicy.class.getName(),
                        MERGE_BATCH_SIZE));
        EvictionConfig eviction = map.getEvictionConfig();
        eviction.setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                .setSize(maxEntriesPerMember)
                .setComparatorClassName(FreshFirstEvictionComparator.class.getName());
        map.addEntryListenerConfig(new EntryListenerConfig(StateLossListener.class.getName(), true, true));
        map.addMapPartitionLostListenerConfig(new MapPartitionLostListenerConfig(StateLossListener.class.getName()));
        return map;
    }

    /**
     * Makes every policy map refuse decisions on a member that sees fewer than {@code minimumClusterSize} members
     * (split-brain protection); see {@link SplitBrainProtection#require(Config, int)}, which this delegates to.
     *
     * @param config the member configuration, changed in place
     * @param minimumClusterSize members a member must see to decide, in [2, 1000]
     * @return {@code config}
     * @throws IllegalArgumentException if {@code minimumClusterSize} is out of range
     * @throws NullPointerException if {@code config} is null
     */
    public static Config requireMinimumClusterSize(Config config, int minimumClusterSize) {
        return SplitBrainProtection.require(config, minimumClusterSize);
    }

    /**
     * The configuration of a standalone member for the default case: GridLimit configured
     * ({@link #configure(Config)}), multicast and auto-detection off, TCP-IP join off, phone-home off. It forms
     * a one-member cluster; pass your own {@code Config} through {@link #configure(Config)} to join others.
     *
     * @return a new member configuration
     */
    public static Config defaultMemberConfig() {
        Config config = new Config();
        config.setProperty("hazelcast.phone.home.enabled", "false");
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(false);
        return configure(config);
    }

    /**
     * Starts a standalone embedded member with {@link #defaultMemberConfig()}. The caller owns it and shuts it
     * down.
     *
     * @return the running member, never null
     */
    public static HazelcastInstance newEmbeddedMember() {
        return Hazelcast.newHazelcastInstance(defaultMemberConfig());
    }

    /**
     * Returns the time source the member's decisions read: the one its {@code Config} user context holds under
     * {@link #TIME_SOURCE_KEY}, else (the default) a {@link ClusterTimeSource} of the member, which is then kept
     * there.
     *
     * @param member a running member
     * @return the member's time source, never null
     * @throws IllegalStateException if {@code member} is null (no instance was injected) or the user context
     *     holds something else under the key
     */
    public static TimeSource timeSourceOf(HazelcastInstance member) {
        return MemberContext.timeSourceOf(member);
    }
}
