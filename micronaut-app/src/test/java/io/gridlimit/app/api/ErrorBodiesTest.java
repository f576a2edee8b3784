package io.gridlimit.app.api;

import io.gridlimit.app.support.PeerHttp;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by a hostile review: the responses Micronaut writes itself were its own JSON ({@code /health/<x>} named an
 * enum class), and a 414 came back with an {@code HTTP/1.0} status line. On the service as shipped
 * ({@code gridlimit.http.problem-errors: true} in its application.yml), every such status on both ports, over raw
 * sockets so that the status line is seen as sent, is an {@code HTTP/1.1} status line and an RFC 9457 problem
 * (type, title, status, detail) naming no class, enum, exception message or stack frame. And on both ports a
 * connection whose header section does not arrive within {@code gridlimit.http.header-timeout} (1 s here) is
 * answered 408 and closed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorBodiesTest {
    /** Long enough that the other requests here, each written at once, never meet it on a loaded machine. */
    private static final long DEADLINE_MS = 1_000;
    private static final String JSON_OVER_1_KIB = "{\"policy\":\"demo\",\"key\":\"" + "k".repeat(2000) + "\"}";

    private EmbeddedServer server;
    private JsonMapper json;

    @BeforeAll
    void start() {
        Map<String, Object> p = new HashMap<>(ServiceProperties.standalone());
        p.put("gridlimit-test.edge-routes", "true");
        p.put("micronaut.server.max-request-size", "1024");
        p.put("gridlimit.http.header-timeout", DEADLINE_MS + "ms");
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

    @ParameterizedTest
    @ValueSource(strings = {"public", "internal"})
    void aConnectionWhoseHeadersDoNotArriveIsAnswered408OnEitherPort(String which) throws IOException {
        double before = timeouts();
        long start = System.nanoTime(); // before connecting: the server's deadline starts after this
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port(which)), 10_000);
            socket.setSoTimeout((int) DEADLINE_MS + 5_000);
            socket.getOutputStream().write("GET /health/liveness HTTP/1.1\r\nHost: x\r\n"
                    .getBytes(StandardCharsets.US_ASCII)); // and never the end of the header section
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(response).startsWith("HTTP/1.1 408 Request Timeout\r\n")
                    .containsIgnoringCase("\r\nconnection: close\r\n")
                    .containsIgnoringCase("\r\ncontent-type: application/problem+json\r\n")
                    .endsWith("\r\n\r\n{\"type\":\"about:blank\",\"title\":\"Request Timeout\",\"status\":408,"
                            + "\"detail\":\"the request's header section was not complete within "
                            + "gridlimit.http.header-timeout\"}");
            assertThat(elapsedMs).isBetween(DEADLINE_MS, DEADLINE_MS + 5_000);
        }
        assertThat(timeouts() - before).isEqualTo(1.0);
    }

    private double timeouts() {
        Counter c = server.getApplicationContext().getBean(MeterRegistry.class)
                .find(GridLimitMetrics.HEADER_TIMEOUTS).counter();
        return c == null ? 0 : c.count();
    }
}
