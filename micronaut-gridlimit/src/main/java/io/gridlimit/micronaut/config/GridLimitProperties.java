package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import java.time.Duration;
import java.util.List;

/**
 * The typed settings under {@code gridlimit} (README "Configuration reference" gives each default). Bound by
 * Micronaut; the start-up property check ({@link io.gridlimit.micronaut.config.sources.ConfigurationSources}) refuses unknown names and values that do not convert or break a constraint,
 * naming the property and the value, before this is created; {@link GridLimitConfigFactory} maps it onto the
 * checked {@link GridLimitConfig}. Read the configuration from {@link GridLimitConfig}, never from here.
 *
 * @param headers which rate-limit headers responses carry
 * @param failureMode what a request gets when the grid does not answer within {@code gridTimeout}
 * @param gridTimeout how long one decision may take, in [1 ms, 1 h]
 * @param exempt Ant-style patterns of paths never rate limited, or null for the default
 * @param exemptAllAcknowledged true when exempt patterns covering every path are meant
 * @param clientIp {@code gridlimit.client-ip}
 * @param hazelcast {@code gridlimit.hazelcast}
 * @param local {@code gridlimit.local}
 */
@ConfigurationProperties("gridlimit")
public record GridLimitProperties(@Bindable(defaultValue = "both") HeaderMode headers,
                                  @Bindable(defaultValue = "local") FailureMode failureMode,
                                  @Bindable(defaultValue = "100ms") Duration gridTimeout,
                                  @Nullable List<String> exempt,
                                  @Bindable(defaultValue = "false") boolean exemptAllAcknowledged,
                                  ClientIp clientIp, Hazelcast hazelcast, Local local) {
    /**
     * {@code gridlimit.client-ip} (SPEC §6).
     *
     * @param trustedProxies CIDRs or addresses whose forwarding header is believed, or null for none
     * @param ipv6Prefix the prefix length IPv6 clients are keyed by
     * @param header the one forwarding header the trusted proxies write
     * @param trustAnyAddress true when trusted proxies covering every address are meant
     */
    @ConfigurationProperties("client-ip")
    public record ClientIp(@Nullable List<String> trustedProxies,
                           @Bindable(defaultValue = "64") @Min(1) @Max(128) int ipv6Prefix,
                           @Bindable(defaultValue = "x-forwarded-for") ForwardingHeader header,
                           @Bindable(defaultValue = "false") boolean trustAnyAddress) {
    }

    /**
     * {@code gridlimit.hazelcast} (see {@link HazelcastSettings}).
     *
     * @param mode embedded member or client
     * @param clusterName the cluster name, or null for {@code micronaut.application.name}
     * @param port the embedded member's first port
     * @param members the join list or cluster addresses, or null for {@code 127.0.0.1}
     * @param interfaces the addresses an embedded member binds to, or null for {@code 127.0.0.1}
     * @param configFile the user's own Hazelcast file, or null
     * @param maxKeysPerMember the per-member bound of each policy map, in keys
     * @param minClusterSize split-brain protection's minimum cluster size; 0 or 1 = off
     */
    @ConfigurationProperties("hazelcast")
    public record Hazelcast(@Bindable(defaultValue = "embedded") HazelcastMode mode, @Nullable String clusterName,
                            @Bindable(defaultValue = "5701") @Min(1) @Max(65_535) int port,
                            @Nullable List<String> members, @Nullable List<String> interfaces,
                            @Nullable String configFile,
                            @Bindable(defaultValue = "1000000") @Min(1_000) @Max(100_000_000) int maxKeysPerMember,
                            @Bindable(defaultValue = "0") @Min(0) @Max(1_000) int minClusterSize) {
    }

    /**
     * {@code gridlimit.local}, the settings of {@code failure-mode: local} (see {@link LocalFallbackSettings}).
     *
     * @param maxKeys the most (policy, key) states one replica keeps
     * @param expectedReplicas the number of replicas the quota is divided by
     */
    @ConfigurationProperties("local")
    public record Local(@Bindable(defaultValue = "100000") @Min(1) @Max(100_000_000) int maxKeys,
                        @Bindable(defaultValue = "3") @Min(1) @Max(10_000) int expectedReplicas) {
    }
}
