package io.gridlimit.app.admin;

import io.gridlimit.api.Policy;
import io.gridlimit.app.api.InvalidCheckException;
import io.gridlimit.app.api.StrictJson;
import io.gridlimit.micronaut.config.PolicyDefinitions;
import io.gridlimit.micronaut.config.sources.PolicyNames;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.http.HttpStatus;
import io.micronaut.json.tree.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads the admin API's request bodies (docs/SPEC.md §11): strict JSON ({@link StrictJson}), and a policy in its
 * YAML shape ({@link #POLICY_SHAPE}) mapped onto configuration's own definition and validated by it
 * ({@link PolicyDefinitions}), so a body is refused with the same messages as the same policy in configuration,
 * its members' paths included ({@code bands.burst.limit}). Shadow mode is configuration's only. Stateless.
 */
final class PolicyBodies {
    /** The shape of a policy body, for messages. */
    static final String POLICY_SHAPE = "{\"algorithm\": \"fixed-window\", \"limit\": 2, \"window\": \"1h\"}, "
            + "or {\"bands\": {\"<band>\": {...}, ...}}";

    private static final Set<String> BAND_FIELDS = PolicyDefinitions.PARAMETERS;
    /** A policy's members: a band's, and its named {@code bands}. */
    private static final Set<String> POLICY_FIELDS = Stream.concat(BAND_FIELDS.stream(), Stream.of("bands"))
            .collect(Collectors.toUnmodifiableSet());

    private PolicyBodies() {
    }

    /**
     * @param body the request body
     * @return its one JSON value, read strictly ({@link StrictJson})
     * @throws AdminProblem 400 for a missing body or one that is not strict JSON
     */
    static JsonNode json(@Nullable byte[] body) {
        if (body == null || body.length == 0) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, StrictJson.NOT_JSON);
        }
        try {
            return StrictJson.parse(body);
        } catch (InvalidCheckException e) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    /**
     * The policy of a body, validated by configuration's own mapping (the same messages).
     *
     * @param name the policy name, already checked
     * @param body the request body: the policy in its YAML shape, as JSON
     * @return the policy
     * @throws AdminProblem 400 naming every bad member, as configuration would
     */
    static Policy policy(String name, @Nullable byte[] body) {
        JsonNode root = json(body);
        List<String> errors = new ArrayList<>();
        if (!root.isObject()) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "the body must be a JSON object: " + POLICY_SHAPE);
        }
        PolicyDefinitions.Definition d = definition("", root, POLICY_FIELDS, errors);
        Policy policy = errors.isEmpty() ? PolicyDefinitions.policy("", name, d, (path, typed) -> raw(root, path,
                typed), errors) : null;
        if (policy == null || !errors.isEmpty()) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, String.join("; ", errors));
        }
        return policy;
    }

    private static PolicyDefinitions.Definition definition(String path, JsonNode node, Set<String> fields,
                                                           List<String> errors) {
        for (Map.Entry<String, JsonNode> e : node.entries()) {
            if (!fields.contains(e.getKey())) {
                errors.add(at(path, e.getKey()) + ": unknown property (known: " + String.join(", ", fields.stream()
                        .sorted().toList()) + ")" + (e.getKey().equals("shadow")
                        ? "; shadow mode is set in configuration (gridlimit.policies.<name>.shadow)" : ""));
            }
        }
        Map<String, PolicyDefinitions.Definition> bands = null;
        JsonNode b = node.get("bands");
        if (b != null) {
            if (!b.isObject() || b.size() == 0) {
                errors.add(at(path, "bands") + ": must be a non-empty object of named bands");
            } else {
                bands = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> band : b.entries()) {
                    String bandPath = at(path, "bands." + band.getKey());
                    String nameError = PolicyNames.nameError(bandPath, band.getKey());
                    if (nameError != null) {
                        errors.add(nameError);
                    } else if (!band.getValue().isObject()) {
                        errors.add(bandPath + ": is not an object of settings");
                    } else {
                        bands.put(band.getKey(), definition(bandPath, band.getValue(), BAND_FIELDS, errors));
                    }
                }
            }
        }
        return new PolicyDefinitions.Definition(text(path, node, "algorithm", errors),
                whole(path, node, "capacity", errors), whole(path, node, "refill-tokens", errors),
                duration(path, node, "refill-period", errors), whole(path, node, "limit", errors),
                duration(path, node, "window", errors), bands, whole(path, node, "max-debt", errors),
                text(path, node, "period", errors), text(path, node, "zone", errors),
                text(path, node, "week-start", errors), whole(path, node, "anchor", errors));
    }

    private static String at(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static @Nullable String text(String path, JsonNode node, String field, List<String> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isString()) {
            errors.add(at(path, field) + ": '" + v + "' is not a text");
            return null;
        }
        return v.getStringValue();
    }

    private static @Nullable Long whole(String path, JsonNode node, String field, List<String> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber() || !(v.getNumberValue() instanceof Long || v.getNumberValue() instanceof Integer)) {
            errors.add(at(path, field) + ": '" + shown(v) + "' is not a whole number");
            return null;
        }
        return v.getLongValue();
    }

    private static @Nullable Duration duration(String path, JsonNode node, String field, List<String> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        Optional<Duration> d = v.isString()
                ? ConversionService.SHARED.convert(v.getStringValue().trim(), Duration.class) : Optional.empty();
        if (d.isEmpty()) {
            errors.add(at(path, field) + ": '" + shown(v) + "' is not a duration (e.g. 100ms, 10s, 5m, 1h, 1d or "
                    + "PT10S)");
            return null;
        }
        return d.orElseThrow();
    }

    private static String shown(JsonNode v) {
        return v.isString() ? v.getStringValue() : String.valueOf(v.getValue());
    }

    /** The value as written at a path of the body, for configuration's messages. */
    private static String raw(JsonNode root, String path, @Nullable Object typed) {
        JsonNode n = root;
        for (String part : path.split("\\.")) { // band names hold no '.'
            n = n == null ? null : n.get(part);
        }
        return n == null ? String.valueOf(typed) : shown(n);
    }
}
