package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.api.Algorithm;
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
 * list. The counter is the one envoyproxy/ratelimit's cache key (domain, entries, window start) names: the
 * configured rule's state when the rule the descriptor matches is a fixed window of the override's unit counted on
 * the descriptor's own entries (no {@code share_threshold} pattern), else the descriptor's entries under the policy
 * of the domain's overrides of that unit ({@link RlsConfig#overridePolicyName}). Either way overrides of one unit
 * share it whatever their {@code requests_per_unit} (a fixed window keeps its count when its limit changes, SPEC
 * §4), and an override never lifts a rule of its unit that the window has used up beyond the override's own limit.
 * At most seven override policies (and grid maps) per domain, created on their first use. Stateless.
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
     * @param configured what the descriptor matches without its override ({@link RlsConfig#match}), or null
     * @return the override's rule on the descriptor's own entries, decided on the configured rule's state when they
     *     share a counter ({@link RlsMatch#state}), never null
     */
    static RlsMatch match(RlsDomain domain, RateLimitDescriptor d, List<String> keys, List<String> values,
                          @Nullable RlsMatch configured) {
        RateLimitDescriptor.RateLimitOverride override = d.getLimit();
        RlsUnit unit = unit(override);
        long rpu = Integer.toUnsignedLong(override.getRequestsPerUnit());
        String name = RlsConfig.overridePolicyName(domain.name(), unit);
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            path.append(i == 0 ? "" : "/").append(keys.get(i));
        }
        Policy policy = rpu == 0 ? null : fixedWindow(name, rpu, unit);
        Policy state = policy;
        if (policy != null && sharesCounter(configured, unit, values)) {
            state = fixedWindow(configured.rule().policyName(), rpu, unit);
        }
        RlsRule rule = new RlsRule(domain.name(), path + " (limit override)", policy, name, unit, rpu,
                rpu == 0 ? RlsRule.Kind.BLOCKED : RlsRule.Kind.LIMITED, false, false, null, List.of(), List.of());
        return new RlsMatch(rule, keys, values, state);
    }

    private static Policy fixedWindow(String name, long limit, RlsUnit unit) {
        return Policy.builder(name).single(Band.fixedWindow(name, limit, unit.length())).build();
    }

    /**
     * Whether an override of {@code unit} on these values counts on the configured rule's state: envoyproxy/ratelimit
     * keys both by domain, entries and window start, so they meet when the rule is a fixed window of the same unit on
     * the raw values. A rule of another algorithm ({@code rate_limit.gridlimit}, {@code gridlimit} mode only) keeps
     * a state the override's fixed window cannot read, so the override counts on its own.
     */
    private static boolean sharesCounter(@Nullable RlsMatch configured, RlsUnit unit, List<String> values) {
        if (configured == null || configured.rule().kind() != RlsRule.Kind.LIMITED
                || configured.rule().unit() != unit || !configured.keyValues().equals(values)) {
            return false;
        }
        Policy p = configured.rule().policy();
        Band b = p.bands().get(0);
        return !p.isComposite() && b.algorithm() == Algorithm.FIXED_WINDOW
                && b.windowNanos() == unit.length().toNanos();
    }
}
