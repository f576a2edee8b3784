package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.gridlimit.micronaut.key.PathNormalizer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;

/**
 * Keeps the internal port ({@code gridlimit.decision-api.port}) to what it is for: the decision API
 * ({@code /v1/**}) and the management endpoints ({@code /health/**}, {@code /prometheus}). Any other path that
 * arrives there answers a 404 problem before rate limiting runs, so a public route reached through the internal
 * port (e.g. {@code /demo/hello}) neither is served nor spends its callers' quota. Thread-safe.
 */
@ServerFilter("/**")
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class InternalPortFilter implements Ordered {
    /** Detail of the 404 problem for a public path on the internal port. */
    static final String NOT_HERE_DETAIL = "the internal port serves the decision API, /health and /prometheus only";

    private final int port;

    /** @param settings the checked {@code gridlimit.decision-api.*} values */
    public InternalPortFilter(DecisionApiSettings settings) {
        this.port = settings.port();
    }

    /**
     * Lets internal paths through on the internal port and every path on the other ports.
     *
     * @param request the request
     * @return null to continue, or the 404 problem response
     */
    @RequestFilter
    @Nullable
    public HttpResponse<?> onlyInternalPaths(HttpRequest<?> request) {
        // Both the path as received and as the rate-limit filter reads it (SPEC §7): /v1/../demo/hello is
        // /demo/hello to the filter, so it must not pass as an API path here.
        String raw = request.getPath();
        if (request.getServerAddress().getPort() != port
                || (isInternal(raw) && isInternal(PathNormalizer.normalize(raw)))) {
            return null;
        }
        return ApiProblems.of(HttpStatus.NOT_FOUND, NOT_HERE_DETAIL);
    }

    /** @return true for the decision API's and the management endpoints' paths (as Micronaut routes them) */
    static boolean isInternal(String path) {
        return path.equals("/v1") || path.startsWith("/v1/") || path.equals("/health") || path.startsWith("/health/")
                || path.equals("/prometheus");
    }

    /**
     * Runs first, before rate limiting or anything else.
     *
     * @return the filter order
     */
    @Override
    public int getOrder() {
        return ServerFilterPhase.FIRST.order();
    }
}
