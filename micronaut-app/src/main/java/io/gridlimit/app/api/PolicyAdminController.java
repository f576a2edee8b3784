package io.gridlimit.app.api;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.app.Application;
import io.gridlimit.grid.PolicyCatalog;
import io.gridlimit.grid.PolicyRecord;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.config.PolicyDefinitions;
import io.gridlimit.micronaut.metrics.CatalogMetrics;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.json.tree.JsonNode;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API of the grid's policy catalog (docs/SPEC.md §11), on the internal port only, when
 * {@code gridlimit.admin-api.enabled} is true. Guarded like the decision API ({@link DecisionApiPortFilter}: 404 on
 * any other port; {@link DecisionApiTokenFilter}: the admin token). Errors are {@code application/problem+json}.
 * <ul>
 *   <li>{@code GET /v1/policies}: every policy of the catalog with its version and origin.</li>
 *   <li>{@code GET /v1/policies/{name}}: the policy in its YAML shape as JSON, {@code ETag: "<version>"}.</li>
 *   <li>{@code PUT /v1/policies/{name}}: create or replace; body in the YAML shape, validated exactly like
 *   configuration (the same messages, the same name rule: 400). {@code If-Match: "<version>"} (or {@code *})
 *   replaces only that version, {@code If-None-Match: *} only creates; a mismatch is 412 with the current ETag.
 *   The catalog owns the policy from now on: configuration no longer changes it. 201 when created, 200 otherwise,
 *   with the new ETag. A rollback is a PUT of the earlier body: a new, higher version.</li>
 *   <li>{@code DELETE /v1/policies/{name}}: refused (409) while a route of a live replica, or an override, names the
 *   policy, naming them; 204 once deleted (the versions go on if it is created again).</li>
 *   <li>{@code GET|PUT|DELETE /v1/policies/{name}/overrides?key=<key>}: the override of one key (keys hold
 *   {@code /}, {@code |} and {@code :}, so never in the path); PUT body {@code {"policy": "<other>"}}; ETag
 *   {@code "o-<other>"} with If-Match / If-None-Match as above. GET without {@code key} lists the policy's
 *   overrides.</li>
 * </ul>
 * Every change is logged (what, old and new version, the caller) and counted ({@link CatalogMetrics}). Changes
 * block on the grid, so the handlers run on the blocking executor, never on the event loop. 503 while a member of
 * the cluster runs a GridLimit without the catalog (a rolling upgrade), or the catalog is off.
 */
@Requires(property = Application.SERVICE_PROPERTY, value = "true")
@Requires(property = AdminApiSettings.ENABLED_PROPERTY, value = "true")
@Controller(value = PolicyAdminController.PATH, port = DecisionApiSettings.PORT_PLACEHOLDER)
@ExecuteOn(TaskExecutors.BLOCKING)
public class PolicyAdminController {
    /** The admin API's path. */
    public static final String PATH = "/v1/policies";
    /** The shape of a policy body, for messages. */
    static final String POLICY_SHAPE = "{\"algorithm\": \"fixed-window\", \"limit\": 2, \"window\": \"1h\"}, "
            + "or {\"bands\": {\"<band>\": {...}, ...}}";

    private static final Logger LOG = LoggerFactory.getLogger(PolicyAdminController.class);
    private static final Set<String> BAND_FIELDS = PolicyDefinitions.PARAMETERS;
    private static final Set<String> POLICY_FIELDS = Set.of("algorithm", "capacity", "refill-tokens",
            "refill-period", "limit", "window", "max-debt", "bands");

    private final PolicySource policies;
    private final CatalogMetrics metrics;

    /**
     * @param policies the catalog and configuration's policies
     * @param metrics counts the changes
     */
    public PolicyAdminController(PolicySource policies, CatalogMetrics metrics) {
        this.policies = policies;
        this.metrics = metrics;
    }

    private PolicyCatalog catalog() {
        PolicyCatalog c = policies.catalog();
        if (c == null) {
            throw new AdminProblem(HttpStatus.SERVICE_UNAVAILABLE, "the policy catalog is off "
                    + "(gridlimit.catalog.enabled: false, or the limiter is not the grid's)");
        }
        return c;
    }

