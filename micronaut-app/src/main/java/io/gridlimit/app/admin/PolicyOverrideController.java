package io.gridlimit.app.admin;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.app.api.AdminApiSettings;
import io.gridlimit.app.api.DecisionApiPortFilter;
import io.gridlimit.app.api.DecisionApiSettings;
import io.gridlimit.app.api.DecisionApiTokenFilter;
import io.gridlimit.app.api.InternalPortFilter;
import io.gridlimit.app.beans.ServiceBeans;
import io.gridlimit.micronaut.catalog.PolicyAdmin;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.metrics.CatalogMetrics;
import io.gridlimit.micronaut.problem.ExactParameters;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
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
import io.micronaut.json.tree.JsonNode;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;

/**
 * The admin API's per-key overrides (docs/SPEC.md §11), beside {@link PolicyAdminController} and under the same
 * conditions, path, port, guards (the internal port only, {@link DecisionApiPortFilter}, {@link InternalPortFilter};
 * the admin token, {@link DecisionApiTokenFilter}) and problem answers ({@link AdminErrors}).
 * <ul>
 *   <li>{@code GET|PUT|DELETE /v1/policies/{name}/overrides?key=<key>}: the override of one key (keys hold
 *   {@code /}, {@code |} and {@code :}, so never in the path); PUT body {@code {"policy": "<other>"}}; ETag
 *   {@code "o-<other>"} with If-Match / If-None-Match as for policies ({@link AdminPreconditions}). GET without
 *   {@code key} lists the policy's overrides.</li>
 * </ul>
 * Every handler first checks its parameters ({@link ExactParameters#check}): {@code ?key=a&key=b}, a key or name
 * whose percent-decoding is not valid UTF-8 ({@code %ED%A0%80}, {@code %FF}) or another query parameter is 400
 * naming the parameter, before anything is read or written.
 * Every change is logged and counted ({@link PolicyChangeLog}). Changes block on the grid, so the handlers run on
 * the blocking executor, never on the event loop. 503 while the catalog is off or a member runs a GridLimit
 * without it.
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@Requires(property = AdminApiSettings.ENABLED_PROPERTY, value = "true")
@Controller(value = AdminApiSettings.PATH, port = DecisionApiSettings.PORT_PLACEHOLDER)
@ExecuteOn(TaskExecutors.BLOCKING)
public class PolicyOverrideController {
    /** The one query parameter of these routes: the grid key. */
    private static final String KEY = "key";

    private final PolicySource policies;
    private final PolicyChangeLog changes;

    /**
     * @param policies the catalog and configuration's policies
     * @param metrics counts the changes
     */
    public PolicyOverrideController(PolicySource policies, CatalogMetrics metrics) {
        this.policies = policies;
        this.changes = new PolicyChangeLog(metrics);
    }

    /**
     * Reads the override of one key, or lists the policy's overrides.
     *
     * @param request the request: {@code ?key=<key>}, or no query to list
     * @param name the policy a rule names
     * @return 200 {@code {"policy": "<other>"}} with its ETag, or {@code {"overrides": {key: policy}}}; 400, 404
     */
    @Get(uri = "/{name}/overrides", produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> getOverride(HttpRequest<?> request, @PathVariable String name) {
        String key = ExactParameters.check(request, KEY).get(KEY);
        PolicyAdmin c = AdminErrors.catalog(policies);
        if (key == null) {
            return HttpResponse.ok(Map.of("overrides", c.overridesOf(name)));
        }
        String target = c.readOverride(name, checkKey(key));
        if (target == null) {
            throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '" + name + "'");
        }
        return HttpResponse.ok(Map.of("policy", target))
                .header(HttpHeaders.ETAG, AdminPreconditions.overrideTag(target));
    }

    /**
     * Sets the override of one key: requests for it under {@code name} are decided by the other policy, on their
     * own state.
     *
     * @param request the request: {@code ?key=<key>}, its If-Match / If-None-Match, its caller
     * @param name the policy a rule names
     * @param body {@code {"policy": "<other policy>"}}
     * @return 200 or 201 with its ETag; 400, 404, 409, 412 or 503 problems
     */
    @Put(uri = "/{name}/overrides", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> putOverride(HttpRequest<?> request, @PathVariable String name,
                                       @Body @Nullable byte[] body) {
        String k = checkKey(ExactParameters.check(request, KEY).get(KEY));
        PolicyAdmin c = AdminErrors.catalog(policies);
        if (policies.current(name).isEmpty()) {
            throw AdminErrors.notFound(name);
        }
        JsonNode root = PolicyBodies.json(body);
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
        String expected = AdminPreconditions.expectedOverride(request);
        String before = c.readOverride(name, k);
        String caller = PolicyChangeLog.caller(request);
        PolicyAdmin.OverrideStatus status = AdminErrors.change(() -> c.putOverride(name, k, target, expected));
        switch (status) {
            case CONFLICT -> throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under "
                    + "policy '" + name + "' is not the one If-Match / If-None-Match names");
            case FULL -> throw new AdminProblem(HttpStatus.CONFLICT, "the catalog holds " + c.maxOverrides()
                    + " overrides, the most gridlimit.catalog.max-overrides allows; remove some first");
            default -> changes.overrideSet(name, k, before, target, caller);
        }
        MutableHttpResponse<?> response = before == null ? HttpResponse.created(Map.of("policy", target))
                : HttpResponse.ok(Map.of("policy", target));
        return response.header(HttpHeaders.ETAG, AdminPreconditions.overrideTag(target));
    }

    /**
     * Removes the override of one key.
     *
     * @param request the request: {@code ?key=<key>}, its If-Match, its caller
     * @param name the policy a rule names
     * @return 204; 400, 404, 412 or 503 problems
     */
    @Delete(uri = "/{name}/overrides", produces = Problem.MEDIA_TYPE)
    public HttpResponse<?> deleteOverride(HttpRequest<?> request, @PathVariable String name) {
        String k = checkKey(ExactParameters.check(request, KEY).get(KEY));
        PolicyAdmin c = AdminErrors.catalog(policies);
        String expected = AdminPreconditions.expectedOverride(request);
        if (expected != null && expected.isEmpty()) {
            // If-None-Match: * holds only while there is no override (RFC 9110 §13.1.2): a deletion under it is
            // 412 when one exists (never an unconditional delete), 404 when there is none
            if (c.readOverride(name, k) != null) {
                throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under policy '"
                        + name + "' exists, and If-None-Match: * asks that none does; nothing was removed");
            }
            throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '" + name + "'");
        }
        String caller = PolicyChangeLog.caller(request);
        PolicyAdmin.OverrideStatus status = AdminErrors.change(() -> c.removeOverride(name, k, expected));
        switch (status) {
            case NOT_FOUND -> throw new AdminProblem(HttpStatus.NOT_FOUND, "no override of that key under policy '"
                    + name + "'");
            case CONFLICT -> throw new AdminProblem(HttpStatus.PRECONDITION_FAILED, "the override of that key under "
                    + "policy '" + name + "' is not the one If-Match names");
            default -> changes.overrideRemoved(name, k, caller);
        }
        return HttpResponse.noContent();
    }

    /**
     * Turns the problems a handler throws into problem responses.
     *
     * @param problem what a handler threw
     * @return its problem response ({@link AdminErrors#answer(AdminProblem)})
     */
    @Error(exception = AdminProblem.class)
    HttpResponse<Problem> onProblem(AdminProblem problem) {
        return AdminErrors.answer(problem);
    }

    /**
     * Answers what Micronaut raises around these routes as problems (never its default JSON error).
     *
     * @param request the request
     * @param error what was thrown
     * @return a problem response ({@link AdminErrors#answer(HttpRequest, Throwable)})
     */
    @Error
    HttpResponse<Problem> onError(HttpRequest<?> request, Throwable error) {
        return AdminErrors.answer(request, error);
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
}
