package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * The raw settings under {@code gridlimit}, bound by Micronaut (YAML, environment variables, system properties).
 *
 * <p>Values are bound as text on purpose: Micronaut's own conversion errors name neither the property path nor
 * the bad value, so {@link GridLimitConfigFactory} converts and checks each value itself and fails the boot with
 * one message naming both. Read the checked values from {@link GridLimitConfig}, never from this class.
 *
 * <pre>
 * gridlimit:
 *   headers: both            # ietf | legacy | both
 *   failure-mode: open       # open | closed | local
 *   grid-timeout: 100ms
 *   local: {max-keys: 100000, expected-replicas: 3}   # failure-mode local only
 *   exempt: [/health/**, /prometheus]
 *   client-ip: {trusted-proxies: [], ipv6-prefix: 64}
 *   hazelcast: {mode: embedded, cluster-name: gridlimit, port: 5701, members: [127.0.0.1], config-file: ,
 *              max-keys-per-member: 1000000, min-cluster-size: 0}
 * </pre>
 */
@ConfigurationProperties(GridLimitProperties.PREFIX)
public class GridLimitProperties {
    /** The root of every GridLimit property. */
    public static final String PREFIX = "gridlimit";

    private String headers;
    private String failureMode;
    private String gridTimeout;
    private List<String> exempt;
    private ClientIp clientIp = new ClientIp();
    private Hazelcast hazelcast = new Hazelcast();
    private Local local = new Local();

    /** @return {@code gridlimit.headers} as written, or null when unset */
    public @Nullable String getHeaders() {
        return headers;
    }

    /** @param headers {@code ietf}, {@code legacy} or {@code both} */
    public void setHeaders(@Nullable String headers) {
        this.headers = headers;
    }

    /** @return {@code gridlimit.failure-mode} as written, or null when unset */
    public @Nullable String getFailureMode() {
        return failureMode;
    }

    /** @param failureMode {@code open}, {@code closed} or {@code local} */
    public void setFailureMode(@Nullable String failureMode) {
        this.failureMode = failureMode;
    }

    /** @return {@code gridlimit.grid-timeout} as written, or null when unset */
    public @Nullable String getGridTimeout() {
        return gridTimeout;
    }

    /** @param gridTimeout a duration such as {@code 100ms} */
    public void setGridTimeout(@Nullable String gridTimeout) {
        this.gridTimeout = gridTimeout;
    }

    /** @return {@code gridlimit.exempt} as written, or null when unset */
    public @Nullable List<String> getExempt() {
        return exempt;
    }

    /** @param exempt Ant-style path patterns never rate limited */
    public void setExempt(@Nullable List<String> exempt) {
        this.exempt = exempt;
    }

    /** @return the {@code gridlimit.client-ip} settings, never null */
    public ClientIp getClientIp() {
        return clientIp;
    }

    /** @param clientIp the {@code gridlimit.client-ip} settings */
    public void setClientIp(ClientIp clientIp) {
        this.clientIp = clientIp == null ? new ClientIp() : clientIp;
    }

    /** @return the {@code gridlimit.hazelcast} settings, never null */
    public Hazelcast getHazelcast() {
        return hazelcast;
    }

    /** @param hazelcast the {@code gridlimit.hazelcast} settings */
    public void setHazelcast(Hazelcast hazelcast) {
        this.hazelcast = hazelcast == null ? new Hazelcast() : hazelcast;
    }

    /** @return the {@code gridlimit.local} settings, never null */
    public Local getLocal() {
        return local;
    }

    /** @param local the {@code gridlimit.local} settings */
    public void setLocal(Local local) {
        this.local = local == null ? new Local() : local;
    }

    /** The raw {@code gridlimit.local} settings of {@code failure-mode: local}. */
    @ConfigurationProperties("local")
    public static class Local {
        private String maxKeys;
        private String expectedReplicas;

        /** @return {@code gridlimit.local.max-keys} as written, or null when unset */
        public @Nullable String getMaxKeys() {
            return maxKeys;
        }

        /** @param maxKeys the most (policy, key) states one replica keeps locally */
        public void setMaxKeys(@Nullable String maxKeys) {
            this.maxKeys = maxKeys;
        }

        /** @return {@code gridlimit.local.expected-replicas} as written, or null when unset */
        public @Nullable String getExpectedReplicas() {
            return expectedReplicas;
        }

        /** @param expectedReplicas the number of replicas the quota is divided by */
        public void setExpectedReplicas(@Nullable String expectedReplicas) {
            this.expectedReplicas = expectedReplicas;
        }
    }

    /** The raw {@code gridlimit.client-ip} settings (SPEC §6). */
    @ConfigurationProperties("client-ip")
    public static class ClientIp {
        private List<String> trustedProxies;
        private String ipv6Prefix;

        /** @return {@code gridlimit.client-ip.trusted-proxies} as written, or null when unset */
        public @Nullable List<String> getTrustedProxies() {
            return trustedProxies;
        }

        /** @param trustedProxies CIDRs or addresses, IPv4 or IPv6 */
        public void setTrustedProxies(@Nullable List<String> trustedProxies) {
            this.trustedProxies = trustedProxies;
        }

        /** @return {@code gridlimit.client-ip.ipv6-prefix} as written, or null when unset */
        public @Nullable String getIpv6Prefix() {
            return ipv6Prefix;
        }

        /** @param ipv6Prefix the prefix length IPv6 clients are keyed by, in [1, 128] */
        public void setIpv6Prefix(@Nullable String ipv6Prefix) {
            this.ipv6Prefix = ipv6Prefix;
        }
    }

    /** The raw {@code gridlimit.hazelcast} settings. */
    @ConfigurationProperties("hazelcast")
    public static class Hazelcast {
        private String mode;
        private String clusterName;
        private String port;
        private List<String> members;
        private String configFile;
        private String maxKeysPerMember;
        private String minClusterSize;

        /** @return {@code gridlimit.hazelcast.mode} as written, or null when unset */
        public @Nullable String getMode() {
            return mode;
        }

        /** @param mode {@code embedded} or {@code client} */
        public void setMode(@Nullable String mode) {
            this.mode = mode;
        }

        /** @return {@code gridlimit.hazelcast.cluster-name} as written, or null when unset */
        public @Nullable String getClusterName() {
            return clusterName;
        }

        /** @param clusterName the Hazelcast cluster name */
        public void setClusterName(@Nullable String clusterName) {
            this.clusterName = clusterName;
        }

        /** @return {@code gridlimit.hazelcast.port} as written, or null when unset */
        public @Nullable String getPort() {
            return port;
        }

        /** @param port the embedded member's first port, in [1, 65535] */
        public void setPort(@Nullable String port) {
            this.port = port;
        }

        /** @return {@code gridlimit.hazelcast.members} as written, or null when unset */
        public @Nullable List<String> getMembers() {
            return members;
        }

        /** @param members {@code host} or {@code host:port} entries */
        public void setMembers(@Nullable List<String> members) {
            this.members = members;
        }

        /** @return {@code gridlimit.hazelcast.config-file} as written, or null when unset */
        public @Nullable String getConfigFile() {
            return configFile;
        }

        /** @param configFile a path to a Hazelcast member or client YAML/XML file */
        public void setConfigFile(@Nullable String configFile) {
            this.configFile = configFile;
        }

        /** @return {@code gridlimit.hazelcast.max-keys-per-member} as written, or null when unset */
        public @Nullable String getMaxKeysPerMember() {
            return maxKeysPerMember;
        }

        /** @param maxKeysPerMember the per-member bound of each policy map, in keys, in [1000, 100000000] */
        public void setMaxKeysPerMember(@Nullable String maxKeysPerMember) {
            this.maxKeysPerMember = maxKeysPerMember;
        }

        /** @return {@code gridlimit.hazelcast.min-cluster-size} as written, or null when unset */
        public @Nullable String getMinClusterSize() {
            return minClusterSize;
        }

        /** @param minClusterSize split-brain protection's minimum cluster size, in [0, 1000]; 0 or 1 = off */
        public void setMinClusterSize(@Nullable String minClusterSize) {
            this.minClusterSize = minClusterSize;
        }
    }
}
