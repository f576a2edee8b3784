package io.gridlimit.micronaut.userapp;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GridLimit added to someone else's Micronaut service: its own controller ({@link OrdersController}), our artifact
 * on the classpath, and configuration only (policies, routes, one {@code @RateLimited}); everything else at its
 * defaults: no trusted proxies, exempt health and metrics, both header sets, an embedded member. The test replaces
 * the {@code TimeSource} bean with a manual clock, as a user's own tests would. The tests share one client key
 * (127.0.0.1), so they run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UserApplicationTest {
    private EmbeddedServer server;
    private HttpClient client;

    @BeforeAll
    void start() {
        Map<String, Object> props = new HashMap<>();
        props.put("shop.orders.enabled", "true");
        // The shop's own management settings (GridLimit sets none): readiness details and Prometheus open.
        props.put("endpoints.health.details-visible", "ANONYMOUS");
        props.put("endpoints.prometheus.sensitive", "false");
        props.put("gridlimit-test.manual-clock", "true");
        props.put("micronaut.server.port", "-1");
        props.putAll(Ports.ownMember("shop"));
        // A first decision on a loaded 2-core CI machine can take longer than the 100 ms default: these tests are
        // about exact limits and headers, not about the failure mode (GridFailureTest and LocalFailureModeTest are).
        props.put("gridlimit.grid-timeout", "5s");
        props.put("gridlimit.policies.orders-read.algorithm", "token-bucket");
        props.put("gridlimit.policies.orders-read.capacity", "3");
        props.put("gridlimit.policies.orders-read.refill-tokens", "1");
        props.put("gridlimit.policies.orders-read.refill-period", "1h");
        props.put("gridlimit.policies.orders-write.algorithm", "fixed-window");
        props.put("gridlimit.policies.orders-write.limit", "1");
        props.put("gridlimit.policies.orders-write.window", "1h");
        props.put("gridlimit.policies.everything.algorithm", "fixed-window");
        props.put("gridlimit.policies.everything.limit", "1000");
        props.put("gridlimit.policies.everything.window", "1h");
        props.put("gridlimit.routes", List.of(
                Map.of("pattern", "/orders/**", "methods", List.of("GET"), "policy", "orders-read",
                        "key", List.of("client-ip"), "cost", "1", "on-missing-key", "reject"),
                Map.of("pattern", "/**", "methods", List.of(), "policy", "everything", "key", List.of("global"),
                        "cost", "1", "on-missing-key", "reject")));
        server = ApplicationContext.run(EmbeddedServer.class, props);
        client = HttpClient.create(server.getURL());
    }

    @Test
    @Order(5)
    void whenTheGridIsLostReadinessFailsLivenessHoldsAndTheDefaultFailureModeLocalDecides() {
        server.getApplicationContext().getBean(HazelcastInstance.class).shutdown();
        assertThat(send(HttpRequest.GET("/health/readiness")).code()).isEqualTo(503);
        assertThat(send(HttpRequest.GET("/health/liveness")).code()).isEqualTo(200);
        // failure-mode local (the default), expected-replicas 3: orders-read's share is capacity floor(3/3) = 1,
        // refill 1 per 3 h (3 does not divide 1 token per 1 h); everything's is floor(1000/3) = 333 per hour.
        HttpResponse<?> r = send(HttpRequest.GET("/orders/7"));
        assertThat(r.code()).isEqualTo(200);
        assertThat(h(r, "RateLimit")).isEqualTo("\"orders-read\";r=0;t=10800");
        HttpResponse<?> denied = send(HttpRequest.GET("/orders/7"));
        assertThat(denied.code()).isEqualTo(429);
    }

    @AfterAll
    void stop() {
        client.close();
        server.close();
    }

    private HttpResponse<?> send(MutableHttpRequest<?> request) {
        try {
            return client.toBlocking().exchange(request, String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private static String h(HttpResponse<?> r, String name) {
        return r.getHeaders().get(name);
    }

    @Test
    @Order(1)
    void configuredRouteLimitsTheUsersControllerAndIgnoresUntrustedForwardingHeaders() {
        String[] spoofed = {"198.51.100.1", "198.51.100.2", "198.51.100.3"};
        for (int i = 0; i < 3; i++) {
            HttpResponse<?> r = send(HttpRequest.GET("/orders/" + i).header("X-Forwarded-For", spoofed[i]));
            assertThat(r.code()).isEqualTo(200);
            assertThat(r.getBody(String.class)).contains("order " + i);
            assertThat(h(r, "RateLimit-Policy"))
                    .isEqualTo("\"orders-read\";q=3;w=10800, \"everything\";q=1000;w=3600");
            // token bucket, C=3, 1 token per hour: t = (C - tokens) hours
            assertThat(h(r, "RateLimit")).isEqualTo("\"orders-read\";r=" + (2 - i) + ";t=" + 3600 * (i + 1));
            assertThat(h(r, "X-RateLimit-Limit")).isEqualTo("3");
        }
        HttpResponse<?> denied = send(HttpRequest.GET("/orders/9").header("X-Forwarded-For", "198.51.100.4"));
        assertThat(denied.code()).isEqualTo(429);
        assertThat(h(denied, "Retry-After")).isEqualTo("3600");
        HazelcastInstance hz = server.getApplicationContext().getBean(HazelcastInstance.class);
        assertThat(hz.<String, Object>getMap("gridlimit.orders-read").keySet()).containsExactly("ip:127.0.0.1");
    }

    @Test
    @Order(2)
    void rateLimitedAnnotationOnTheUsersMethod() {
        HttpResponse<?> first = send(HttpRequest.POST("/orders", "{}").contentType(MediaType.APPLICATION_JSON)
                .header("X-User", "alice"));
        assertThat(first.code()).isEqualTo(201);
        assertThat(h(first, "RateLimit")).isEqualTo("\"orders-write\";r=0;t=3600");
        HttpResponse<?> second = send(HttpRequest.POST("/orders", "{}").contentType(MediaType.APPLICATION_JSON)
                .header("X-User", "alice"));
        assertThat(second.code()).isEqualTo(429);
        assertThat(h(second, "Retry-After")).isEqualTo("3600");
        assertThat(second.getBody(String.class).orElseThrow()).contains("\"violated-policies\":[\"orders-write\"]");
        HttpResponse<?> bob = send(HttpRequest.POST("/orders", "{}").contentType(MediaType.APPLICATION_JSON)
                .header("X-User", "bob"));
        assertThat(bob.code()).isEqualTo(201);
        HttpResponse<?> anonymous = send(HttpRequest.POST("/orders", "{}").contentType(MediaType.APPLICATION_JSON));
        assertThat(anonymous.code()).isEqualTo(400);
        assertThat(anonymous.getBody(String.class).orElseThrow()).contains("X-User");
    }

    @Test
    @Order(3)
    void healthIsExemptByDefaultAndReadinessReportsTheGrid() {
        HttpResponse<?> liveness = send(HttpRequest.GET("/health/liveness"));
        assertThat(liveness.code()).isEqualTo(200);
        assertThat(h(liveness, "RateLimit")).isNull();
        HttpResponse<?> readiness = send(HttpRequest.GET("/health/readiness"));
        assertThat(readiness.code()).isEqualTo(200);
        assertThat(readiness.getBody(String.class).orElseThrow()).contains("gridlimit-grid").contains("UP");
        assertThat(h(readiness, "RateLimit")).isNull();
    }

    @Test
    @Order(4)
    void metricsCountDecisionsAndActiveKeysWithoutRawKeys() {
        send(HttpRequest.GET("/orders/42").header("X-Forwarded-For", "198.51.100.5"));
        HttpResponse<?> prometheus = send(HttpRequest.GET("/prometheus"));
        assertThat(prometheus.code()).isEqualTo(200);
        String text = prometheus.getBody(String.class).orElseThrow();
        assertThat(text).contains("gridlimit_decisions_total{mode=\"grid\",outcome=\"")
                .contains("policy=\"orders-read\"")
                .containsPattern("gridlimit_active_keys\\{policy=\"orders-read\"\\} 1\\.0")
                .contains("gridlimit_decision_latency_seconds_count{policy=\"orders-read\"}")
                .doesNotContain("127.0.0.1").doesNotContain("alice");
    }
}