    /**
     * Lists the catalog's policies.
     *
     * @return 200 {@code {"policies": [{"name", "version", "origin", "changed-by", "policy"}, ...]}} by name
     */
    @Get(produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> list() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (PolicyRecord r : catalog().records()) {
            out.add(describe(r));
        }
        return HttpResponse.ok(Map.of("policies", out));
    }

    private static Map<String, Object> describe(PolicyRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", r.name());
        m.put("version", r.version());
        m.put("origin", r.origin() == PolicyRecord.Origin.API ? "api" : "configuration");
        if (r.changedBy() != null) {
            m.put("changed-by", r.changedBy());
        }
        m.put("policy", PolicyDefinitions.written(r.policy()));
        return m;
    }

    /**
     * Reads one policy.
     *
     * @param name the policy name
     * @return 200 with the policy in its YAML shape and its ETag, or 404
     */
    @Get(uri = "/{name}", produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> get(@PathVariable String name) {
        PolicyRecord r = catalog().record(name).orElseThrow(() -> notFound(name));
        return HttpResponse.ok(PolicyDefinitions.written(r.policy())).header(HttpHeaders.ETAG, etag(r.version()))
                .header("GridLimit-Policy-Origin", r.origin() == PolicyRecord.Origin.API ? "api" : "configuration");
    }

    /**
     * Creates or replaces a policy.
     *
     * @param request the request (its If-Match / If-None-Match, its caller)
     * @param name the policy name
     * @param body the policy in its YAML shape, as JSON
     * @return 201 or 200 with the policy and its new ETag; 400, 412 or 503 problems
     */
    @Put(uri = "/{name}", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> put(HttpRequest<?> request, @PathVariable String name, @Body @Nullable byte[] body) {
        String nameError = PolicyDefinitions.nameError("name", name);
        if (nameError != null) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, nameError);
        }
        Policy policy = parsePolicy(name, body);
        long expected = expectedVersion(request);
        String caller = caller(request);
        PolicyCatalog.Change change = change(() -> catalog().put(policy, expected, caller));
        if (change.status() == PolicyCatalog.Status.FULL) {
            throw new AdminProblem(HttpStatus.CONFLICT, "the catalog holds " + PolicyCatalog.MAX_POLICIES
                    + " policy names (deletions included), the most it takes; reuse a name");
        }
        PolicyRecord after = change.after();
        if (change.status() == PolicyCatalog.Status.CONFLICT) {
            throw preconditionFailed(name, change.after());
        }
        boolean created = change.before() == null || !change.before().live();
        if (change.status() == PolicyCatalog.Status.APPLIED) {
            LOG.info("policy '{}' {} through the admin API: version {} -> {} by {}: {}", name,
                    created ? "created" : "changed", change.before() == null ? "none" : change.before().version(),
                    after.version(), caller, policy);
            metrics.change(name, created ? "created" : "updated");
        }
        MutableHttpResponse<?> response = created && change.status() == PolicyCatalog.Status.APPLIED
                ? HttpResponse.created(PolicyDefinitions.written(after.policy()))
                : HttpResponse.ok(PolicyDefinitions.written(after.policy()));
        return response.header(HttpHeaders.ETAG, etag(after.version()));
    }

    /**
     * Deletes a policy no route and no override names.
     *
     * @param request the request (its If-Match, its caller)
     * @param name the policy name
     * @return 204; 404, 409 naming the references, 412 or 503 problems
     */
    @Delete(uri = "/{name}", produces = Problem.MEDIA_TYPE)
    public HttpResponse<?> delete(HttpRequest<?> request, @PathVariable String name) {
        PolicyCatalog c = catalog();
        List<String> refs = new ArrayList<>(c.referencesTo(name));
        for (String k : c.overridesTargeting(name)) {
            refs.add("an override under policy '" + k.substring(0, k.indexOf('|')) + "'");
        }
        if (!refs.isEmpty()) {
            throw new AdminProblem(HttpStatus.CONFLICT, "policy '" + name + "' is still named by " + refs.size()
                    + " reference(s): " + String.join("; ", refs) + "; change those first");
        }
        long expected = expectedVersion(request);
        String caller = caller(request);
        PolicyCatalog.Change change = change(() -> c.delete(name, expected, caller));
        switch (change.status()) {
            case NOT_FOUND -> throw notFound(name);
            case CONFLICT -> throw preconditionFailed(name, change.after());
            default -> {
                LOG.info("policy '{}' deleted through the admin API: version {} -> {} by {}", name,
                        change.before().version(), change.after().version(), caller);
                metrics.change(name, "deleted");
            }
        }
        return HttpResponse.noContent();
    }

