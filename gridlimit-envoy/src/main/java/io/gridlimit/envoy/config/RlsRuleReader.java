package io.gridlimit.envoy.config;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.envoy.config.RlsDrafts.Pending;
import io.gridlimit.envoy.config.RlsDrafts.Segment;
import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gridlimit.envoy.config.RlsConfigReader.MAX_REQUESTS_PER_UNIT;
import static io.gridlimit.envoy.config.RlsDrafts.display;

/**
 * Validates one {@code rate_limit} block of a descriptor and maps it onto a single GridLimit band (docs/SPEC.md
 * §12, "Mapping onto policies"): by default a fixed window of {@code requests_per_unit} per unit, or the algorithm
 * the {@code gridlimit} extension names. Every problem of the block is recorded in the reader's error list with
 * the file, domain and descriptor path; nothing throws. Not thread-safe: one instance per {@link RlsConfigReader}.
 */
final class RlsRuleReader {
    private static final Set<String> RATE_LIMIT_FIELDS = Set.of("unit", "requests_per_unit", "unlimited", "name",
            "replaces", "gridlimit");
    private static final Set<String> EXTENSION_FIELDS = Set.of("algorithm", "capacity");

    private final RlsFields fields;
    private final List<String> errors;
    private final List<Pending> pending;

    /**
     * @param fields the field reader, recording into {@code errors}
     * @param errors the reader's error list
     * @param pending the reader's limited rules awaiting their policy names, in declaration order; each rule read
     *                is added to it
     */
    RlsRuleReader(RlsFields fields, List<String> errors, List<Pending> pending) {
        this.fields = fields;
        this.errors = errors;
        this.pending = pending;
    }

