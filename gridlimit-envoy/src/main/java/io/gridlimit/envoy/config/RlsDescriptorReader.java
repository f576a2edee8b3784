package io.gridlimit.envoy.config;

import io.gridlimit.envoy.config.RlsDrafts.Draft;
import io.gridlimit.envoy.config.RlsDrafts.Segment;
import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gridlimit.envoy.config.RlsDrafts.display;

/**
 * Validates one domain's tree of descriptors, level by level (docs/SPEC.md §12, "Configuration, read unchanged"),
 * into {@link Draft}s whose {@code rate_limit} blocks {@link RlsRuleReader} reads. Every problem is recorded in the
 * reader's error list (a {@code value: ~}, read as unset, in its warnings) with the file, domain and descriptor
 * path; nothing throws. Not thread-safe: one instance per
 * {@link RlsConfigReader}.
 */
final class RlsDescriptorReader {
    private static final Set<String> DESCRIPTOR_FIELDS = Set.of("key", "value", "rate_limit", "descriptors",
            "shadow_mode", "detailed_metric", "value_to_metric", "share_threshold", "quota_mode", "metadata");

    private final RlsFields fields;
    private final List<String> errors;
    private final RlsRuleReader rules;

    /**
     * @param fields the field reader, recording into {@code errors}
     * @param errors the reader's error list
     * @param rules the reader of each descriptor's {@code rate_limit}, recording into {@code errors}
     */
    RlsDescriptorReader(RlsFields fields, List<String> errors, RlsRuleReader rules) {
        this.fields = fields;
        this.errors = errors;
        this.rules = rules;
    }

    /**
     * Reads one descriptor list (docs/SPEC.md §12, "Configuration, read unchanged"), and below it every nested
     * list: each item a map of {@code key} (required, non-empty, no {@code *}), {@code value} (optional; empty is
     * absent: any value; holding {@code *}, a wildcard), {@code rate_limit}, {@code descriptors},
     * {@code shadow_mode} (only with a {@code rate_limit}), {@code share_threshold} (only on a wildcard value),
     * {@code quota_mode}, {@code detailed_metric} and {@code value_to_metric} (booleans; the last two only name
     * envoyproxy/ratelimit's stats, without effect here), {@code metadata} (a map, not used: no dynamic
     * metadata); no two items of the list with the same key and value. Messages name the descriptor as
     * {@code <context>, descriptor k=v/user (descriptors[0]…): …}.
     *
     * @param context the file and domain, as messages show them ({@code <file>: domain 'd'})
     * @param domain the domain
     * @param list the parsed list, or null when absent (absent, empty or refused: no descriptors)
     * @param listPath the list's place in the file, e.g. {@code descriptors[0].descriptors}
     * @param parents the path of the descriptor holding the list, empty at the top level
     * @return the descriptors read, by {@link RlsNode#id(String, String)}, in declaration order, never null; an
     *         item that is not a map, has no key or repeats another's key and value is left out (and recorded);
     *         one whose {@code rate_limit} is refused stays, without a rule
     */
    Map<String, Draft> level(String context, String domain, @Nullable Object list, String listPath,
                             List<Segment> parents) {
        Map<String, Draft> out = new LinkedHashMap<>();
        if (list == null || (list instanceof String s && s.isEmpty()) || fields.yamlNull(context, listPath, list, "no descriptors")) {
            return out;
        }
        if (!(list instanceof List<?> items)) {
            errors.add(context + ", " + listPath + ": is not a list of descriptors");
            return out;
        }
        for (int i = 0; i < items.size(); i++) {
            String at = listPath + "[" + i + "]";
            if (!(items.get(i) instanceof Map<?, ?> d)) {
                errors.add(context + ", " + at + ": is not a map (key, value, rate_limit, descriptors)");
                continue;
            }
            String key = fields.scalar(context + ", " + at, "key", d.get("key"));
            // value: ~ is read as envoyproxy/ratelimit reads it (unset: any value), with a warning below
            RlsYaml.YamlNull nullValue = d.get("value") instanceof RlsYaml.YamlNull n ? n : null;
            String value = nullValue != null ? null : fields.scalar(context + ", " + at, "value", d.get("value"));
            if (value != null && value.isEmpty()) {
                value = null;
            }
            Segment segment = new Segment(key == null ? "?" : key, value);
            List<Segment> path = new ArrayList<>(parents);
            path.add(segment);
            String here = context + ", descriptor " + display(path) + " (" + at + ")";
            fields.unknown(here + ": ", d, DESCRIPTOR_FIELDS, "");
            if (nullValue != null && key != null && !key.isEmpty()) {
                fields.warn(here + ": value: '" + nullValue.text() + "' is YAML's null, read as envoyproxy/ratelimit "
                        + "reads it: unset, so this descriptor matches every value of key '" + key + "' (quote it, '"
                        + nullValue.text() + "', to mean the text)");
            }
            if (key == null || key.isEmpty()) {
                errors.add(here + ": key is missing or empty");
                continue;
            }
            if (key.contains("*")) {
                errors.add(here + ": key '" + key + "' holds a '*': envoyproxy/ratelimit reads it as a wildcard over "
                        + "its key_value text, GridLimit matches keys exactly (wildcards are served in values); write "
                        + "the key out");
            }
            boolean share = Boolean.TRUE.equals(fields.bool(here, "share_threshold", d.get("share_threshold")));
            if (share && (value == null || !value.contains("*"))) {
                errors.add(here + ": share_threshold: true applies to wildcard values only (a value holding '*'), "
                        + "as envoyproxy/ratelimit requires; remove it, or write the wildcard");
                share = false;
            }
            // detailed_metric and value_to_metric only name envoyproxy/ratelimit's stats series, which GridLimit
            // does not build (its meters are per policy): read, checked, without effect on decisions
            fields.bool(here, "detailed_metric", d.get("detailed_metric"));
            fields.bool(here, "value_to_metric", d.get("value_to_metric"));
            boolean quotaMode = Boolean.TRUE.equals(fields.bool(here, "quota_mode", d.get("quota_mode")));
            Object metadata = d.get("metadata");
            // envoyproxy/ratelimit returns metadata as dynamic metadata only when RESPONSE_DYNAMIC_METADATA is
            // set; GridLimit sends none: a map is accepted (its contents are free), anything else refused as there
            if (metadata != null && !fields.yamlNull(here, "metadata", metadata, "no metadata") && !(metadata instanceof Map<?, ?>)) {
                errors.add(here + ": metadata is not a map; write a map (GridLimit sends no dynamic metadata: it is "
                        + "accepted and not used)");
            }
            boolean shadow = Boolean.TRUE.equals(fields.bool(here, "shadow_mode", d.get("shadow_mode")));
            Object rule = null;
            if (d.get("rate_limit") != null) {
                rule = rules.rule(here, domain, path, d.get("rate_limit"), shadow, quotaMode);
            } else if (shadow) {
                // envoyproxy/ratelimit loads it: shadow_mode belongs to a rate limit, and there is none
                fields.warn(here + ": shadow_mode: true without a rate_limit shadows nothing, as envoyproxy/ratelimit "
                        + "reads it: move it beside the rate_limit it is meant for");
            }
            Map<String, Draft> children = level(context, domain, d.get("descriptors"), at + ".descriptors", path);
            String id = RlsNode.id(key, value);
            if (out.containsKey(id)) {
                errors.add(here + ": another descriptor of this level has the same key and value");
                rules.forget(rule);
                continue;
            }
            out.put(id, new Draft(key, value, rule, children, share));
        }
        return out;
    }
}
