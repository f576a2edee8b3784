package io.gridlimit.app.admin;

import io.gridlimit.api.Policy;
import io.gridlimit.app.api.AdminApiSettings;
import io.gridlimit.app.api.DecisionApiPortFilter;
import io.gridlimit.app.api.DecisionApiSettings;
import io.gridlimit.app.api.DecisionApiTokenFilter;
import io.gridlimit.app.beans.ServiceBeans;
import io.gridlimit.micronaut.catalog.PolicyAdmin;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.catalog.PolicyVersion;
import io.gridlimit.micronaut.config.PolicyDefinitions;
import io.gridlimit.micronaut.config.sources.PolicyNames;
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
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin API of the grid's policy catalog (docs/SPEC.md §11), on the internal port only, when
 * {@code gridlimit.admin-api.enabled} is true. Guarded like the decision API ({@link DecisionApiPortFilter}: 404 on
 * any other port; {@link DecisionApiTokenFilter}: the admin token). Errors are {@code application/problem+json}.
 * Every handler first checks its parameters ({@link ExactParameters#check}): a name whose percent-decoding is not
 * valid UTF-8, or any query parameter, is 400 naming the parameter before anything is read or written.
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
 *   <li>{@code GET|PUT|DELETE /v1/policies/{name}/overrides?key=<key>}: the override of one key, served by
 *   {@link PolicyOverrideController} under the same conditions and guards.</li>
 * </ul>
 * Every change is logged (what, old and new version, the caller) and counted ({@link PolicyChangeLog}); a body is
 * read by {@link PolicyBodies}, ETags and preconditions by {@link AdminPreconditions}, failures answered by
 * {@link AdminErrors}. Changes block on the grid, so the handlers run on the blocking executor, never on the event
 * loop. 503 while a member of the cluster runs a GridLimit without the catalog (a rolling upgrade), or the catalog
 * is off.
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@Requires(property = AdminApiSettings.ENABLED_PROPERTY, value = "true")
@Controller(value = AdminApiSettings.PATH, port = DecisionApiSettings.PORT_PLACEHOLDER)
@ExecuteOn(TaskExecutors.BLOCKING)
public class PolicyAdminController {
    private final PolicySource policies;
    private final PolicyChangeLog changes;

    /**
     * @param policies the catalog and configuration's policies
     * @param metrics counts the changes
     */
    public PolicyAdminController(PolicySource policies, CatalogMetrics metrics) {
        this.policies = policies;
        this.changes = new PolicyChangeLog(metrics);
    }

    private PolicyAdmin catalog() {
        return AdminErrors.catalog(policies);
    }

    /**
     * Lists the catalog's policies.
     *
     * @param request the request (it takes no query parameter)
     * @return 200 {@code {"policies": [{"name", "version", "origin", "changed-by", "policy"}, ...]}} by name
     */
    @Get(produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> list(HttpRequest<?> request) {
        ExactParameters.check(request);
        List<Map<String, Object>> out = new ArrayList<>();
        for (PolicyVersion r : catalog().records()) {
            out.add(describe(r));
        }
        return HttpResponse.ok(Map.of("policies", out));
    }

    private static Map<String, Object> describe(PolicyVersion r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", r.name());
        m.put("version", r.version());
        m.put("origin", origin(r));
        if (r.changedBy() != null) {
            m.put("changed-by", r.changedBy());
        }
        m.put("policy", PolicyDefinitions.written(r.policy()));
        return m;
    }

    /**
     * Reads one policy.
     *
     * @param request the request (it takes no query parameter)
     * @param name the policy name
     * @return 200 with the policy in its YAML shape and its ETag, or 404
     */
    @Get(uri = "/{name}", produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String name) {
        ExactParameters.check(request);
        PolicyVersion r = catalog().record(name).orElseThrow(() -> AdminErrors.notFound(name));
        return HttpResponse.ok(PolicyDefinitions.written(r.policy()))
                .header(HttpHeaders.ETAG, AdminPreconditions.etag(r.version()))
                .header("GridLimit-Policy-Origin", origin(r));
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
        ExactParameters.check(request);
        String nameError = PolicyNames.nameError("name", name);
        if (nameError != null) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, nameError);
        }
        Policy policy = PolicyBodies.policy(name, body);
        long expected = AdminPreconditions.expectedVersion(request);
        String caller = PolicyChangeLog.caller(request);
        PolicyAdmin.Change change = AdminErrors.change(() -> catalog().put(policy, expected, caller));
        if (change.status() == PolicyAdmin.Status.FULL) {
            throw new AdminProblem(HttpStatus.CONFLICT, "the catalog holds " + PolicyAdmin.MAX_POLICIES
                    + " policy names (deletions included), the most it takes; reuse a name");
        }
        PolicyVersion after = change.after();
        if (change.status() == PolicyAdmin.Status.CONFLICT) {
            throw AdminPreconditions.preconditionFailed(name, change.after());
        }
        boolean created = change.before() == null || !change.before().live();
        if (change.status() == PolicyAdmin.Status.APPLIED) {
            changes.policyPut(name, created, change.before(), after, caller, policy);
        }
        MutableHttpResponse<?> response = created && change.status() == PolicyAdmin.Status.APPLIED
                ? HttpResponse.created(PolicyDefinitions.written(after.policy()))
                : HttpResponse.ok(PolicyDefinitions.written(after.policy()));
        return response.header(HttpHeaders.ETAG, AdminPreconditions.etag(after.version()));
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
        ExactParameters.check(request);
        PolicyAdmin c = catalog();
        List<String> refs = new ArrayList<>(c.referencesTo(name));
        for (String under : c.overridesTo(name)) {
            refs.add("an override under policy '" + under + "'");
        }
        if (!refs.isEmpty()) {
            throw new AdminProblem(HttpStatus.CONFLICT, "policy '" + name + "' is still named by " + refs.size()
                    + " reference(s): " + String.join("; ", refs) + "; change those first");
        }
        long expected = AdminPreconditions.expectedVersion(request);
        String caller = PolicyChangeLog.caller(request);
        PolicyAdmin.Change change = AdminErrors.change(() -> c.delete(name, expected, caller));
        switch (change.status()) {
            case NOT_FOUND -> throw AdminErrors.notFound(name);
            case CONFLICT -> throw AdminPreconditions.preconditionFailed(name, change.after());
            default -> changes.policyDeleted(name, change.before(), change.after(), caller);
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

    private static String origin(PolicyVersion r) {
        return r.origin() == PolicyVersion.Origin.API ? "api" : "configuration";
    }
}
