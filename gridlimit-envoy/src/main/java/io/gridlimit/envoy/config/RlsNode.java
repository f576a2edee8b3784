package io.gridlimit.envoy.config;

import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Map;

/**
 * One descriptor of a domain's tree: a {@code key}, an optional {@code value} (absent: any value; holding {@code *}:
 * a wildcard), an optional rule, and the nested descriptors below it keyed by {@code (key, value)}, with the
 * wildcards among them in declaration order (docs/SPEC.md §12, "Matching"). Immutable.
 *
 * @param key the descriptor key
 * @param value the descriptor value, or null to match any value of the key
 * @param rule the rule applied when a request's descriptor ends here, or null (a placeholder: no limit)
 * @param children the nested descriptors, by {@link #id(String, String)} (wildcards by their pattern too)
 * @param wildcards the nested descriptors whose value is a wildcard, in declaration order (the first that matches
 *                  wins)
 * @param wildcard this descriptor's value as a wildcard, or null when it is matched exactly (or absent)
 * @param share {@code share_threshold: true}: every value this wildcard matches shares one counter (its grid key
 *              holds the pattern for the value); only with a wildcard
 */
public record RlsNode(String key, @Nullable String value, @Nullable RlsRule rule, Map<String, RlsNode> children,
                      List<RlsNode> wildcards, @Nullable RlsWildcard wildcard, boolean share) {
    /**
     * Copies {@code children} and {@code wildcards}.
     *
     * @throws IllegalArgumentException when {@code share} is set without a wildcard
     */
    public RlsNode {
        children = Map.copyOf(children);
        wildcards = List.copyOf(wildcards);
        if (share && wildcard == null) {
            throw new IllegalArgumentException("share_threshold needs a wildcard value");
        }
    }

    /**
     * The identity of a descriptor within its level: key and value, or the key alone. Unlike
     * envoyproxy/ratelimit's {@code key_value} string, the two parts never run into each other.
     *
     * @param key a key
     * @param value a value, or null for "any value"
     * @return the lookup id, never null
     */
    public static String id(String key, @Nullable String value) {
        return value == null ? key.length() + ":" + key : key.length() + ":" + key + "=" + value;
    }
}
