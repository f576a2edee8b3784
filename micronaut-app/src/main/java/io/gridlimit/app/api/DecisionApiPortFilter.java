package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
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
 * Keeps the decision API off every port but the internal one ({@code gridlimit.decision-api.port}, default
 * {@value DecisionApiSettings#DEFAULT_PORT}): a request to {@code /v1/**} that arrived on any other port answers 404
 * (a problem body), as if the API did not exist there, before any other filter runs, so nothing is decided, charged
 * or authenticated.
 *
 * <p>The controller itself is routed on that port only ({@code @Controller(port = ...)}) and the public listener
 * does not serve routes bound to another port ({@link InternalListener}); this filter is the second wall, and turns
 * the other ports' answer into a problem body instead of Micronaut's default 404.
 *
 * <p>The port compared is the local port the connection was accepted on ({@link HttpRequest#getServerAddress()}),
 * not the {@code Host} header, which the caller controls.
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@ServerFilter("/v1/**")
public class DecisionApiPortFilter implements Ordered {
    /** Detail of the 404 problem on any port but the internal one. */
    static final String NOT_HERE_DETAIL = "no decision API on this port";
    /** Detail of the 415 problem (the same words as the decision and admin APIs' own 415). */
    public static final String NOT_JSON_DETAIL = "the request body must be sent as Content-Type: application/json";

    private final int port;

    /**
     * Creates the filter.
     *
     * @param settings the checked {@code gridlimit.decision-api.*} values
     */
    public DecisionApiPortFilter(DecisionApiSettings settings) {
        this.port = settings.port();
    }

    /**
     * Lets the request through on the configured port, answers 404 elsewhere.
     *
     * @param request the request
     * @return null to continue, or the 404 problem response
     */
    @RequestFilter
    @Nullable
    public HttpResponse<?> onlyOnApiPort(HttpRequest<?> request) {
        if (request.getServerAddress().getPort() != port) {
            return ApiProblems.of(HttpStatus.NOT_FOUND, NOT_HERE_DETAIL);
        }
        if (!jsonBody(request)) {
            return ApiProblems.of(HttpStatus.UNSUPPORTED_MEDIA_TYPE, NOT_JSON_DETAIL);
        }
        return null;
    }

    /**
     * A POST or PUT must say, once, that its body is UTF-8 JSON: {@code application/json} with no parameter but
     * {@code charset=utf-8}. A missing Content-Type is refused too: a browser may send one without a CORS preflight,
     * so accepting it would let any web page an operator opens spend quotas on the internal port.
     *
     * @param request the request
     * @return true when it is neither a POST nor a PUT, or its one Content-Type is UTF-8 JSON
     */
    static boolean jsonBody(HttpRequest<?> request) {
        if (!"POST".equals(request.getMethodName()) && !"PUT".equals(request.getMethodName())) {
            return true;
        }
        java.util.List<String> types = request.getHeaders().getAll(io.micronaut.http.HttpHeaders.CONTENT_TYPE);
        if (types.size() != 1) {
            return false;
        }
        String[] parts = types.get(0).split(";");
        if (!parts[0].trim().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            if (!parts[i].trim().replace(" ", "").equalsIgnoreCase("charset=utf-8")) {
                return false;
            }
        }
        return true;
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
