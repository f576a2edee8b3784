package io.gridlimit.app.api;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.json.tree.JsonNode;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads and validates decision API request bodies (JSON trees) into checks, before anything is decided.
 *
 * <p>Request shapes: a check is {@code {"policy": string, "key": string, "cost": integer}} with {@code cost}
 * optional (default 1); a batch is {@code {"checks": [check, ...]}} with 1 to {@code maxChecks} checks. Unknown
 * members are ignored. Rules (SPEC §1, §6): policy a configured policy name (else 404); key as
 * {@link RateLimiter#checkKey} accepts it (non-empty, at most 1024 UTF-8 bytes, no lone UTF-16 surrogate), used as
 * given; cost an integer in [1, 10^15] written as a JSON integer literal (no fraction, no
 * exponent: {@code 1.0} and {@code 1e3} are refused; the tree comes from {@link StrictJson}, which keeps that kind). Messages name the member, prefixed by its batch
 * index ({@code checks[3].key}); they quote bad policy names and costs but never a key.
 */
final class CheckRequests {
    /** A validated check, ready to decide. */
    record Check(Policy policy, String key, long cost) {
    }

    static final String CHECK_SHAPE = "{\"policy\": string, \"key\": string, \"cost\": integer}";
    private static final Pattern POLICY_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final String COST_RANGE = "an integer in [1, " + RateLimiter.MAX_COST + "]";

    private CheckRequests() {
    }

    /**
     * Validates a single check body.
     *
     * @param root the parsed body, or null when there was none
     * @param registry the configured policies
     * @return the check, never null
     * @throws InvalidCheckException 400 for a malformed check, 404 for an unknown policy
     */
    static Check single(@Nullable JsonNode root, PolicyRegistry registry) throws InvalidCheckException {
        if (root == null || !root.isObject()) {
            throw badRequest("the request body must be a JSON object " + CHECK_SHAPE);
        }
        return check(root, "", registry);
    }

    /**
     * Validates a whole batch body: every check is validated before any is decided.
     *
     * @param root the parsed body, or null when there was none
     * @param registry the configured policies
     * @param maxChecks the most checks one batch may hold, >= 1
     * @return the checks in request order, never empty
     * @throws InvalidCheckException 400 for a malformed batch or the first malformed check, 404 when the first
     *     invalid check names an unknown policy
     */
    static List<Check> batch(@Nullable JsonNode root, PolicyRegistry registry, int maxChecks)
            throws InvalidCheckException {
        if (root == null || !root.isObject()) {
            throw badRequest("the request body must be a JSON object {\"checks\": [" + CHECK_SHAPE + ", ...]}");
        }
        JsonNode checks = root.get("checks");
        if (checks == null || !checks.isArray()) {
            throw badRequest("checks must be an array of 1 to " + maxChecks + " checks " + CHECK_SHAPE);
        }
        if (checks.size() < 1 || checks.size() > maxChecks) {
            throw badRequest("checks must hold 1 to " + maxChecks + " checks, got " + checks.size());
        }
        List<Check> result = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            JsonNode item = checks.get(i);
            String where = "checks[" + i + "]";
            if (item == null || !item.isObject()) {
                throw badRequest(where + " must be a JSON object " + CHECK_SHAPE);
            }
            result.add(check(item, where + ".", registry));
        }
        return result;
    }

    private static Check check(JsonNode node, String prefix, PolicyRegistry registry) throws InvalidCheckException {
        JsonNode policyNode = node.get("policy");
        if (policyNode == null || policyNode.isNull()) {
            throw badRequest(prefix + "policy is required");
        }
        if (!policyNode.isString() || policyNode.getStringValue().isEmpty()) {
            throw badRequest(prefix + "policy must be a non-empty string");
        }
        JsonNode keyNode = node.get("key");
        if (keyNode == null || keyNode.isNull()) {
            throw badRequest(prefix + "key is required");
        }
        if (!keyNode.isString()) {
            throw badRequest(prefix + "key must be a string");
        }
        String key = keyNode.getStringValue();
        try {
            RateLimiter.checkKey(key);
        } catch (IllegalArgumentException e) { // names the problem and the size, never the key
            throw badRequest(prefix + e.getMessage());
        }
        long cost = cost(node.get("cost"), prefix);
        String name = policyNode.getStringValue();
        Optional<Policy> policy = registry.find(name);
        if (policy.isEmpty()) {
            throw new InvalidCheckException(HttpStatus.NOT_FOUND, prefix + "policy " + quotePolicy(name)
                    + " is not a configured policy");
        }
        return new Check(policy.get(), key, cost);
    }

    private static long cost(@Nullable JsonNode node, String prefix) throws InvalidCheckException {
        if (node == null || node.isNull()) {
            return 1;
        }
        if (!node.isNumber()) {
            throw badRequest(prefix + "cost must be " + COST_RANGE + ", got a " + kind(node));
        }
        Number n = node.getNumberValue();
        if (!(n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte
                || n instanceof BigInteger)) {
            // A fraction or an exponent (1.0, 1e3, 1.00000000000000000001): not an integer literal (StrictJson).
            throw badRequest(prefix + "cost must be " + COST_RANGE + " written as a JSON integer, got "
                    + abbreviate(n.toString()));
        }
        BigInteger value = n instanceof BigInteger bi ? bi : BigInteger.valueOf(n.longValue());
        try {
            return RateLimiter.checkCost(value.longValueExact());
        } catch (ArithmeticException | IllegalArgumentException e) { // beyond a long, or out of range
            throw badRequest(prefix + "cost must be " + COST_RANGE + ", got " + abbreviate(value.toString()));
        }
    }

    private static String kind(JsonNode node) {
        if (node.isString()) {
            return "string";
        }
        if (node.isBoolean()) {
            return "boolean";
        }
        if (node.isArray()) {
            return "array";
        }
        return "object";
    }

    private static String quotePolicy(String name) {
        return POLICY_NAME.matcher(name).matches() ? "'" + name + "'" : "(not a valid policy name)";
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }

    private static InvalidCheckException badRequest(String detail) {
        return new InvalidCheckException(HttpStatus.BAD_REQUEST, detail);
    }
}
