package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.decide.RouteRules;
import io.gridlimit.micronaut.key.PathNormalizer;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.web.router.RouteMatch;
import jakarta.inject.Singleton;

import java.util.List;

/**
 * Finds the rules that apply to a request (SPEC §7): none when its normalised path is exempt; else the route rules
 * ({@code gridlimit.routes}) that match its method and normalised path, in declared order, then the matched
 * controller method's {@link RateLimited} rule. Routes without a match (404, 405) are still limited by route
 * rules. The door-neutral part (normalisation, exemption, route rules) is {@link RouteRules}, which the offline
 * replay shares; this adds the annotation's rule. Thread-safe.
 */
@Singleton
public class RuleMatcher {
    private final RouteRules routes;
    private final RateLimitedRoutes annotated;

    /**
     * @param config the checked configuration: exempt paths and route rules
     * @param annotated the {@code @RateLimited} rules
     */
    public RuleMatcher(GridLimitConfig config, RateLimitedRoutes annotated) {
        this.routes = new RouteRules(config);
        this.annotated = annotated;
    }

    /**
     * @param request the request
     * @param routeMatch the route Micronaut matched, or null
     * @return the matching rules in order (route rules, then the annotation's), empty when none applies
     */
    public List<RouteRule> match(HttpRequest<?> request, @Nullable RouteMatch<?> routeMatch) {
        String path = PathNormalizer.normalize(request.getPath());
        if (routes.isExempt(path)) {
            return List.of();
        }
        List<RouteRule> rules = routes.matchNormalised(request.getMethodName(), path);
        annotated.ruleFor(routeMatch == null ? null : routeMatch.getRouteInfo()).ifPresent(rules::add);
        return rules;
    }
}
