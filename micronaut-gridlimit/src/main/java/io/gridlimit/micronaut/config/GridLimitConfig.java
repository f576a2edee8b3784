package io.gridlimit.micronaut.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.util.PathMatcher;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The checked GridLimit configuration, built once at startup by {@link GridLimitConfigFactory} from the
 * {@code gridlimit.*} properties; a bad value stops the boot. Immutable and thread-safe.
 *
 * @param headers which rate-limit headers responses carry
 * @param failureMode what a request gets when the grid does not answer within {@code gridTimeout}
 * @param gridTimeout the longest time one decision may take, in [1 ms, 1 h]
 * @param exempt Ant-style patterns of paths never rate limited
 * @param clientIp the client IP settings
 * @param hazelcast the grid settings
 * @param policies policies by name, in declared order; unmodifiable
 * @param shadowPolicies names of the policies in shadow mode
 * @param routes the route rules in declared order
 * @param local the {@code gridlimit.local} settings (used by {@code failure-mode: local})
 */
public record GridLimitConfig(HeaderMode headers, FailureMode failureMode, Duration gridTimeout, List<String> exempt,
                              ClientIpSettings clientIp, HazelcastSettings hazelcast, Map<String, Policy> policies,
                              Set<String> shadowPolicies, List<RouteRule> routes, LocalFallbackSettings local) {
    /** Default {@code gridlimit.grid-timeout}: 100 ms (SPEC §5). */
    public static final Duration DEFAULT_GRID_TIMEOUT = Duration.ofMillis(100);
    /** Default {@code gridlimit.exempt}: health and metrics. */
    public static final List<String> DEFAULT_EXEMPT = List.of("/health/**", "/prometheus");

    /** Copies every collection; {@code local} must not be null. */
    public GridLimitConfig {
        Objects.requireNonNull(local, "local");
        exempt = List.copyOf(exempt);
        policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
        shadowPolicies = Set.copyOf(shadowPolicies);
        routes = List.copyOf(routes);
    }

    /**
     * Tells whether a path is exempt from every rule.
     *
     * @param normalisedPath the path after SPEC §7 normalisation
     * @return true when an exempt pattern matches it
     */
    public boolean isExempt(String normalisedPath) {
        return exempt.stream().anyMatch(pattern -> PathMatcher.ANT.matches(pattern, normalisedPath));
    }

    /**
     * Looks a policy up.
     *
     * @param name a policy name, exactly as configured
     * @return the policy, or empty
     */
    public Optional<Policy> policy(String name) {
        return Optional.ofNullable(name == null ? null : policies.get(name));
    }

    /**
     * @param name a policy name
     * @return true when the policy is configured with {@code shadow: true}
     */
    public boolean isShadow(String name) {
        return shadowPolicies.contains(name);
    }
}
