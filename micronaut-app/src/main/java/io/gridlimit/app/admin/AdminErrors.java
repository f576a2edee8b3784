package io.gridlimit.app.admin;

import io.gridlimit.app.api.ApiProblems;
import io.gridlimit.app.api.DecisionApiPortFilter;
import io.gridlimit.micronaut.catalog.PolicyAdmin;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.problem.ExactParameters;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.exceptions.HttpStatusException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's failures (docs/SPEC.md §11), one home for both of its controllers ({@link PolicyAdminController},
 * {@link PolicyOverrideController}): the catalog that is off (503), a grid call that fails (503), a policy that is
 * not there (404), and the {@code application/problem+json} answers of {@link AdminProblem}s and of what Micronaut
 * raises around the routes. Logs under {@link PolicyAdminController}'s logger, as the admin API always has.
 * Stateless.
 */
final class AdminErrors {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyAdminController.class);

    private AdminErrors() {
    }

    /** A call that changes or reads the grid's catalog. */
    interface GridCall<T> {
        /** @return the call's result */
        T call();
    }

    /**
     * @param policies the catalog and configuration's policies
     * @return the grid catalog's admin ({@link PolicySource#admin()})
     * @throws AdminProblem 503 while the catalog is off
     */
    static PolicyAdmin catalog(PolicySource policies) {
        return policies.admin().orElseThrow(() -> new AdminProblem(HttpStatus.SERVICE_UNAVAILABLE, "the policy "
                + "catalog is off (gridlimit.catalog.enabled: false, or the limiter is not the grid's)"));
    }

    /**
     * Runs a change on the grid.
     *
     * @param call the change
     * @return its result
     * @throws AdminProblem as thrown by the call; 503 when a member runs a GridLimit without the catalog (an
     *     {@link IllegalStateException}, its message as the detail) or the grid fails (logged, no detail of it)
     */
    static <T> T change(GridCall<T> call) {
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

    /**
     * @param name the policy name
     * @return the 404 of a policy the catalog does not hold
     */
    static AdminProblem notFound(String name) {
        return new AdminProblem(HttpStatus.NOT_FOUND, "no policy '" + name + "' in the catalog");
    }

    /**
     * @param problem what a handler threw
     * @return its problem response, with its {@code ETag} when it has one
     */
    static HttpResponse<Problem> answer(AdminProblem problem) {
        MutableHttpResponse<Problem> response = ApiProblems.of(problem.status(), problem.getMessage());
        if (problem.etag() != null) {
            response.header(HttpHeaders.ETAG, problem.etag());
        }
        return response;
    }

    /**
     * Answers what Micronaut raises around the admin routes as problems (never its default JSON error).
     *
     * @param request the request
     * @param error what was thrown
     * @return a problem response: 400 naming the parameter of an {@link ExactParameters.Refused}, the status of a
     *     client-side {@link HttpStatusException} with a fixed detail, else 500 without details (logged)
     */
    static HttpResponse<Problem> answer(HttpRequest<?> request, Throwable error) {
        if (error instanceof ExactParameters.Refused refused) {
            return ApiProblems.of(HttpStatus.BAD_REQUEST, refused.getMessage());
        }
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
}
