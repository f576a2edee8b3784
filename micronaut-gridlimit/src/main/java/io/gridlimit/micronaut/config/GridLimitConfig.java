package io.gridlimit.micronaut.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.util.PathMatcher;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checked GridLimit configuration, built once at startup by {@link GridLimitConfigFactory} from the
 * {@code gridlimit.*} properties; a bad value stops the boot. Immutable and thread-safe.
 */
public final class GridLimitConfig {
    /** Default {@code gridlimit.grid-timeout}: 100 ms (SPEC §5). */
    public static final Duration DEFAULT_GRID_TIMEOUT = Duration.ofMillis(100);
    /** Default {@code gridlimit.exempt}: health and metrics. */
    public static final List<String> DEFAULT_EXEMPT = List.of("/health/**", "/prometheus");

    private final HeaderMode headers;
    private final FailureMode failureMode;
    private final Duration gridTimeout;
    private final List<String> exempt;
    private final ClientIpSettings clientIp;
    private final HazelcastSettings hazelcast;
    private final Map<String, Policy> policies;
    private final Set<String> shadowPolicies;
    private final List<RouteRule> routes;
    private final LocalFallbackSettings local;

    /**
     * Creates a configuration from checked parts.
     *
     * @param headers which rate-limit headers to write
     * @param failureMode what a request gets when the grid does not answer in time
     * @param gridTimeout how long a decision may take, > 0
     * @param exempt Ant-style patterns of paths never limited
     * @param clientIp client IP settings
     * @param hazelcast grid settings
     * @param policies policies by name, in declared order
     * @param shadowPolicies names of the policies in shadow mode
     * @param routes route rules in declared order
     */
    public GridLimitConfig(HeaderMode headers, FailureMode failureMode, Duration gridTimeout, List<String> exempt,
                           ClientIpSettings clientIp, HazelcastSettings hazelcast, Map<String, Policy> policies,
                           Set<String> shadowPolicies, List<RouteRule> routes) {
        this(headers, failureMode, gridTimeout, exempt, clientIp, hazelcast, policies, shadowPolicies, routes,
                LocalFallbackSettings.DEFAULTS);
    }

    /**
     * Creates a configuration from checked parts, with the settings of {@code failure-mode: local}.
     *
     * @param headers which rate-limit headers to write
     * @param failureMode what a request gets when the grid does not answer in time
     * @param gridTimeout how long a decision may take, > 0
     * @param exempt Ant-style patterns of paths never limited
     * @param clientIp client IP settings
     * @param hazelcast grid settings
     * @param policies policies by name, in declared order
     * @param shadowPolicies names of the policies in shadow mode
     * @param routes route rules in declared order
     * @param local the {@code gridlimit.local} settings
     */
    public GridLimitConfig(HeaderMode headers, FailureMode failureMode, Duration gridTimeout, List<String> exempt,
                           ClientIpSettings clientIp, HazelcastSettings hazelcast, Map<String, Policy> policies,
                           Set<String> shadowPolicies, List<RouteRule> routes, LocalFallbackSettings local) {
        this.local = java.util.Objects.requireNonNull(local, "local");
        this.headers = headers;
        this.failureMode = failureMode;
        this.gridTimeout = gridTimeout;
        this.exempt = List.copyOf(exempt);
        this.clientIp = clientIp;
        this.hazelcast = hazelcast;
        this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
        this.shadowPolicies = Set.copyOf(shadowPolicies);
        this.routes = List.copyOf(routes);
    }

    /** @return which rate-limit headers responses carry */
    public HeaderMode headers() {
        return headers;
    }

    /** @return what a request gets when the grid does not answer within {@link #gridTimeout()} */
    public FailureMode failureMode() {
        return failureMode;
    }

    /** @return the longest time one decision may take, in [1 ms, 1 h] */
    public Duration gridTimeout() {
        return gridTimeout;
    }

    /** @return Ant-style patterns of paths never rate limited */
    public List<String> exempt() {
        return exempt;
    }

    /**
     * Tells whether a path is exempt from every rule.
     *
     * @param normalisedPath the path after SPEC §7 normalisation
     * @return true when an exempt pattern matches it
     */
    public boolean isExempt(String normalisedPath) {
        for (String pattern : exempt) {
            if (PathMatcher.ANT.matches(pattern, normalisedPath)) {
                return true;
            }
        }
        return false;
    }

    /** @return the client IP settings */
    public ClientIpSettings clientIp() {
        return clientIp;
    }

    /** @return the grid settings */
    public HazelcastSettings hazelcast() {
        return hazelcast;
    }

    /** @return policies by name, in declared order; unmodifiable */
    public Map<String, Policy> policies() {
        return policies;
    }

    /**
     * Looks a policy up.
     *
     * @param name a policy name
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

    /** @return the {@code gridlimit.local} settings (used by {@code failure-mode: local}) */
    public LocalFallbackSettings local() {
        return local;
    }

    /** @return the route rules in declared order */
    public List<RouteRule> routes() {
        return routes;
    }
}
