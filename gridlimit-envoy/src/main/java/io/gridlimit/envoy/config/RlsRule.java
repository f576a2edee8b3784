package io.gridlimit.envoy.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * One {@code rate_limit} block of an envoyproxy/ratelimit configuration, mapped onto a GridLimit policy
 * (docs/SPEC.md §12). Immutable.
 *
 * @param domain the domain it belongs to
 * @param path the descriptor path as messages show it, e.g. {@code message_type=marketing/to_number}
 * @param policy the policy that decides it; null when {@link #unlimited()}
 * @param unit the configured unit (the window, or a bucket's refill period); null when unlimited
 * @param requestsPerUnit the configured {@code requests_per_unit}, in [1, 2^32 - 1]; 0 when unlimited
 * @param unlimited {@code unlimited: true}: always OK, never decided
 * @param shadow {@code shadow_mode: true}: decided and counted, but never OVER_LIMIT
 * @param name the optional {@code rate_limit.name} ({@code replaces} refers to it), else null
 * @param replaces the names this rule replaces when both match one request
 */
public record RlsRule(String domain, String path, @Nullable Policy policy, @Nullable RlsUnit unit,
                      long requestsPerUnit, boolean unlimited, boolean shadow, @Nullable String name,
                      List<String> replaces) {
    /** Copies {@code replaces}. */
    public RlsRule {
        Objects.requireNonNull(domain, "domain");
        Objects.requireNonNull(path, "path");
        replaces = List.copyOf(replaces);
        if (!unlimited && (policy == null || unit == null)) {
            throw new IllegalArgumentException("a limited rule needs a policy and a unit");
        }
    }

    /** @return the quota of its policy (capacity or window limit), the largest cost it can ever admit */
    public long quota() {
        return policy == null ? 0 : policy.bands().get(0).quota();
    }
}
