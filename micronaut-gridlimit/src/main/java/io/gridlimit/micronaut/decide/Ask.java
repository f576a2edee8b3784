package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Policy;

/**
 * One rule of one request, as every door asks it of the {@link Decider}: the filter's matching route rule, a
 * decision-API check, an Envoy descriptor (docs/SPEC.md §4, §5, §12).
 *
 * @param policy the policy chosen for this request (the rule's, or its plan's, override's or the catalog's current
 *     one, docs/SPEC.md §11): it names the meters and the headers, and decides under the local fallback
 * @param state what the grid is asked: {@code policy}'s parameters under the name of the policy whose state the key
 *     lives in, so that a change of plan or override is carried over like a policy change (SPEC §4); equal to
 *     {@code policy} when nothing was chosen over the rule's own policy
 * @param key the grid key (SPEC §6), valid for {@link io.gridlimit.api.RateLimiter#checkKey}
 * @param cost what the rule consumes when admitted, in [1, 10^15] ({@link io.gridlimit.api.RateLimiter#MAX_COST})
 */
public record Ask(Policy policy, Policy state, String key, long cost) {
    /**
     * A rule decided by its own policy.
     *
     * @param policy the policy, which is also the one whose state the key lives in
     * @param key the grid key
     * @param cost the cost, in [1, 10^15]
     */
    public Ask(Policy policy, String key, long cost) {
        this(policy, policy, key, cost);
    }
}
