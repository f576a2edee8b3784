package io.gridlimit.app.api;

import io.gridlimit.app.Application;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;

import java.util.Optional;

/**
 * Keeps Micronaut's default JSON error bodies out of the decision API's path space ({@code /v1/**}): a 404 (no
 * such route, e.g. {@code POST /v1/ratelimit/nope}) or a 413 (body over {@code micronaut.server.max-request-size},
 * when Micronaut refuses it before any route runs) that is not already a problem becomes an RFC 9457 problem
 * ({@code application/problem+json}) with a fixed detail. Every other response passes unchanged. Stateless.
 */
@Requires(property = Application.SERVICE_PROPERTY, value = "true")
@ServerFilter("/v1/**")
public class DecisionApiErrorFilter implements Ordered {
    /** Detail of the 404 problem. */
    static final String NOT_FOUND_DETAIL = "no such decision API resource";
    /** Detail of the 413 problem. */
    static final String TOO_LARGE_DETAIL = "the request body is larger than the server accepts";

    /**
     * Rewrites a default 404 or 413 error response in place into a problem (status and other headers kept).
     *
     * @param response the response so far
     */
    @ResponseFilter
    public void problemBodies(MutableHttpResponse<?> response) {
        int code = response.code();
        if (code != 404 && code != 413) {
            return;
        }
        Optional<MediaType> type = response.getContentType();
        if (type.isPresent() && type.get().getName().equals(Problem.MEDIA_TYPE)) {
            return;
        }
        HttpStatus status = code == 404 ? HttpStatus.NOT_FOUND : HttpStatus.REQUEST_ENTITY_TOO_LARGE;
        String detail = code == 404 ? NOT_FOUND_DETAIL : TOO_LARGE_DETAIL;
        @SuppressWarnings("unchecked")
        MutableHttpResponse<Object> writable = (MutableHttpResponse<Object>) response;
        writable.contentType(Problem.MEDIA_TYPE).body(Problem.of(code, status.getReason(), detail));
    }

    /**
     * Response filters run in reverse order: in the rendering phase this one sees the response after the
     * application's filters (rate limiting, the API port filter) have run.
     *
     * @return the filter order
     */
    @Override
    public int getOrder() {
        return ServerFilterPhase.RENDERING.order();
    }
}