    /**
     * Reads one {@code rate_limit} block (docs/SPEC.md §12, "Configuration, read unchanged" and "Mapping onto
     * policies"): {@code unit} and {@code requests_per_unit} in [0, {@value RlsConfigReader#MAX_REQUESTS_PER_UNIT}]
     * (0 is a block list: a rule without a policy, decided without the grid), or {@code unlimited: true} (beside
     * it a {@code requests_per_unit}, or a {@code unit} that names no unit, is ignored with a boot warning, as
     * envoyproxy/ratelimit ignores it; a real unit is refused, as there); optional {@code name} (empty is none) and
     * {@code replaces}; optional {@code gridlimit: {algorithm, capacity}}, any §3 algorithm but {@code calendar}
     * (default the fixed window), {@code capacity} for {@code token-bucket} and {@code gcra} only (default
     * {@code requests_per_unit}). The band spans one unit ({@link RlsUnit#length()}); a limited rule is added to
     * the pending rules that {@link RlsDomainBuilder#names} names once every rule is read.
     *
     * @param here the file, domain and descriptor, as messages show them
     * @param domain the domain of the descriptor
     * @param path the descriptor's path, from the top level down (copied)
     * @param block the parsed {@code rate_limit} value, not null
     * @param shadow the descriptor's {@code shadow_mode}
     * @param quotaMode the descriptor's {@code quota_mode}
     * @return an unlimited {@link RlsRule}, a {@link Pending} limited or block-list rule (named later), or null when
     *         refused
     *         (then every problem of the block is recorded)
     */
    @Nullable Object rule(String here, String domain, List<Segment> path, Object block, boolean shadow,
                          boolean quotaMode) {
        if (fields.yamlNull(here, "rate_limit", block, "no rate_limit, so the descriptor is not limited")) {
            return null;
        }
        if (!(block instanceof Map<?, ?> r)) {
            errors.add(here + ": rate_limit is not a map (unit, requests_per_unit)");
            return null;
        }
        fields.unknown(here + ": ", r, RATE_LIMIT_FIELDS, "rate_limit.");
        String name = fields.scalar(here, "rate_limit.name", r.get("name"));
        if (name != null && name.isEmpty()) {
            name = null;
        }
        List<String> replaces = replaces(here, r.get("replaces"), name);
        int before = errors.size();
        if (Boolean.TRUE.equals(fields.bool(here, "rate_limit.unlimited", r.get("unlimited")))) {
            // envoyproxy/ratelimit's resolution: a unit beside unlimited is refused, unless it is no unit at all
            // (then ignored); requests_per_unit beside it is ignored. GridLimit's extension has nothing to extend.
            String unitText = r.containsKey("unit") ? fields.scalar(here, "rate_limit.unit", r.get("unit")) : null;
            if (unitText != null && RlsUnit.parse(unitText) != null) {
                errors.add(here + ": rate_limit.unlimited: true takes no unit");
            } else if (unitText != null) {
                fields.warn(here + ": rate_limit.unit '" + unitText + "' beside unlimited: true is not a unit and is "
                        + "ignored, as envoyproxy/ratelimit ignores it: the descriptor is unlimited");
            }
            if (r.containsKey("requests_per_unit")) {
                Long ignored = fields.integer(here, "rate_limit.requests_per_unit", r.get("requests_per_unit"));
                if (ignored != null) {
                    fields.warn(here + ": rate_limit.requests_per_unit " + ignored + " beside unlimited: true is "
                            + "ignored, as envoyproxy/ratelimit ignores it: the descriptor is unlimited");
                }
            }
            if (r.containsKey("gridlimit")) {
                errors.add(here + ": rate_limit.unlimited: true takes no gridlimit");
            }
            return errors.size() > before ? null
                    : new RlsRule(domain, display(path), null, null, null, 0, RlsRule.Kind.UNLIMITED, shadow,
                    quotaMode, name, replaces, RlsDrafts.statsLevels(path));
        }
        String unitText = fields.scalar(here, "rate_limit.unit", r.get("unit"));
        RlsUnit unit = unitText == null ? null : RlsUnit.parse(unitText);
        if (unit == null) {
            errors.add(here + ": rate_limit.unit: " + (unitText == null ? "is missing" : "'" + unitText
                    + "' is not a unit") + " (second, minute, hour, day, week, month or year)");
        }
        Long rpu = fields.integer(here, "rate_limit.requests_per_unit", r.get("requests_per_unit"));
        if (rpu == null && !r.containsKey("requests_per_unit")) {
            // Go's zero value, as envoyproxy/ratelimit reads it: a block list (denies, never lets through)
            fields.warn(here + ": rate_limit.requests_per_unit is missing, read as envoyproxy/ratelimit reads it: 0, "
                    + "a block list, so every request it matches is OVER_LIMIT");
            rpu = 0L;
        }
        if (rpu != null && rpu > MAX_REQUESTS_PER_UNIT) {
            errors.add(here + ": rate_limit.requests_per_unit: '" + String.valueOf(r.get("requests_per_unit")).trim()
                    + "' is outside [0, " + MAX_REQUESTS_PER_UNIT + "]");
            rpu = null;
        } else if (rpu != null && rpu == 0 && r.containsKey("gridlimit")) {
            errors.add(here + ": rate_limit.gridlimit: a block list (requests_per_unit: 0) is decided without an "
                    + "algorithm; remove the extension");
            rpu = null;
        }
        Algorithm algorithm = Algorithm.FIXED_WINDOW;
        Long capacity = null;
        Object ext = r.get("gridlimit");
        if (ext != null && !fields.yamlNull(here, "rate_limit.gridlimit", ext, "")) {
            if (!(ext instanceof Map<?, ?> e)) {
                errors.add(here + ": rate_limit.gridlimit is not a map (algorithm, capacity)");
            } else {
                fields.unknown(here + ": ", e, EXTENSION_FIELDS, "rate_limit.gridlimit.");
                String a = fields.scalar(here, "rate_limit.gridlimit.algorithm", e.get("algorithm"));
                if (a == null) {
                    errors.add(here + ": rate_limit.gridlimit.algorithm is missing");
                } else {
                    try {
                        algorithm = Algorithm.fromConfigName(a);
                    } catch (IllegalArgumentException x) {
                        errors.add(here + ": rate_limit.gridlimit.algorithm: " + x.getMessage());
                    }
                    if (algorithm == Algorithm.CALENDAR) {
                        errors.add(here + ": rate_limit.gridlimit.algorithm: 'calendar' is not served to Envoy: a "
                                + "rule's unit is a fixed length (docs/SPEC.md §12); limit calendar quotas in a "
                                + "service's configuration (gridlimit.policies, docs/SPEC.md §14)");
                        algorithm = Algorithm.FIXED_WINDOW;
                    }
                }
                if (e.containsKey("capacity")) {
                    capacity = fields.integer(here, "rate_limit.gridlimit.capacity", e.get("capacity"));
                    if (!algorithm.isBucket()) {
                        errors.add(here + ": rate_limit.gridlimit.capacity is for token-bucket and gcra only; "
                                + algorithm.configName() + " takes requests_per_unit per unit");
                    } else if (capacity != null && (capacity < 1 || capacity > MAX_REQUESTS_PER_UNIT)) {
                        errors.add(here + ": rate_limit.gridlimit.capacity: '" + String.valueOf(e.get("capacity"))
                                .trim() + "' is outside [1, "
                                + MAX_REQUESTS_PER_UNIT + "]");
                    }
                }
            }
        }
        if (errors.size() > before || unit == null || rpu == null) {
            return null;
        }
        if (rpu == 0) {
            // a block list: no policy (SPEC §1), named with the others so meters and problems can name it
            Pending p = new Pending(domain, List.copyOf(path), null, unit, 0, shadow, quotaMode, name, replaces);
            pending.add(p);
            return p;
        }
        String placeholder = "x";
        Band band;
        try {
            // requests_per_unit per unit: a window's limit per window, a bucket's refill per period (its capacity
            // the extension's, else requests_per_unit); calendar was refused above
            band = Band.of(placeholder, algorithm, capacity == null ? rpu : capacity, rpu, unit.length(), rpu,
                    unit.length(), null);
        } catch (IllegalArgumentException x) {
            errors.add(here + ": rate_limit: " + x.getMessage());
            return null;
        }
        Pending p = new Pending(domain, List.copyOf(path), band, unit, rpu, shadow, quotaMode, name, replaces);
        pending.add(p);
        return p; // the rule is built once every policy name is known (RlsDomainBuilder.names)
    }

