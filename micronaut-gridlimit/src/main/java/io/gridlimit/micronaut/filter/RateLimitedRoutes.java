package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.catalog.DeclaredRules;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.KeySource;
import io.gridlimit.micronaut.config.OnMissingKey;
import io.gridlimit.micronaut.config.RouteRule;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.AnnotationMetadata;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.web.router.RouteInfo;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rules of every {@link RateLimited} controller method, read from the router and checked at startup
 * ({@link Context}): an unknown policy, a bad key source or cost stops the boot with one message naming the
 * method and the bad value. Immutable after construction and thread-safe.
 */
@Context
public class RateLimitedRoutes implements DeclaredRules {
    private final Map<RouteInfo<?>, RouteRule> rules = new IdentityHashMap<>();

    /**
     * Reads and checks every {@code @RateLimited} route.
     *
     * @param router the application's router
     * @param config the checked configuration (policies)
     * @throws ConfigurationException naming each bad annotation and value
     */
    public RateLimitedRoutes(Router router, GridLimitConfig config) {
        List<String> errors = new ArrayList<>();
        router.uriRoutes().forEach(route -> {
            AnnotationMetadata metadata = route.getAnnotationMetadata();
            if (metadata.hasAnnotation(RateLimited.class)) {
                RouteRule rule = rule(route, metadata, config, errors);
                if (rule != null) {
                    rules.put(route, rule);
                }
            }
        });
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
    }

    /**
     * Returns the rule of a matched route.
     *
     * @param route the route Micronaut matched, or null when none matched
     * @return the {@code @RateLimited} rule of that route, or empty
     */
    public Optional<RouteRule> ruleFor(@Nullable RouteInfo<?> route) {
        return route == null ? Optional.empty() : Optional.ofNullable(rules.get(route));
    }

    /** @return how many routes carry {@code @RateLimited} */
    public int size() {
        return rules.size();
    }

    /** @return the annotation rules, in no particular order (for the catalog's references, docs/SPEC.md §11) */
    @Override
    public java.util.Collection<RouteRule> rules() {
        return java.util.List.copyOf(rules.values());
    }

    private static @Nullable RouteRule rule(UriRouteInfo<?, ?> route, AnnotationMetadata metadata,
                                            GridLimitConfig config, List<String> errors) {
        String origin = "@RateLimited on " + route.getTargetMethod().getDeclaringType().getSimpleName() + "#"
                + route.getTargetMethod().getMethodName();
        int before = errors.size();
        String policyName = metadata.stringValue(RateLimited.class, "policy").orElse("");
        Policy policy = config.policy(policyName).orElse(null);
        if (policy == null) {
            errors.add(origin + ": policy '" + policyName + "' names no policy under gridlimit.policies"
                    + (config.policies().isEmpty() ? " (none is configured)"
                    : " (known: " + String.join(", ", config.policies().keySet()) + ")"));
        }
        String[] rawKeys = metadata.stringValues(RateLimited.class, "key");
        if (rawKeys.length == 0) {
            rawKeys = new String[] {"client-ip"};
        }
        List<KeySource> keys = new ArrayList<>();
        for (String k : rawKeys) {
            try {
                keys.add(KeySource.parse(k));
            } catch (IllegalArgumentException e) {
                errors.add(origin + ": key " + e.getMessage());
            }
        }
        long cost = metadata.longValue(RateLimited.class, "cost").orElse(1L);
        String badCost = costError(cost);
        if (badCost != null) {
            errors.add(origin + ": " + badCost);
        } else if (policy != null) {
            for (Band band : policy.bands()) {
                if (cost > band.quota()) {
                    errors.add(origin + ": cost '" + cost + "' exceeds the quota " + band.quota() + " of policy '"
                            + policy.name() + "': no request could ever pass");
                    break;
                }
            }
        }
        OnMissingKey onMissing = metadata.enumValue(RateLimited.class, "onMissingKey", OnMissingKey.class)
                .orElse(OnMissingKey.REJECT);
        if (errors.size() > before) {
            return null;
        }
        return new RouteRule(origin, route.getUriMatchTemplate().toString(),
                Set.of(route.getHttpMethodName()), policy, config.isShadow(policy.name()), keys, cost, onMissing);
    }

    /** @return {@link RateLimiter#checkCost}'s message for a cost out of range, or null */
    private static @Nullable String costError(long cost) {
        try {
            RateLimiter.checkCost(cost);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
