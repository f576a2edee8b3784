package io.gridlimit.envoy.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * One {@code rate_limit} block of an envoyproxy/ratelimit configuration, mapped onto a GridLimit policy
 * (docs/SPEC.md §12), or a rule kind that needs none: {@code unlimited: true}, or {@code requests_per_unit: 0} (a
 * block list, decided without the grid). Immutable.
 *
 * @param domain the domain it belongs to
 * @param path the descriptor path as messages show it, e.g. {@code message_type=marketing/to_number}
 * @param policy the policy that decides it; null unless {@link Kind#LIMITED}
 * @param policyName the policy's name when limited; for a block list the name its policy would have (it names the
 *                   rule in meters and problems); null when unlimited
 * @param unit the configured unit (the window, or a bucket's refill period); null when unlimited
 * @param requestsPerUnit the configured {@code requests_per_unit}: in [1, 2^32 - 1] when limited, 0 otherwise
 * @param kind limited, unlimited or a block list
 * @param shadow {@code shadow_mode: true}: decided and counted, but never OVER_LIMIT
 * @param quotaMode {@code quota_mode: true}: over its limit, it makes the request OVER_LIMIT only when every
 *                  quota-mode descriptor of the request is over its limit (docs/SPEC.md §12, "Decisions")
 * @param name the optional {@code rate_limit.name} ({@code replaces} refers to it), else null
 * @param replaces the names this rule replaces when both match one request
 * @param statsLevels the descriptor path's levels as envoyproxy/ratelimit's stats name them ({@code key}, or
 *                    {@code key_value} with the value as configured, a wildcard's pattern included); empty for a
 *                    per-request limit override, which has no configured path and no such stats
 */
public record RlsRule(String domain, String path, @Nullable Policy policy, @Nullable String policyName,
                      @Nullable RlsUnit unit, long requestsPerUnit, Kind kind, boolean shadow, boolean quotaMode,
                      @Nullable String name, List<String> replaces, List<String> statsLevels) {
    /** What a rule does with the descriptors it applies to. */
    public enum Kind {
        /** Decided by its policy on the grid. */
        LIMITED,
        /** {@code unlimited: true}: always OK with 2^32 - 1 remaining, never decided. */
        UNLIMITED,
        /** {@code requests_per_unit: 0}: always over its limit, decided without the grid, nothing stored. */
        BLOCKED
    }

    /**
     * Copies {@code replaces}.
     *
     * @throws IllegalArgumentException when the components do not fit the kind (a limited rule needs a policy and
     *     a unit, a block list a unit and a policy name, and only a limited rule has a policy)
     */
    public RlsRule {
        Objects.requireNonNull(domain, "domain");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        replaces = List.copyOf(replaces);
        statsLevels = List.copyOf(statsLevels);
        boolean fits = switch (kind) {
            case LIMITED -> policy != null && unit != null && policy.name().equals(policyName);
            case BLOCKED -> policy == null && unit != null && policyName != null && requestsPerUnit == 0;
            case UNLIMITED -> policy == null && policyName == null;
        };
        if (!fits) {
            throw new IllegalArgumentException("a " + kind + " rule with policy " + policy + ", policy name "
                    + policyName + " and unit " + unit);
        }
    }

    /** @return whether the rule is {@code unlimited: true} */
    public boolean unlimited() {
        return kind == Kind.UNLIMITED;
    }

    /** @return whether the rule is a block list ({@code requests_per_unit: 0}) */
    public boolean blocked() {
        return kind == Kind.BLOCKED;
    }

    /**
     * @return the quota of its policy (capacity or window limit), the largest cost it can ever admit; 0 unless
     *     limited
     */
    public long quota() {
        return policy == null ? 0 : policy.bands().get(0).quota();
    }
}
