package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.decide.Ask;

/**
 * A matching rule with what it asks for one request.
 *
 * @param rule the rule
 * @param ask what the decider is asked: the key (SPEC §6), the policy chosen for this request (the rule's, or its
 *     plan's, override's or the catalog's current one, docs/SPEC.md §11, resolved once by
 *     {@link io.gridlimit.micronaut.catalog.PolicySource#ask(RouteRule, String, io.micronaut.http.HttpRequest)}; its
 *     name is in the headers and meters) on the state of the rule's own policy, and the rule's cost
 */
record RuleCheck(RouteRule rule, Ask ask) {
    /** @return the grid key */
    String key() {
        return ask.key();
    }

    /** @return the policy chosen for this request */
    io.gridlimit.api.Policy policy() {
        return ask.policy();
    }
}
