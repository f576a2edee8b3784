package io.gridlimit.envoy.config;

import java.util.List;

/**
 * The rule a request's descriptor selects and the entries its grid key is made of (docs/SPEC.md §12, "Matching"):
 * the descriptor's own, except that an entry matched through a {@code share_threshold} wildcard holds the pattern
 * for its value, so every value the wildcard matches shares one counter. Immutable.
 *
 * @param rule the rule
 * @param keys the descriptor's entry keys
 * @param keyValues the values its grid key is made of, as many as {@code keys}
 */
public record RlsMatch(RlsRule rule, List<String> keys, List<String> keyValues) {
    /** Copies the lists. */
    public RlsMatch {
        keys = List.copyOf(keys);
        keyValues = List.copyOf(keyValues);
    }

    /** @return the grid key ({@link RlsConfig#gridKey}), computed on each call */
    public String gridKey() {
        return RlsConfig.gridKey(keys, keyValues);
    }
}