    /**
     * Reads the override of one key, or lists the policy's overrides.
     *
     * @param name the policy a rule names
     * @param key the grid key, or null to list
     * @return 200 {@code {"policy": "<other>"}} with its ETag, or {@code {"overrides": {key: policy}}}; 404
     */
    @Get(uri = "/{name}/overrides", produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> getOverride(@PathVariable String name, @QueryValue @Nullable String key) {
        PolicyCatalog c = catalog();
        if (key == null) {
            return HttpResponse.ok(Map.of("overrides", c.overridesOf(name)));
        }
        String target = c.readOverride(name, checkKey(key));
        if (target == null) {
            throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '" + name + "'");
        }
        return HttpResponse.ok(Map.of("policy", target)).header(HttpHeaders.ETAG, overrideTag(target));
    }

    /**
     * Sets the override of one key: requests for it under {@code name} are decided by the other policy, on their
     * own state.
     *
     * @param request the request (its If-Match / If-None-Match, its caller)
     * @param name the policy a rule names
     * @param key the grid key
     * @param body {@code {"policy": "<other policy>"}}
     * @return 200 or 201 with its ETag; 400, 404, 409, 412 or 503 problems
     */
    @Put(uri = "/{name}/overrides", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> putOverride(HttpRequest<?> request, @PathVariable String name,
                                       @QueryValue @Nullable String key, @Body @Nullable byte[] body) {
        PolicyCatalog c = catalog();
        String k = checkKey(key);
        if (policies.current(name).isEmpty()) {
            throw notFound(name);
        }
        JsonNode root = json(body);
        if (!root.isObject() || root.size() != 1 || root.get("policy") == null || !root.get("policy").isString()) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "policy: the body must be {\"policy\": \"<other policy>\"}");
        }
        String target = root.get("policy").getStringValue();
        if (target.equals(name)) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "policy: '" + target + "' is the policy itself");
        }
        if (policies.current(target).isEmpty()) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "policy: '" + target + "' names no policy of the "
                    + "catalog or the configuration");
        }
        String expected = expectedOverride(request);
        String before = c.readOverride(name, k);
        String caller = caller(request);
        PolicyCatalog.OverrideStatus status = change(() -> c.putOverride(name, k, target, expected));
        switch (status) {
            case CONFLICT -> throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under "
                    + "policy '" + name + "' is not the one If-Match / If-None-Match names");
            case FULL -> throw new AdminProblem(HttpStatus.CONFLICT, "the catalog holds " + c.maxOverrides()
                    + " overrides, the most gridlimit.catalog.max-overrides allows; remove some first");
            default -> {
                LOG.info("override under policy '{}' for key #{} set through the admin API: {} -> {} by {}", name,
                        io.gridlimit.micronaut.filter.KeyResolver.logHash(k), before == null ? "none" : before,
                        target, caller);
                metrics.change(name, "override_set");
            }
        }
        MutableHttpResponse<?> response = before == null ? HttpResponse.created(Map.of("policy", target))
                : HttpResponse.ok(Map.of("policy", target));
        return response.header(HttpHeaders.ETAG, overrideTag(target));
    }

    /**
     * Removes the override of one key.
     *
     * @param request the request (its If-Match, its caller)
     * @param name the policy a rule names
     * @param key the grid key
     * @return 204; 400, 404, 412 or 503 problems
     */
    @Delete(uri = "/{name}/overrides", produces = Problem.MEDIA_TYPE)
    public HttpResponse<?> deleteOverride(HttpRequest<?> request, @PathVariable String name,
                                          @QueryValue @Nullable String key) {
        PolicyCatalog c = catalog();
        String k = checkKey(key);
        String expected = expectedOverride(request);
        if (expected != null && expected.isEmpty()) {
            // If-None-Match: * holds only while there is no override (RFC 9110 §13.1.2): a deletion under it is
            // 412 when one exists (never an unconditional delete), 404 when there is none
            if (c.readOverride(name, k) != null) {
                throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under policy '"
                        + name + "' exists, and If-None-Match: * asks that none does; nothing was removed");
            }
            throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '" + name + "'");
        }
        String caller = caller(request);
        PolicyCatalog.OverrideStatus status = change(() -> c.removeOverride(name, k, expected));
        switch (status) {
            case NOT_FOUND -> throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '"
                    + name + "'");
            case CONFLICT -> throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under "
                    + "policy '" + name + "' is not the one If-Match names");
            default -> {
                LOG.info("override under policy '{}' for key #{} removed through the admin API by {}", name,
                        io.gridlimit.micronaut.filter.KeyResolver.logHash(k), caller);
                metrics.change(name, "override_removed");
            }
        }
        return HttpResponse.noContent();
    }

    /** Turns the problems a handler throws into problem responses. */
    @Error(exception = AdminProblem.class)
    HttpResponse<Problem> onProblem(AdminProblem problem) {
        MutableHttpResponse<Problem> response = ApiProblems.of(problem.status, problem.getMessage());
        if (problem.etag != null) {
            response.header(HttpHeaders.ETAG, problem.etag);
        }
        return response;
    }

    /**
     * Answers what Micronaut raises around these routes as problems (never its default JSON error).
     *
     * @param request the request
     * @param error what was thrown
     * @return a problem response
     */
    @Error
    HttpResponse<Problem> onError(HttpRequest<?> request, Throwable error) {
        if (error instanceof HttpStatusException statusError && statusError.getStatus().getCode() < 500) {
            HttpStatus status = statusError.getStatus();
            String detail = switch (status) {
                case UNSUPPORTED_MEDIA_TYPE -> DecisionApiPortFilter.NOT_JSON_DETAIL;
                case METHOD_NOT_ALLOWED -> "the admin API accepts GET, PUT and DELETE";
                case NOT_ACCEPTABLE -> "the admin API answers application/json or application/problem+json";
                default -> "the request could not be processed";
            };
            return ApiProblems.of(status, detail);
        }
        LOG.warn("admin API {} {} failed: {}", request.getMethodName(), request.getPath(), error.toString());
        return ApiProblems.of(HttpStatus.INTERNAL_SERVER_ERROR, "internal error");
    }

    private interface GridCall<T> {
        T call();
    }

    private static <T> T change(GridCall<T> call) {
        try {
            return call.call();
        } catch (IllegalStateException e) {
            throw new AdminProblem(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        } catch (RuntimeException e) {
            if (e instanceof AdminProblem p) {
                throw p;
            }
            LOG.warn("admin API: the grid failed: {}", e.toString());
            throw new AdminProblem(HttpStatus.SERVICE_UNAVAILABLE, "the grid did not complete the change; "
                    + "nothing or all of it was written: read it back");
        }
    }

    private static String checkKey(@Nullable String key) {
        if (key == null) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "key: missing: pass the grid key as ?key=<key>");
        }
        try {
            return RateLimiter.checkKey(key);
        } catch (IllegalArgumentException e) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "key: " + e.getMessage());
        }
    }

    private static String caller(HttpRequest<?> request) {
        Optional<Principal> principal = request.getUserPrincipal();
        if (principal.isPresent()) {
            return "'" + principal.get().getName() + "'";
        }
        boolean bearer = request.getHeaders().getAll(HttpHeaders.AUTHORIZATION).size() == 1;
        String peer = request.getRemoteAddress() == null || request.getRemoteAddress().getAddress() == null ? "?"
                : request.getRemoteAddress().getAddress().getHostAddress();
        return (bearer ? "the admin token's holder" : "an unauthenticated caller") + " from " + peer;
    }

    private static String etag(long version) {
        return "\"" + version + "\"";
    }

    private static String overrideTag(String target) {
        return "\"o-" + target + "\"";
    }

    /** {@code If-Match: "<n>"} or {@code *}, {@code If-None-Match: *}, else any version. */
    private static long expectedVersion(HttpRequest<?> request) {
        String ifNoneMatch = single(request, HttpHeaders.IF_NONE_MATCH);
        String ifMatch = single(request, HttpHeaders.IF_MATCH);
        if (ifNoneMatch != null) {
            if (!ifNoneMatch.equals("*") || ifMatch != null) {
                throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-None-Match: only '*' (create only) is accepted, "
                        + "and not beside If-Match");
            }
            return PolicyCatalog.NO_VERSION;
        }
        if (ifMatch == null || ifMatch.equals("*")) {
            return PolicyCatalog.ANY_VERSION;
        }
        if (!ifMatch.matches("\"[1-9][0-9]{0,18}\"")) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-Match: '" + ifMatch + "' is not an ETag of this API "
                    + "(a version in double quotes, e.g. \"3\", or *)");
        }
        return Long.parseLong(ifMatch.substring(1, ifMatch.length() - 1));
    }

    /** The expected target of an override: {@code ""} for If-None-Match: *, null for any. */
    private static @Nullable String expectedOverride(HttpRequest<?> request) {
        String ifNoneMatch = single(request, HttpHeaders.IF_NONE_MATCH);
        String ifMatch = single(request, HttpHeaders.IF_MATCH);
        if (ifNoneMatch != null) {
            if (!ifNoneMatch.equals("*") || ifMatch != null) {
                throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-None-Match: only '*' (create only) is accepted, "
                        + "and not beside If-Match");
            }
            return "";
        }
        if (ifMatch == null || ifMatch.equals("*")) {
            return null;
        }
        if (!ifMatch.matches("\"o-[a-z0-9-]{1,64}\"")) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-Match: '" + ifMatch + "' is not an override ETag of "
                    + "this API (e.g. \"o-gold\", or *)");
        }
        return ifMatch.substring(3, ifMatch.length() - 1);
    }

    private static @Nullable String single(HttpRequest<?> request, String header) {
        List<String> values = request.getHeaders().getAll(header);
        if (values.size() > 1) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, header + ": sent " + values.size() + " times; send it once");
        }
        return values.isEmpty() ? null : values.get(0).trim();
    }

    private AdminProblem preconditionFailed(String name, @Nullable PolicyRecord current) {
        boolean live = current != null && current.live();
        AdminProblem p = new AdminProblem(HttpStatus.PRECONDITION_FAILED, "policy '" + name + "' is "
                + (live ? "at version " + current.version() : "absent") + ", not the version If-Match or "
                + "If-None-Match names; read it again (GET) and retry");
        p.etag = live ? etag(current.version()) : null;
        return p;
    }

    private static AdminProblem notFound(String name) {
        return new AdminProblem(HttpStatus.NOT_FOUND, "no policy '" + name + "' in the catalog");
    }

    private static JsonNode json(@Nullable byte[] body) {
        if (body == null || body.length == 0) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, StrictJson.NOT_JSON);
        }
        try {
            return StrictJson.parse(body);
        } catch (InvalidCheckException e) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    /** The policy of a body, validated by configuration's own mapping (the same messages). */
    private static Policy parsePolicy(String name, @Nullable byte[] body) {
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
                    String nameError = PolicyDefinitions.nameError(bandPath, band.getKey());
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
                duration(path, node, "window", errors), bands, whole(path, node, "max-debt", errors));
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

    /** A problem a handler answers with. */
    static final class AdminProblem extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final HttpStatus status;
        private String etag;

        AdminProblem(HttpStatus status, String detail) {
            super(detail, null, false, false);
            this.status = status;
        }
    }
}
