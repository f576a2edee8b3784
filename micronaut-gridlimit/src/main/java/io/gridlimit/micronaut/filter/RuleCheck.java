package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.RouteRule;

/**
 * A matching rule with the key resolved for one request.
 *
 * @param rule the rule
 * @param key the grid key (SPEC §6), valid for {@link io.gridlimit.api.RateLimiter#checkKey}
 */
record RuleCheck(RouteRule rule, String key) {
}
