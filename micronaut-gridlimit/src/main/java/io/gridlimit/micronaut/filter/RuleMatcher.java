package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.key.PathNormalizer;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.web.router.RouteMatch;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the rules that apply to a request (SPEC §7): none when its normalised path is exempt; else the route rules
 * ({@code gridlimit.routes}) that match its method and normalised path, in declared order, then the matched
 * controller method's {@link RateLimited} rule. Routes without a match (404, 405) are still limited by route
 * rules. Thread-safe.
 */
@Singleton
public class RuleMatcher {
    private final GridLimitConfig config;
    private final RateLimitedRoutes annotated;

    /**
     * @param config the checked configuration: exempt paths and route rules
     * @param annotated the {@code @RateLimited} rules
     */
    public RuleMatcher(GridLimitConfig config, RateLimitedRoutes annotated) {
        this.config = config;
        this.annotated = annotated;
    }

    /**
     * @param request the request
     * @param routeMatch the route Micronaut matched, or null
     * @return the matching rules in order (route rules, then the annotation's), empty when none applies
     */
    public List<RouteRule> match(HttpRequest<?> request, @Nullable RouteMatch<?> routeMatch) {
        String path = PathNormalizer.normalize(request.getPath());
        if (config.isExempt(path)) {
            return List.of();
        }
        List<RouteRule> rules = new ArrayList<>();
        String method = request.getMethodName();
        for (RouteRule rule : config.routes()) {
            if (rule.matches(method, path)) {
                rules.add(rule);
            }
        }
        annotated.ruleFor(routeMatch == null ? null : routeMatch.getRouteInfo()).ifPresent(rules::add);
        return rules;
    }
}
