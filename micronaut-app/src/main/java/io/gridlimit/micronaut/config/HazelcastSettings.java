package io.gridlimit.micronaut.config;

import io.micronaut.core.annotation.Nullable;

import java.nio.file.Path;
import java.util.List;

/**
 * Checked {@code gridlimit.hazelcast} settings. Immutable and thread-safe.
 *
 * @param mode embedded member (default) or client
 * @param clusterName the Hazelcast cluster name (default {@code gridlimit})
 * @param port the embedded member's first port, in [1, 65535] (default 5701; auto-increment on)
 * @param members TCP-IP join list of an embedded member, or the cluster addresses of a client:
 *     {@code host} or {@code host:port}; multicast is always off
 * @param configFile the user's own {@code hazelcast.yaml} / {@code hazelcast-client.yaml} (or XML), or null;
 *     when set it replaces the settings above, and GridLimit adds its serialization and map configuration
 */
public record HazelcastSettings(HazelcastMode mode, String clusterName, int port, List<String> members,
                                @Nullable Path configFile) {
    /** Default cluster name. */
    public static final String DEFAULT_CLUSTER_NAME = "gridlimit";
    /** Default first member port. */
    public static final int DEFAULT_PORT = 5701;

    /** Copies the member list. */
    public HazelcastSettings {
        members = List.copyOf(members);
    }
}
