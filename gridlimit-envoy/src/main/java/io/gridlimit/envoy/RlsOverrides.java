package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsDomain;
import io.gridlimit.envoy.config.RlsMatch;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.envoy.config.RlsUnit;
import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * Per-request limit overrides ({@code RateLimitDescriptor.limit}, from Envoy's {@code limit} action), applied as
 * envoyproxy/ratelimit applies them (docs/SPEC.md §12, "Overrides"): in a known domain the override replaces the
 * rule the descriptor would match (whichever, even none, unlimited or a block list): a fixed window of its
 * {@code requests_per_unit} per its unit, never in shadow mode, without a name or {@code replaces}; 0 is a block
 * list. The counter is the descriptor's entries under the policy of the domain's overrides of that unit
 * ({@link RlsConfig#overridePolicyName}): overrides of one unit share it whatever their {@code requests_per_unit}
 * (a fixed window keeps its count when its limit changes, SPEC §4), as envoyproxy/ratelimit's cache key does. At
 * most seven such policies (and grid maps) per domain, created on their first use. Stateless.
 */
final class RlsOverrides {
    private RlsOverrides() {
    }

    /**
     * @param override a descriptor's override
     * @return why it is refused, naming the field ({@code descriptors[i].limit.unit}), or null; the unit must be one
     *     of the seven ({@code UNKNOWN} and values this proto does not know are refused, where envoyproxy/ratelimit
     *     would fail the call)
     */
    static @Nullable String invalid(RateLimitDescriptor.RateLimitOverride override) {
        return unit(override) == null ? "limit.unit must be SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR, got "
                + override.getUnitValue() : null;
    }

    /**
     * The override's unit by its number, as envoyproxy/ratelimit casts it onto the response's unit: the two enums
     * share their numbers, and the response's knows {@code WEEK} (7), which a newer Envoy may send.
     */
    private static @Nullable RlsUnit unit(RateLimitDescriptor.RateLimitOverride override) {
        RateLimitResponse.RateLimit.Unit u = RateLimitResponse.RateLimit.Unit.forNumber(override.getUnitValue());
        return u == null || u == RateLimitResponse.RateLimit.Unit.UNKNOWN ? null : RlsUnit.parse(u.name());
    }

    /**
     * The rule of a descriptor with an override.
     *
     * @param domain the request's domain
     * @param d a checked descriptor ({@link #invalid} found nothing), with an override
     * @param keys its entry keys
     * @param values its entry values
     * @return the override's rule on the descriptor's own entries, never null
     */
    static RlsMatch match(RlsDomain domain, RateLimitDescriptor d, List<String> keys, List<String> values) {
        RateLimitDescriptor.RateLimitOverride override = d.getLimit();
        RlsUnit unit = unit(override);
        long rpu = Integer.toUnsignedLong(override.getRequestsPerUnit());
        String name = RlsConfig.overridePolicyName(domain.name(), unit);
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            path.append(i == 0 ? "" : "/").append(keys.get(i));
        }
        Policy policy = rpu == 0 ? null : Policy.builder(name).single(Band.fixedWindow(name, rpu, unit.length()))
                .build();
        RlsRule rule = new RlsRule(domain.name(), path + " (limit override)", policy, name, unit, rpu,
                rpu == 0 ? RlsRule.Kind.BLOCKED : RlsRule.Kind.LIMITED, false, false, null, List.of(), List.of());
        return new RlsMatch(rule, keys, values);
    }
}