    /**
     * Reads {@code rate_limit.replaces}: a list of {@code {name: <name>}} maps (absent, empty or refused: none).
     * Names no rule of the domain has, and cycles, are warned of once every file is read
     * ({@link RlsReplaces#check}).
     *
     * @param here the file, domain and descriptor, as messages show them
     * @param value the parsed {@code replaces} value, or null when absent
     * @param own the rule's own {@code name}, or null; a rule cannot replace itself
     * @return the names in order, never null; a refused entry is left out (and recorded)
     */
    private List<String> replaces(String here, @Nullable Object value, @Nullable String own) {
        List<String> out = new ArrayList<>();
        if (value == null || (value instanceof String s && s.isEmpty())
                || fields.yamlNull(here, "rate_limit.replaces", value, "replaces nothing")) {
            return out;
        }
        if (!(value instanceof List<?> list)) {
            errors.add(here + ": rate_limit.replaces is not a list of {name: …}");
            return out;
        }
        for (int i = 0; i < list.size(); i++) {
            String at = "rate_limit.replaces[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                errors.add(here + ": " + at + " is not a map with a name");
                continue;
            }
            fields.unknown(here + ": ", m, Set.of("name"), at + ".");
            String n = fields.scalar(here, at + ".name", m.get("name"));
            if (n == null || n.isEmpty()) {
                errors.add(here + ": " + at + ".name is missing or empty");
            } else if (n.equals(own)) {
                errors.add(here + ": " + at + ".name '" + n + "' is this rule's own name");
            } else {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Drops a rule read for a descriptor that is then refused as a duplicate of its level, so that it is never
     * named (docs/SPEC.md §12: "No two descriptors of one level share key and value").
     *
     * @param rule what {@link #rule} returned for it: a {@link Pending}, an unlimited {@link RlsRule} or null
     *             (nothing to drop)
     */
    void forget(@Nullable Object rule) {
        pending.removeIf(p -> p == rule); // by identity: an equal rule may be the kept one
    }
}
