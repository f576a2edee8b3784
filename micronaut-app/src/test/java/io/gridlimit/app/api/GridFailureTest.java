package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Primary;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision API when the grid fails or never answers: 503 problems of the draft's temporary-reduced-capacity
 * type with {@code Retry-After: 1}, within {@code gridlimit.decision-api.timeout}; liveness still answers.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GridFailureTest implements TestPropertyProvider {
    private static final String TYPE = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";
    private static final String TITLE = "Service temporarily unable to satisfy the request due to reduced capacity";

    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient client;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v).replace("[", "")
                .replace("]", "")));
        p.put("gridlimit-svc-test.broken-limiter", "true");
        p.put("gridlimit.decision-api.timeout", "50ms");
        // The warm-up would wait for this limiter in vain.
        p.put("gridlimit.warmup.enabled", "false");
        return p;
    }

    /** A limiter that never answers, except for key {@code fail}, which fails at once. */
    @Factory
    @Requires(property = "gridlimit-svc-test.broken-limiter", value = "true")
    static class BrokenLimiterFactory {
        @Singleton
        @Primary
        RateLimiter brokenLimiter() {
            return new RateLimiter() {
                @Override
                public Decision tryAcquire(Policy policy, String key, long cost) {
                    throw new UnsupportedOperationException("blocking call in a test of the async API");
                }

                @Override
                public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
                    return "fail".equals(key)
                            ? CompletableFuture.failedFuture(new IllegalStateException("member lost: key fail"))
                            : new CompletableFuture<>();
                }
            };
        }
    }

    private HttpResponse<String> post(String path, String json) {
        return Http.exchange(client.toBlocking(), HttpRequest.POST(path, json).contentType(MediaType.APPLICATION_JSON));
    }

    private static void assertUnavailable(HttpResponse<String> r, String detail) {
        assertThat(r.code()).isEqualTo(503);
        assertThat(r.header("Retry-After")).isEqualTo("1");
        assertThat(r.getContentType().map(MediaType::toString)).contains("application/problem+json");
        assertThat(Http.body(r)).isEqualTo("{\"type\":\"" + TYPE + "\",\"title\":\"" + TITLE
                + "\",\"status\":503,\"detail\":\"" + detail + "\"}");
    }

    @Test
    void aGridThatNeverAnswersGives503WithinTheTimeout() {
        assertUnavailable(post("/v1/ratelimit/check", "{\"policy\":\"demo\",\"key\":\"silent\"}"),
                "the rate-limit grid did not answer within 50 ms; retry after 1 second");
        assertUnavailable(post("/v1/ratelimit/check/batch", "{\"checks\":[{\"policy\":\"demo\",\"key\":\"silent\"}]}"),
                "the rate-limit grid did not answer within 50 ms; retry after 1 second");
    }

    @Test
    void aFailingGridGives503WithoutItsMessage() {
        assertUnavailable(post("/v1/ratelimit/check", "{\"policy\":\"demo\",\"key\":\"fail\"}"),
                "the rate-limit grid is unavailable; retry after 1 second");
        assertUnavailable(post("/v1/ratelimit/check/batch",
                        "{\"checks\":[{\"policy\":\"demo\",\"key\":\"silent\"},{\"policy\":\"demo\",\"key\":\"fail\"}]}"),
                "the rate-limit grid is unavailable; retry after 1 second");
    }

    @Test
    void livenessDoesNotDependOnTheGrid() {
        HttpResponse<String> r = Http.exchange(client.toBlocking(), HttpRequest.GET("/health/liveness"));
        assertThat(r.code()).isEqualTo(200);
        assertThat(Http.body(r)).contains("\"status\":\"UP\"");
    }
}
