package io.gridlimit.micronaut.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.util.PathMatcher;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One checked rate-limit rule: a route rule from {@code gridlimit.routes[i]} or a {@code @RateLimited}
 * annotation. Immutable and thread-safe.
 *
 * @param origin where the rule comes from, for messages: {@code gridlimit.routes[0]} or
 *     {@code @RateLimited on DemoController#hello}
 * @param pattern the Ant-style path pattern matched against the normalised path (SPEC §7); for an annotation,
 *     the route's URI template (used by the {@code route} key source)
 * @param methods upper-case HTTP method names; empty matches every method
 * @param policy the policy applied
 * @param shadow true when the policy runs in shadow mode (evaluated and reported, never denying)
 * @param keys the key sources, at least one, joined with {@code |} in this order
 * @param cost the units one request takes, in [1, 10^15]
 * @param onMissingKey what happens when a key source has no value for a request
 */
public record RouteRule(String origin, String pattern, Set<String> methods, Policy policy, boolean shadow,
                        List<KeySource> keys, long cost, OnMissingKey onMissingKey) {
    /**
     * Creates a rule.
     *
     * @throws IllegalArgumentException if there are no key sources or the cost is out of [1, 10^15]
     */
    public RouteRule {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(onMissingKey, "onMissingKey");
        methods = Set.copyOf(methods);
        keys = List.copyOf(keys);
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a rule needs at least one key source");
        }
        io.gridlimit.api.RateLimiter.checkCost(cost);
    }

    /**
     * Tells whether this route rule applies to a request.
     *
     * @param method the request's HTTP method name in any case, e.g. {@code GET} or {@code get}
     * @param normalisedPath the path after {@code PathNormalizer} (SPEC §7)
     * @return true when the method is listed (or none is; {@code HEAD} counts as {@code GET}, since Micronaut
     *     answers HEAD through GET routes) and the pattern matches the path
     */
    public boolean matches(String method, String normalisedPath) {
        // Micronaut routes a method name in any case ("get", "Get") to the GET route: compare case-insensitively,
        // or a lower-case request line would bypass every rule that lists methods.
        String upper = method.toUpperCase(java.util.Locale.ROOT);
        boolean methodMatches = methods.isEmpty() || methods.contains(upper)
                || ("HEAD".equals(upper) && methods.contains("GET"));
        return methodMatches && PathMatcher.ANT.matches(pattern, normalisedPath);
    }
}
