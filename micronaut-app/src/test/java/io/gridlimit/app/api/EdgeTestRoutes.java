package io.gridlimit.app.api;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;

/**
 * Routes that fail the way an application's routes can, on both ports of the service, only in contexts with
 * {@code gridlimit-test.edge-routes=true}: a handler that throws (500) and one that takes a JSON body (413, 415).
 * Test support for {@link ErrorBodiesTest}.
 */
final class EdgeTestRoutes {
    /** The exception's message: it must never reach a response. */
    static final String SECRET = "io.gridlimit.secret.Internals";

    private EdgeTestRoutes() {
    }

    /** On the public port. */
    @Controller("/edge")
    @Requires(property = "gridlimit-test.edge-routes", value = "true")
    static class Public {
        /** @return never: throws */
        @Get("/boom")
        @Produces(MediaType.TEXT_PLAIN)
        String boom() {
            throw new IllegalStateException(SECRET);
        }

        /** @param body a JSON body @return its length */
        @Post(uri = "/echo", consumes = MediaType.APPLICATION_JSON)
        @Produces(MediaType.TEXT_PLAIN)
        String echo(@Body String body) {
            return Integer.toString(body.length());
        }
    }

    /** On the internal port, where only /v1, /health and /prometheus pass. */
    @Controller(value = "/v1/edge", port = DecisionApiSettings.PORT_PLACEHOLDER)
    @Requires(property = "gridlimit-test.edge-routes", value = "true")
    static class Internal {
        /** @return never: throws */
        @Get("/boom")
        @Produces(MediaType.TEXT_PLAIN)
        String boom() {
            throw new IllegalStateException(SECRET);
        }
    }
}
