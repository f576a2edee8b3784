package io.gridlimit.envoy.config;

import java.util.Map;

/**
 * One domain of an envoyproxy/ratelimit configuration. Immutable.
 *
 * @param name the domain, as requests name it
 * @param file the file it was read from, as messages show it
 * @param descriptors the top-level descriptors, by {@link RlsNode#id(String, String)}
 */
public record RlsDomain(String name, String file, Map<String, RlsNode> descriptors) {
    /** Copies {@code descriptors}. */
    public RlsDomain {
        descriptors = Map.copyOf(descriptors);
    }
}
