package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

/**
 * One rule's answer for one request: the grid's decision, the local fallback's ({@code local}), or a failure
 * (timeout or grid error, {@code failed}) with a null decision.
 *
 * @param check the rule and key asked
 * @param decision the decision, or null when {@code failed}
 * @param failed true when the grid did not answer and no local decision stands in
 * @param local true when the decision is the local fallback's
 * @param policy the policy the decision was taken against: the chosen one, or this replica's share of it for a local
 *     decision ({@link io.gridlimit.micronaut.decide.Answer#against()}); the headers are built from it
 */
record RuleResult(RuleCheck check, @Nullable Decision decision, boolean failed, boolean local, Policy policy) {
    /** @return true when this answer stops the rules after it: a failure, or a denial outside shadow mode */
    boolean stops() {
        return failed || (!decision.allowed() && !check.rule().shadow());
    }
}
