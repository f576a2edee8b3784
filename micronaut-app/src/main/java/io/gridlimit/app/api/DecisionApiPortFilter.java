package io.gridlimit.app.api;

import io.gridlimit.app.Application;
import io.micronaut.context.annotation.Property;
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
 * Serves the decision API on one local port only, when {@code gridlimit.decision-api.port} is set: a request to
 * {@code /v1/ratelimit/**} that arrived on any other port answers 404 (a problem body), as if the API did not
 * exist there.
 *
 * <p>The controller itself is routed on that port only ({@code @Controller(port = ...)}, which also makes Micronaut
 * open the port as an extra listener); this filter turns the other ports' answer into a problem body instead of
 * Micronaut's default 404. Typical use: put the management endpoints and the decision API on a second port that
 * only internal callers can reach, and expose only the main port publicly:
 * <pre>{@code
 * endpoints.all.port: 8081          # management endpoints (health, prometheus) there only
 * gridlimit.decision-api.port: 8081 # the decision API there only
 * }</pre>
 *
 * <p>The port compared is the local port the connection was accepted on ({@link HttpRequest#getServerAddress()}),
 * not the {@code Host} header, which the caller controls.
 */
@Requires(property = Application.SERVICE_PROPERTY, value = "true")
@ServerFilter("/v1/ratelimit/**")
@Requires(property = "gridlimit.decision-api.port")
public class DecisionApiPortFilter implements Ordered {
    private final int port;

    /**
     * Creates the filter.
     *
     * @param port the only local port on which the decision API answers, in [1, 65535]
     * @throws IllegalArgumentException if the port is out of range
     */
    public DecisionApiPortFilter(@Property(name = "gridlimit.decision-api.port") int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("gridlimit.decision-api.port must be in [1, 65535], got " + port);
        }
        this.port = port;
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
        if (request.getServerAddress().getPort() == port) {
            return null;
        }
        return ApiProblems.of(HttpStatus.NOT_FOUND, "no decision API on this port");
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
