package io.gridlimit.micronaut.config;

import io.micronaut.core.annotation.Nullable;

import java.nio.file.Path;
import java.util.List;

/**
 * Checked {@code gridlimit.hazelcast} settings. Immutable and thread-safe.
 *
 * @param mode embedded member (default) or client
 * @param clusterName the Hazelcast cluster name (default {@code micronaut.application.name}; without one, and in
 *     client mode, {@code gridlimit.hazelcast.cluster-name} must be set)
 * @param port the embedded member's first port, in [1, 65535] (default 5701; auto-increment on)
 * @param members TCP-IP join list of an embedded member, or the cluster addresses of a client:
 *     {@code host} or {@code host:port}; multicast is always off
 * @param configFile the user's own {@code hazelcast.yaml} / {@code hazelcast-client.yaml} (or XML), or null;
 *     when set it replaces the settings above, and GridLimit adds its serialization and map configuration
 * @param maxKeysPerMember {@code gridlimit.hazelcast.max-keys-per-member}: the per-member entry bound of every
 *     policy map GridLimit configures on an embedded member (Hazelcast {@code PER_NODE} eviction), in
 *     [{@value #MIN_MAX_KEYS_PER_MEMBER}, {@value #MAX_MAX_KEYS_PER_MEMBER}] keys (default
 *     {@value #DEFAULT_MAX_KEYS_PER_MEMBER}); ignored by a client and by a config file that has its own
 *     {@code gridlimit.*} map configuration
 * @param minClusterSize {@code gridlimit.hazelcast.min-cluster-size}: split-brain protection of an embedded member,
 *     in [0, {@value #MAX_MIN_CLUSTER_SIZE}] members; 0 or 1 = off (default 0), 2 or more = the policy maps refuse
 *     decisions on a member that sees fewer members ({@code GridLimitHazelcast.requireMinimumClusterSize})
 * @param interfaces {@code gridlimit.hazelcast.interfaces}: the only addresses an embedded member binds to
 *     (Hazelcast interface patterns such as {@code 10.0.1.*}; default {@code 127.0.0.1}); ignored by a client and
 *     when a config file is set (used as written)
 */
public record HazelcastSettings(HazelcastMode mode, String clusterName, int port, List<String> members,
                                @Nullable Path configFile, int maxKeysPerMember, int minClusterSize,
                                List<String> interfaces) {
    /** Default {@code interfaces}: loopback only, so nothing outside this host reaches the grid. */
    public static final List<String> DEFAULT_INTERFACES = List.of("127.0.0.1");
    /** Default first member port. */
    public static final int DEFAULT_PORT = 5701;

    /** Default per-member bound of a policy map, in keys (grid-core's default). */
    public static final int DEFAULT_MAX_KEYS_PER_MEMBER = 1_000_000;
    /** Smallest accepted {@code max-keys-per-member}, in keys. */
    public static final int MIN_MAX_KEYS_PER_MEMBER = 1_000;
    /** Largest accepted {@code max-keys-per-member}, in keys. */
    public static final int MAX_MAX_KEYS_PER_MEMBER = 100_000_000;
    /** Default {@code min-cluster-size}: 0, split-brain protection off. */
    public static final int DEFAULT_MIN_CLUSTER_SIZE = 0;
    /** Largest accepted {@code min-cluster-size}, in members. */
    public static final int MAX_MIN_CLUSTER_SIZE = 1_000;

    /** Copies the lists. */
    public HazelcastSettings {
        members = List.copyOf(members);
        interfaces = List.copyOf(interfaces);
    }

    /**
     * Settings bound to the default interfaces; parameters as the record's.
     */
    public HazelcastSettings(HazelcastMode mode, String clusterName, int port, List<String> members,
                             @Nullable Path configFile, int maxKeysPerMember, int minClusterSize) {
        this(mode, clusterName, port, members, configFile, maxKeysPerMember, minClusterSize, DEFAULT_INTERFACES);
    }

    /**
     * Settings with the default per-member bound ({@value #DEFAULT_MAX_KEYS_PER_MEMBER} keys) and split-brain
     * protection off.
     *
     * @param mode embedded member or client
     * @param clusterName the Hazelcast cluster name
     * @param port the first member port
     * @param members the join list or cluster addresses
     * @param configFile the user's own Hazelcast file, or null
     */
    public HazelcastSettings(HazelcastMode mode, String clusterName, int port, List<String> members,
                             @Nullable Path configFile) {
        this(mode, clusterName, port, members, configFile, DEFAULT_MAX_KEYS_PER_MEMBER, DEFAULT_MIN_CLUSTER_SIZE,
                DEFAULT_INTERFACES);
    }
}
