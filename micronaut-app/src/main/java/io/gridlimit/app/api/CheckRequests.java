package io.gridlimit.app.api;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
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
 * optional (default 1); a batch is {@code {"checks": [check, ...]}} with 1 to {@code maxChecks} checks. A member
 * these shapes do not name is refused with 400 naming it and the known ones (a misspelt {@code "atomc"} or
 * {@code "Cost"} would otherwise decide something the caller did not ask for). Rules (SPEC §1, §6): policy a configured policy name (else 404); key as
 * {@link RateLimiter#checkKey} accepts it (non-empty, at most 1024 UTF-8 bytes, no lone UTF-16 surrogate), used as
 * given; cost an integer in [1, 10^15] written as a JSON integer literal (no fraction, no
 * exponent: {@code 1.0} and {@code 1e3} are refused; the tree comes from {@link StrictJson}, which keeps that kind). Messages name the member, prefixed by its batch
 * index ({@code checks[3].key}); they quote bad policy names and costs but never a key. A check may carry
 * {@code "reserve": true} and a batch {@code "atomic": true} (booleans; docs/SPEC.md §10); a settle is
 * {@code {"reservation": string, "actual": integer}} with actual in [0, 10^15], checked as strictly as cost.
 */
final class CheckRequests {
    /**
     * A validated check, ready to decide.
     *
     * @param policy the configured policy
     * @param key the key, as given
     * @param cost the cost, in [1, 10^15]
     * @param reserve whether the answer carries the reservation to settle (docs/SPEC.md §10)
     */
    record Check(Policy policy, String key, long cost, boolean reserve) {
        Check(Policy policy, String key, long cost) {
            this(policy, key, cost, false);
        }
    }

    /**
     * A validated batch.
     *
     * @param checks the checks in request order, never empty
     * @param atomic whether any denial or grid failure gives back every check (docs/SPEC.md §10)
     */
    record Batch(List<Check> checks, boolean atomic) {
    }

    /**
     * A validated settle.
     *
     * @param policy the reservation's configured policy
     * @param reservation the reservation, as the token says (the owner checks its signature)
     * @param actual the actual cost, in [0, 10^15]
     */
    record Settle(Policy policy, Reservation reservation, long actual) {
    }

    static final String SETTLE_SHAPE = "{\"reservation\": string, \"actual\": integer}";
    private static final String ACTUAL_RANGE = "an integer in [0, " + RateLimiter.MAX_COST + "]";

    /**
     * Validates a batch body with its optional {@code "atomic"} member (a boolean, default false).
     *
     * @param root the parsed body, or null
     * @param registry the configured policies
     * @param maxChecks the most checks one batch may hold
     * @return the batch
     * @throws InvalidCheckException as {@link #batch}, and 400 for an {@code atomic} that is not a boolean
     */
    static Batch batchRequest(@Nullable JsonNode root, PolicyRegistry registry, int maxChecks)
            throws InvalidCheckException {
        List<Check> checks = batch(root, registry, maxChecks);
        return new Batch(checks, flag(root.get("atomic"), "atomic"));
    }

    private static final List<String> CHECK_MEMBERS = List.of("policy", "key", "cost", "reserve");
    private static final List<String> BATCH_MEMBERS = List.of("checks", "atomic");
    private static final List<String> SETTLE_MEMBERS = List.of("reservation", "actual");

    /** Refuses the first member of an object that its shape does not name. */
    private static void knownMembers(JsonNode node, String prefix, List<String> known) throws InvalidCheckException {
        for (java.util.Map.Entry<String, JsonNode> e : node.entries()) {
            if (!known.contains(e.getKey())) {
                throw badRequest(prefix + abbreviate(e.getKey()) + ": unknown member (known: "
                        + String.join(", ", known) + ")");
            }
        }
    }

    /**
     * Validates a settle body {@code {"reservation": string, "actual": integer}}.
     *
     * @param root the parsed body, or null
     * @param registry the configured policies
     * @return the settle
     * @throws InvalidCheckException 400 naming the member for a malformed body, token or actual; 404 when the
     *     reservation names a policy that is not configured
     */
    static Settle settle(@Nullable JsonNode root, PolicyRegistry registry) throws InvalidCheckException {
        if (root == null || !root.isObject()) {
            throw badRequest("the request body must be a JSON object " + SETTLE_SHAPE);
        }
        knownMembers(root, "", SETTLE_MEMBERS);
        JsonNode token = root.get("reservation");
        if (token == null || token.isNull()) {
            throw badRequest("reservation is required");
        }
        if (!token.isString()) {
            throw badRequest("reservation must be a string, got " + kind(token));
        }
        Reservation reservation;
        try {
            reservation = Reservation.parse(token.getStringValue());
        } catch (IllegalArgumentException e) { // names the problem, never quotes the token (it holds the key)
            throw badRequest("reservation is not a reservation token: " + e.getMessage());
        }
        JsonNode actualNode = root.get("actual");
        if (actualNode == null || actualNode.isNull()) {
            throw badRequest("actual is required");
        }
        long actual = integer(actualNode, "actual", ACTUAL_RANGE, 0);
        Optional<Policy> policy = registry.find(reservation.policy());
        if (policy.isEmpty()) {
            throw new InvalidCheckException(HttpStatus.NOT_FOUND, "reservation names policy "
                    + quotePolicy(reservation.policy()) + ", which is not a configured policy");
        }
        return new Settle(policy.get(), reservation, actual);
    }

    private static boolean flag(@Nullable JsonNode node, String name) throws InvalidCheckException {
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw badRequest(name + " must be a boolean, got " + kind(node));
        }
        return node.getBooleanValue();
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
        knownMembers(root, "", BATCH_MEMBERS);
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
        knownMembers(node, prefix, CHECK_MEMBERS);
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
        boolean reserve = flag(node.get("reserve"), prefix + "reserve");
        String name = policyNode.getStringValue();
        Optional<Policy> policy = registry.find(name);
        if (policy.isEmpty()) {
            throw new InvalidCheckException(HttpStatus.NOT_FOUND, prefix + "policy " + quotePolicy(name)
                    + " is not a configured policy");
        }
        return new Check(policy.get(), key, cost, reserve);
    }

    private static long cost(@Nullable JsonNode node, String prefix) throws InvalidCheckException {
        if (node == null || node.isNull()) {
            return 1;
        }
        return integer(node, prefix + "cost", COST_RANGE, 1);
    }

    /** An integer literal in [min, 10^15], the one home of the cost and actual rules. */
    private static long integer(JsonNode node, String name, String range, long min) throws InvalidCheckException {
        if (!node.isNumber()) {
            throw badRequest(name + " must be " + range + ", got " + kind(node));
        }
        Number n = node.getNumberValue();
        if (!(n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte
                || n instanceof BigInteger)) {
            // A fraction or an exponent (1.0, 1e3, 1.00000000000000000001): not an integer literal (StrictJson).
            throw badRequest(name + " must be " + range + " written as a JSON integer, got "
                    + abbreviate(n.toString()));
        }
        BigInteger value = n instanceof BigInteger bi ? bi : BigInteger.valueOf(n.longValue());
        try {
            long v = value.longValueExact();
            if (v < min || v > RateLimiter.MAX_COST) {
                throw new IllegalArgumentException();
            }
            return v;
        } catch (ArithmeticException | IllegalArgumentException e) { // beyond a long, or out of range
            throw badRequest(name + " must be " + range + ", got " + abbreviate(value.toString()));
        }
    }

    /** @return what a JSON value is, with its article: "a number", "an array" */
    private static String kind(JsonNode node) {
        if (node.isNumber()) {
            return "a number";
        }
        if (node.isString()) {
            return "a string";
        }
        if (node.isBoolean()) {
            return "a boolean";
        }
        if (node.isArray()) {
            return "an array";
        }
        return "an object";
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
