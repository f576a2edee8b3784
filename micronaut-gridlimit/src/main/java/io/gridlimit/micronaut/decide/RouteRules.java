package io.gridlimit.micronaut.decide;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.key.PathNormalizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The door-neutral half of rule matching (SPEC §7): a request's method and raw path to the configured route rules
 * ({@code gridlimit.routes}) that apply to it, in declared order; none when its normalised path
 * ({@link PathNormalizer}) is exempt ({@code gridlimit.exempt}). The HTTP filter's {@code RuleMatcher} adds the
 * matched controller's {@code @RateLimited} rule after these; the offline replay (module {@code gridlimit-replay},
 * issue 24) uses these alone, so a log line and a live request with the same method and path meet the same rules.
 * Immutable and thread-safe.
 */
public final class RouteRules {
    private final GridLimitConfig config;

    /**
     * @param config the checked configuration: exempt patterns and route rules
     * @throws NullPointerException if {@code config} is null
     */
    public RouteRules(GridLimitConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Finds the route rules of a request.
     *
     * @param method the HTTP method name in any case ({@link RouteRule#matches}: {@code HEAD} counts as {@code GET})
     * @param rawPath the path as received, without query string; null or empty is {@code /}
     * @return a new mutable list of the matching route rules in declared order; empty when the normalised path is
     *     exempt or no rule matches
     */
    public List<RouteRule> match(String method, String rawPath) {
        return matchNormalised(method, PathNormalizer.normalize(rawPath));
    }

    /**
     * Tells whether a path is exempt from every rule, route rules and {@code @RateLimited} ones alike.
     *
     * @param normalisedPath the path after {@link PathNormalizer#normalize}
     * @return true when a {@code gridlimit.exempt} pattern matches it
     */
    public boolean isExempt(String normalisedPath) {
        return config.isExempt(normalisedPath);
    }

    /**
     * Finds the route rules of a request whose path is normalised already.
     *
     * @param method the HTTP method name in any case
     * @param normalisedPath the path after {@link PathNormalizer#normalize}
     * @return a new mutable list of the matching route rules in declared order; empty when the path is exempt
     */
    public List<RouteRule> matchNormalised(String method, String normalisedPath) {
        List<RouteRule> rules = new ArrayList<>();
        if (config.isExempt(normalisedPath)) {
            return rules;
        }
        for (RouteRule rule : config.routes()) {
            if (rule.matches(method, normalisedPath)) {
                rules.add(rule);
            }
        }
        return rules;
    }

    /**
     * Tells whether one rule's answer stops the rules after it (the filter's sequence, SPEC §5 and §10): a failure,
     * or a denial outside shadow mode. A stopped request is not admitted, and all-or-nothing gives back what the
     * rules before it admitted ({@link Decisions#close}).
     *
     * @param rule the rule answered
     * @param answer its answer
     * @return true when no further rule is asked and the request is not admitted
     */
    public static boolean stops(RouteRule rule, Answer answer) {
        return !answer.decided() || (!answer.decision().allowed() && !rule.shadow());
    }
}
