package io.gridlimit.app.demo;

import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service out of the box: its own {@code application.yml} (demo policy of 5 per 10 s per client IP on
 * {@code GET /demo/hello}), a manual clock frozen for the burst, one client. Exact headers and problem body.
 *
 * <p>{@code gridlimit.grid-timeout} is raised here ({@link ServiceProperties#SLOW_MACHINE_TIMEOUTS}) so that a slow
 * decision on a busy test machine is not taken for a grid failure (which, under {@code failure-mode: open}, would
 * admit it without headers).
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DemoRouteTest implements TestPropertyProvider {
    @Inject
    @Client("/")
    HttpClient client;

    /** Health and metrics answer on the internal port only. */
    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient internal;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v).replace("[", "")
                .replace("]", "")));
        return p;
    }

    @Test
    void twentyQuickRequestsGiveFiveOkThenFifteenTooManyRequests() {
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            responses.add(Http.exchange(client.toBlocking(), HttpRequest.GET("/demo/hello")));
        }
        List<Integer> statuses = responses.stream().map(HttpResponse::code).toList();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i < 5 ? 200 : 429);
        }
        assertThat(statuses).isEqualTo(expected);

        // All 20 at one instant t0: the newest entry leaves the window at t0 + 10 s + 1 ns, so t = 11 (rounded up).
        HttpResponse<String> first = responses.get(0);
        assertThat(Http.body(first)).isEqualTo("Hello from GridLimit\n");
        assertThat(first.header("RateLimit-Policy")).isEqualTo("\"demo\";q=5;w=10");
        assertThat(first.header("RateLimit")).isEqualTo("\"demo\";r=4;t=11");
        assertThat(first.header("X-RateLimit-Limit")).isEqualTo("5");
        assertThat(first.header("X-RateLimit-Remaining")).isEqualTo("4");
        assertThat(first.header("X-RateLimit-Reset")).isEqualTo("11");
        assertThat(first.header("Retry-After")).isNull();
        assertThat(responses.get(4).header("RateLimit")).isEqualTo("\"demo\";r=0;t=11");

        HttpResponse<String> denied = responses.get(5);
        assertThat(denied.header("Retry-After")).isEqualTo("11");
        assertThat(denied.header("RateLimit-Policy")).isEqualTo("\"demo\";q=5;w=10");
        assertThat(denied.header("RateLimit")).isEqualTo("\"demo\";r=0;t=11");
        assertThat(denied.header("X-RateLimit-Limit")).isEqualTo("5");
        assertThat(denied.header("X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(denied.header("X-RateLimit-Reset")).isEqualTo("11");
        assertThat(denied.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(Http.body(denied)).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types"
                + "#quota-exceeded\",\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\","
                + "\"status\":429,\"detail\":\"Quota of policy 'demo' exceeded; retry after 11 s.\","
                + "\"violated-policies\":[\"demo\"]}");
        assertThat(responses.get(19).header("Retry-After")).isEqualTo("11");
    }

    @Test
    void healthAndMetricsAreServedAndNeverLimited() {
        for (int i = 0; i < 7; i++) {
            HttpResponse<String> live = Http.exchange(internal.toBlocking(), HttpRequest.GET("/health/liveness"));
            assertThat(live.code()).isEqualTo(200);
            assertThat(live.header("RateLimit")).isNull();
        }
        HttpResponse<String> ready = Http.exchange(internal.toBlocking(), HttpRequest.GET("/health/readiness"));
        assertThat(ready.code()).isEqualTo(200);
        assertThat(Http.body(ready)).contains("\"status\":\"UP\"");
        HttpResponse<String> prometheus = Http.exchange(internal.toBlocking(), HttpRequest.GET("/prometheus"));
        assertThat(prometheus.code()).isEqualTo(200);
        assertThat(Http.body(prometheus)).contains("jvm_memory_used_bytes");
    }

    @Test
    void otherManagementEndpointsAreOff() {
        for (String path : List.of("/beans", "/env", "/loggers", "/routes", "/threaddump", "/refresh", "/info")) {
            assertThat(Http.exchange(client.toBlocking(), HttpRequest.GET(path)).code()).as(path).isEqualTo(404);
            assertThat(Http.exchange(internal.toBlocking(), HttpRequest.GET(path)).code()).as(path).isEqualTo(404);
        }
    }
}
