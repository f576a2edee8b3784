package io.gridlimit.app.api;

import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by a hostile review: the responses Micronaut writes itself were its own JSON ({@code /health/<x>} named an
 * enum class), and a 414 came back with an {@code HTTP/1.0} status line. On the service as shipped
 * ({@code gridlimit.http.problem-errors: true} in its application.yml), every such status on both ports, over raw
 * sockets so that the status line is seen as sent, is an {@code HTTP/1.1} status line and an RFC 9457 problem
 * (type, title, status, detail) naming no class, enum, exception message or stack frame.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorBodiesTest {
    private static final String JSON_OVER_1_KIB = "{\"policy\":\"demo\",\"key\":\"" + "k".repeat(2000) + "\"}";

    private EmbeddedServer server;
    private JsonMapper json;

    @BeforeAll
    void start() {
        Map<String, Object> p = new HashMap<>(ServiceProperties.standalone());
        p.put("gridlimit-test.edge-routes", "true");
        p.put("micronaut.server.max-request-size", "1024");
        server = ApplicationContext.run(EmbeddedServer.class, p);
        json = server.getApplicationContext().getBean(JsonMapper.class);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private int port(String which) {
        return which.equals("public") ? server.getPort()
                : ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {4}")
    @CsvSource(delimiter = '|', value = {
        // port | method | target | extra header | status | title | detail
        "public   | GET  | /nope                 |                          | 404 | Not Found | no such resource",
        "internal | GET  | /v1/nope              |                          | 404 | Not Found | no such resource",
        "public   | POST | /demo/hello           |                          | 405 | Method Not Allowed | the resource does not accept this method (see Allow)",
        "internal | POST | /health               |                          | 405 | Method Not Allowed | the resource does not accept this method (see Allow)",
        "internal | POST | /prometheus           |                          | 405 | Method Not Allowed | the resource does not accept this method (see Allow)",
        "internal | GET  | /v1/ratelimit/check   |                          | 405 | Method Not Allowed | the decision API accepts POST only",
        "public   | GET  | /demo/hello           | Accept: image/png        | 406 | Not Acceptable | the resource has no representation the Accept header admits",
        "internal | GET  | /v1/policies          | Accept: image/png        | 406 | Not Acceptable | the admin API answers application/json or application/problem+json",
        "public   | POST | /edge/echo            | BIG                      | 413 | Request Entity Too Large | the request body is larger than the server accepts",
        "internal | POST | /v1/ratelimit/check   | BIG                      | 413 | Request Entity Too Large | the request body is larger than the server accepts",
        "public   | GET  | LONG                  |                          | 414 | URI Too Long | The request line is longer than this server accepts (micronaut.server.netty.max-initial-line-length).",
        "internal | GET  | LONG                  |                          | 414 | URI Too Long | The request line is longer than this server accepts (micronaut.server.netty.max-initial-line-length).",
        "public   | POST | /edge/echo            | Content-Type: text/plain | 415 | Unsupported Media Type | the resource does not accept the request body's Content-Type",
        "internal | POST | /v1/ratelimit/check   | Content-Type: text/plain | 415 | Unsupported Media Type | the request body must be sent as Content-Type: application/json",
        "public   | GET  | /edge/boom            |                          | 500 | Internal Server Error | internal error",
        "internal | GET  | /v1/edge/boom         |                          | 500 | Internal Server Error | internal error",
        "internal | GET  | /health/nope          |                          | 400 | Bad Request | the request could not be read: a parameter, header or body is malformed",
        "public   | GET  | /a%zz                 |                          | 400 | Bad Request | the request could not be read: a parameter, header or body is malformed",
        // Micronaut answers an unparsable URI as a request for /, which the internal port does not serve
        "internal | GET  | /v1/a%zz              |                          | 404 | Not Found | the internal port serves the decision API, /health and /prometheus only"})
    void everyErrorMicronautWritesIsAnHttp11ProblemWithoutInternals(String which, String method, String target,
                                                                    String header, int status, String title,
                                                                    String detail) throws IOException {
        String path = target.equals("LONG") ? "/v1/ratelimit/check?q=" + "a".repeat(9000) : target;
        String body = method.equals("POST") ? ("BIG".equals(header) ? JSON_OVER_1_KIB : "{}") : null;
        String[] headers = header == null || header.equals("BIG") ? new String[0] : new String[] {header};
        PeerHttp.Response r = PeerHttp.send("127.0.0.1", port(which), method, path, body, headers);

        assertThat(r.statusLine()).startsWith("HTTP/1.1 " + status + " ");
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        @SuppressWarnings("unchecked")
        Map<String, Object> problem = json.readValue(r.body(), Map.class);
        assertThat(problem).containsOnlyKeys("type", "title", "status", "detail")
                .containsEntry("type", "about:blank").containsEntry("title", title)
                .containsEntry("status", status).containsEntry("detail", detail);
        assertThat(r.body()).doesNotContain(EdgeTestRoutes.SECRET).doesNotContain("Exception")
                .doesNotContain("io.micronaut").doesNotContain("HealthCheckType").doesNotContain("NOPE")
                .doesNotContain("_embedded").doesNotContain("aaaa");
        if (status == 405 && !path.startsWith("/v1/")) {
            assertThat(r.header("Allow")).as("the 405 keeps its Allow header").isNotEmpty();
        }
    }
}
