package io.gridlimit.envoy.config;

import java.util.List;
import java.util.Map;

/**
 * One domain of an envoyproxy/ratelimit configuration. Immutable.
 *
 * @param name the domain, as requests name it
 * @param file the file it was read from, as messages show it
 * @param descriptors the top-level descriptors, by {@link RlsNode#id(String, String)}
 * @param wildcards the top-level descriptors whose value is a wildcard, in declaration order
 */
public record RlsDomain(String name, String file, Map<String, RlsNode> descriptors, List<RlsNode> wildcards) {
    /** Copies {@code descriptors} and {@code wildcards}. */
    public RlsDomain {
        descriptors = Map.copyOf(descriptors);
        wildcards = List.copyOf(wildcards);
    }
}
