package io.gridlimit.micronaut.problem;

import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.RawHttp;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gridlimit.http.problem-errors} in a user's own service, over raw sockets: off (the library's default) the
 * application's error handling is left as it is (Micronaut's own JSON), except the 414 and 431 the library always
 * answers as problems in HTTP/1.1; on, every error Micronaut writes itself is an RFC 9457 problem with a fixed
 * detail, its status and other headers kept.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProblemErrorsTest {
    /** The exception's message: it must never reach a response. */
    static final String SECRET = "io.example.secret.Internals";

    private EmbeddedServer off;
    private EmbeddedServer on;
    private JsonMapper json;

    /** A user's routes: a text one, one that takes JSON, one that throws. */
    @Controller("/p")
    @Requires(property = "gridlimit-test.problem-routes", value = "true")
    static class UserRoutes {
        @Get("/hello")
        @Produces(MediaType.TEXT_PLAIN)
        String hello() {
            return "hello";
        }

        @Post(uri = "/json", consumes = MediaType.APPLICATION_JSON)
        @Produces(MediaType.TEXT_PLAIN)
        String json(@Body String body) {
            return body;
        }

        @Get("/boom")
        @Produces(MediaType.TEXT_PLAIN)
        String boom() {
            throw new IllegalStateException(SECRET);
        }
    }

    private static EmbeddedServer start(boolean problemErrors) {
        Map<String, Object> p = new HashMap<>(Ports.ownMember("gl-problems"));
        p.put("micronaut.server.port", "-1");
        p.put("gridlimit-test.problem-routes", "true");
        p.put("micronaut.server.max-request-size", "1024");
        if (problemErrors) {
            p.put("gridlimit.http.problem-errors", "true");
        }
        return ApplicationContext.run(EmbeddedServer.class, p);
    }

    @BeforeAll
    void startBoth() {
        off = start(false);
        on = start(true);
        json = on.getApplicationContext().getBean(JsonMapper.class);
    }

    @AfterAll
    void stop() {
        off.close();
        on.close();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> problem(RawHttp.Response r) throws IOException {
        assertThat(r.statusLine()).startsWith("HTTP/1.1 " + r.status() + " ");
        assertThat(r.header("content-type")).isEqualTo(Problem.MEDIA_TYPE);
        assertThat(r.body()).doesNotContain(SECRET).doesNotContain("Exception").doesNotContain("io.micronaut");
        return json.readValue(r.body(), Map.class);
    }

    @Test
    void offByDefaultTheApplicationsOwnErrorBodiesStay() {
        RawHttp.Response notFound = RawHttp.send(off.getPort(), "GET", "/nope");
        assertThat(notFound.status()).isEqualTo(404);
        assertThat(notFound.header("content-type")).isEqualTo(MediaType.APPLICATION_JSON);
        RawHttp.Response boom = RawHttp.send(off.getPort(), "GET", "/p/boom");
        assertThat(boom.status()).isEqualTo(500);
        assertThat(boom.header("content-type")).isEqualTo(MediaType.APPLICATION_JSON);
    }

    @Test
    void offByDefaultTooLongRequestsAreStillProblemsInHttp11() throws IOException {
        RawHttp.Response line = RawHttp.send(off.getPort(), "GET", "/p/hello?q=" + "a".repeat(9000));
        assertThat(problem(line)).containsEntry("status", 414).containsEntry("title", "URI Too Long");
        RawHttp.Response header = RawHttp.send(off.getPort(), "GET", "/p/hello", "X-Big: " + "a".repeat(9000));
        assertThat(problem(header)).containsEntry("status", 431);
    }

    @Test
    void onEveryErrorMicronautWritesIsAProblemWithAFixedDetail() throws IOException {
        assertThat(problem(RawHttp.send(on.getPort(), "GET", "/nope"))).isEqualTo(Map.of("type", "about:blank",
                "title", "Not Found", "status", 404, "detail", "no such resource"));
        RawHttp.Response method = RawHttp.send(on.getPort(), "DELETE", "/p/hello");
        assertThat(problem(method)).isEqualTo(Map.of("type", "about:blank", "title", "Method Not Allowed",
                "status", 405, "detail", "the resource does not accept this method (see Allow)"));
        assertThat(method.header("allow")).contains("GET");
        assertThat(problem(RawHttp.send(on.getPort(), "GET", "/p/hello", "Accept: image/png"))).isEqualTo(Map.of(
                "type", "about:blank", "title", "Not Acceptable", "status", 406,
                "detail", "the resource has no representation the Accept header admits"));
        assertThat(problem(RawHttp.sendBody(on.getPort(), "POST", "/p/json", "text/plain", "{}"))).isEqualTo(Map.of("type", "about:blank",
                "title", "Unsupported Media Type", "status", 415,
                "detail", "the resource does not accept the request body's Content-Type"));
        assertThat(problem(RawHttp.sendBody(on.getPort(), "POST", "/p/json", "application/json",
                "{\"a\":\"" + "a".repeat(2000) + "\"}"))).isEqualTo(Map.of("type", "about:blank",
                "title", "Request Entity Too Large", "status", 413,
                "detail", "the request body is larger than the server accepts"));
        assertThat(problem(RawHttp.send(on.getPort(), "GET", "/p/boom"))).isEqualTo(Map.of("type", "about:blank",
                "title", "Internal Server Error", "status", 500, "detail", "internal error"));
        assertThat(problem(RawHttp.send(on.getPort(), "GET", "/p/%zz"))).isEqualTo(Map.of("type", "about:blank",
                "title", "Bad Request", "status", 400,
                "detail", "the request could not be read: a parameter, header or body is malformed"));
        assertThat(problem(RawHttp.send(on.getPort(), "GET", "/p/hello?q=" + "a".repeat(9000))))
                .containsEntry("status", 414);
    }
}
