package io.gridlimit.envoy.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * The rule a request's descriptor selects and the entries its grid key is made of (docs/SPEC.md §12, "Matching"):
 * the descriptor's own, except that an entry matched through a {@code share_threshold} wildcard holds the pattern
 * for its value, so every value the wildcard matches shares one counter. Immutable.
 *
 * @param rule the rule
 * @param keys the descriptor's entry keys
 * @param keyValues the values its grid key is made of, as many as {@code keys}
 * @param state what the grid is asked ({@code io.gridlimit.micronaut.decide.Ask#state}): the rule's policy, or for a
 *     per-request limit override that shares the configured rule's counter (SPEC §12, "Overrides") the override's
 *     parameters under the configured rule's policy name; null exactly when the rule has no policy
 */
public record RlsMatch(RlsRule rule, List<String> keys, List<String> keyValues, @Nullable Policy state) {
    /**
     * Copies the lists.
     *
     * @throws IllegalArgumentException when {@code state} is null for a rule with a policy or set for one without,
     *     or has other parameters than the rule's policy
     */
    public RlsMatch {
        keys = List.copyOf(keys);
        keyValues = List.copyOf(keyValues);
        Policy p = rule.policy();
        if ((p == null) != (state == null) || p != null && state != p && !p.bands().get(0).withName(state.name())
                .equals(state.bands().get(0))) {
            throw new IllegalArgumentException("state " + state + " for the policy " + p);
        }
    }

    /**
     * A rule decided on its own policy's state.
     *
     * @param rule the rule
     * @param keys the descriptor's entry keys
     * @param keyValues the values its grid key is made of
     */
    public RlsMatch(RlsRule rule, List<String> keys, List<String> keyValues) {
        this(rule, keys, keyValues, rule.policy());
    }

    /** @return the grid key ({@link RlsConfig#gridKey}), computed on each call */
    public String gridKey() {
        return RlsConfig.gridKey(keys, keyValues);
    }
}
