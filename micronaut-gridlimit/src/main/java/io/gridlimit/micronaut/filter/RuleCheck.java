package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.RouteRule;

/**
 * A matching rule with the key and the policy resolved for one request.
 *
 * @param rule the rule
 * @param key the grid key (SPEC §6), valid for {@link io.gridlimit.api.RateLimiter#checkKey}
 * @param policy the policy that decides it: the rule's, or its plan's, override's or the catalog's current one
 *     (docs/SPEC.md §11, {@link io.gridlimit.micronaut.catalog.PolicySource}); its name is in the headers and meters
 * @param grid what is sent to the grid: {@code policy}'s parameters under the rule's own policy name, so that the
 *     key's state stays in one map whatever plan or override chose the parameters, and a change of plan or override
 *     is carried over like a policy change (SPEC §4), never starting the key fresh
 */
record RuleCheck(RouteRule rule, String key, io.gridlimit.api.Policy policy, io.gridlimit.api.Policy grid) {
    /** A check decided by the rule's own policy. */
    RuleCheck(RouteRule rule, String key) {
        this(rule, key, rule.policy(), rule.policy());
    }
}
