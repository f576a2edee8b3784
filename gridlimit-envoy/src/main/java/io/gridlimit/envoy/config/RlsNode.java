package io.gridlimit.envoy.config;

import io.micronaut.core.annotation.Nullable;

import java.util.Map;

/**
 * One descriptor of a domain's tree: a {@code key}, an optional {@code value} (absent: any value), an optional
 * rule, and the nested descriptors below it keyed by {@code (key, value)}. Immutable.
 *
 * @param key the descriptor key
 * @param value the descriptor value, or null to match any value of the key
 * @param rule the rule applied when a request's descriptor ends here, or null (a placeholder: no limit)
 * @param children the nested descriptors, by {@link #id(String, String)}
 */
public record RlsNode(String key, @Nullable String value, @Nullable RlsRule rule, Map<String, RlsNode> children) {
    /** Copies {@code children}. */
    public RlsNode {
        children = Map.copyOf(children);
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
