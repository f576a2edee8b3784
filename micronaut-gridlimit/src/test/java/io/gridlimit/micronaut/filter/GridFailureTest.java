package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.FakeLimiters;
import io.gridlimit.micronaut.support.Ports;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A grid that never answers (or fails) within {@code grid-timeout}: failure-mode open lets the request through
 * without rate-limit headers, closed answers 503 with {@code Retry-After: 1} and a temporary-reduced-capacity
 * problem; {@code /health/liveness} answers either way (SPEC §5, §9). The limiter is replaced, so no grid exists.
 */
class GridFailureTest {
    private static EmbeddedServer start(String failureMode, String limiter) {
        Map<String, Object> props = new HashMap<>();
        props.put("gridlimit.failure-mode", failureMode);
        props.put("gridlimit.grid-timeout", "50ms");
        props.put("gridlimit-test.limiter", limiter);
        props.put("gridlimit.warmup.enabled", "false");
        props.putAll(Ports.ownMember("gl-failure"));
        return ApplicationContext.run(EmbeddedServer.class, props, "gl-filter");
    }

    private static HttpResponse<?> get(HttpClient client, String path) {
        try {
            return client.toBlocking().exchange(HttpRequest.GET(path).header("X-Forwarded-For", "192.0.2.1"),
                    String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private static double count(MeterRegistry registry, String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void failureModeOpenLetsRequestsThroughWithoutHeadersAndLivenessAnswers() {
        try (EmbeddedServer server = start("open", "never");
             HttpClient client = HttpClient.create(server.getURL())) {
            HttpResponse<?> r = get(client, "/t/hello");
            assertThat(r.code()).isEqualTo(200);
            assertThat(r.getBody(String.class)).contains("hello");
            assertThat(r.getHeaders().get("RateLimit")).isNull();
            assertThat(r.getHeaders().get("RateLimit-Policy")).isNull();
            assertThat(r.getHeaders().get("X-RateLimit-Remaining")).isNull();
            assertThat(get(client, "/health/liveness").code()).isEqualTo(200);

            MeterRegistry registry = server.getApplicationContext().getBean(MeterRegistry.class);
            assertThat(count(registry, GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback",
                    "mode", "open")).isEqualTo(1.0);
            assertThat(count(registry, GridLimitMetrics.GRID_ERRORS, "policy", "hello", "reason", "timeout"))
                    .isEqualTo(1.0);
            assertThat(server.getApplicationContext().getBean(FakeLimiters.BrokenGrid.class).calls()).isEqualTo(1);
        }
    }

    @Test
    void failureModeClosedAnswers503WithRetryAfterOneAndAProblem() throws Exception {
        try (EmbeddedServer server = start("closed", "never");
             HttpClient client = HttpClient.create(server.getURL())) {
            HttpResponse<?> r = get(client, "/t/hello");
            assertThat(r.code()).isEqualTo(503);
            assertThat(r.getHeaders().get("Retry-After")).isEqualTo("1");
            assertThat(r.getHeaders().get("Content-Type")).startsWith("application/problem+json");
            assertThat(r.getHeaders().get("RateLimit")).isNull();
            RateLimitFilterTest.assertRecentDate(r.getHeaders().get("Date"));
            // the timed-out request was cancelled at the limiter before the 503 was written (GridAsker cancels it
            // in the answer's own handler): queued behind a coalesced call, it is never sent
            assertThat(server.getApplicationContext().getBean(FakeLimiters.BrokenGrid.class).unanswered())
                    .singleElement().satisfies(f -> assertThat(f).isCancelled());
            @SuppressWarnings("unchecked")
            Map<String, Object> body = server.getApplicationContext().getBean(JsonMapper.class)
                    .readValue(r.getBody(String.class).orElseThrow(), Map.class);
            assertThat(body).containsEntry("type",
                            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity")
                    .containsEntry("status", 503);
            assertThat(get(client, "/health/liveness").code()).isEqualTo(200);
            assertThat(get(client, "/t/exempt/free").code()).isEqualTo(200);
            MeterRegistry registry = server.getApplicationContext().getBean(MeterRegistry.class);
            // every failure-mode answer is a fallback, tagged with the mode that answered
            assertThat(count(registry, GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback",
                    "mode", "closed")).isEqualTo(1.0);
            assertThat(count(registry, GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback",
                    "mode", "open")).isEqualTo(0.0);
        }
    }

    @Test
    void aFailingGridIsCountedAsAFailureAndTheModeApplies() {
        try (EmbeddedServer server = start("closed", "fail");
             HttpClient client = HttpClient.create(server.getURL())) {
            assertThat(get(client, "/t/hello").code()).isEqualTo(503);
            MeterRegistry registry = server.getApplicationContext().getBean(MeterRegistry.class);
            assertThat(count(registry, GridLimitMetrics.GRID_ERRORS, "policy", "hello", "reason", "failure"))
                    .isEqualTo(1.0);
        }
    }
}
