package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.micronaut.core.annotation.Nullable;

/**
 * One rule's answer for one request: the grid's decision, the local fallback's ({@code local}), or a failure
 * (timeout or grid error, {@code failed}) with a null decision.
 *
 * @param check the rule and key asked
 * @param decision the decision, or null when {@code failed}
 * @param failed true when the grid did not answer and no local decision stands in
 * @param local true when the decision is {@link LocalFallback}'s
 */
record RuleResult(RuleCheck check, @Nullable Decision decision, boolean failed, boolean local) {
    /**
     * @param fallback the local fallback, for its share of the policy
     * @return the policy the decision was taken against: this replica's share for a local decision
     */
    Policy policy(LocalFallback fallback) {
        Policy configured = check.policy();
        if (local) {
            Policy share = fallback.derived(configured.name());
            return share == null ? configured : share;
        }
        return configured;
    }

    /** @return true when this answer stops the rules after it: a failure, or a denial outside shadow mode */
    boolean stops() {
        return failed || (!decision.allowed() && !check.rule().shadow());
    }
}
