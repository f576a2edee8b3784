package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Decision;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.SwitchableGrid;
import io.gridlimit.micronaut.support.SwitchableGrid.Mode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bound of {@code failure-mode: local} (docs/SPEC.md §5) over HTTP on a deliberately slowed grid: the grid
 * ({@link SwitchableGrid}, mode {@link Mode#SLOW}) decides every request, consuming its quota, but answers only
 * after {@code grid-timeout} has passed, so each request is decided on this replica's share. Every setting is the
 * default except {@code failure-mode: local} (written out, as the default it documents) and, in one test,
 * {@code gridlimit.local.expected-replicas}. Policy {@code hello}: a sliding-window log of 5 per 10 s; one
 * replica; the local clock is manual and does not move, so the bound is exact: a slow grid never lifts the limit.
 */
class SlowGridBoundTest {
    private static final int LIMIT = 5;

    private EmbeddedServer server;
    private HttpClient client;
    private SwitchableGrid.Grid grid;
    private MeterRegistry registry;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void withOneExpectedReplicaASlowGridAdmitsExactlyTheLimitThen429WithTheLocalHeaders() {
        start("1");
        grid.mode(Mode.SLOW);
        List<HttpResponse<?>> responses = new ArrayList<>();
        for (int i = 0; i < LIMIT + 3; i++) {
            responses.add(get());
        }
        for (int i = 0; i < LIMIT; i++) {
            HttpResponse<?> r = responses.get(i);
            assertThat(r.code()).as("request %d", i + 1).isEqualTo(200);
            assertThat(r.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
            // one reading of the local clock: one log entry whose capacity returns at 10 s + 1 ns: t=11
            assertThat(r.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=" + (LIMIT - 1 - i) + ";t=11");
        }
        for (int i = LIMIT; i < LIMIT + 3; i++) {
            HttpResponse<?> r = responses.get(i);
            assertThat(r.code()).as("request %d", i + 1).isEqualTo(429);
            assertThat(r.getHeaders().get("Retry-After")).isEqualTo("11");
            assertThat(r.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");
        }
        assertThat(count(GridLimitMetrics.DECISIONS, "outcome", "fallback", "mode", "local")).isEqualTo(8.0);
        assertThat(count(GridLimitMetrics.GRID_ERRORS, "reason", "timeout")).isEqualTo(8.0);

        // the grid decided every request too (5 admitted, 3 denied), but too late: its answers change nothing
        List<Decision> late = grid.answerLate();
        assertThat(late).extracting(Decision::allowed)
                .containsExactly(true, true, true, true, true, false, false, false);
        // the grid answers again: the decisions are the grid's, which has counted the 5 it admitted late
        grid.mode(Mode.UP);
        HttpResponse<?> recovered = get();
        assertThat(recovered.code()).isEqualTo(429);
        assertThat(count(GridLimitMetrics.DECISIONS, "outcome", "denied", "mode", "grid")).isEqualTo(1.0);
        assertThat(grid.calls()).as("every request asked the grid first").isEqualTo(LIMIT + 4);
    }

    @Test
    void withTheDefaultThreeExpectedReplicasTheSlowGridAdmitsFloorOfTheLimitByThreeAndTheBoundIsLimitPlusShare() {
        start(null);
        assertThat(server.getApplicationContext().getBean(GridLimitConfig.class).local().expectedReplicas())
                .isEqualTo(3);
        assertThat(server.getApplicationContext().getBean(GridLimitConfig.class).gridTimeout())
                .isEqualTo(Duration.ofMillis(100));
        // the grid answers in time: exactly the limit
        for (int i = 0; i < LIMIT; i++) {
            HttpResponse<?> r = get();
            assertThat(r.code()).as("grid request %d", i + 1).isEqualTo(200);
            assertThat(r.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
        }
        assertThat(get().code()).isEqualTo(429);

        // the grid slows down past grid-timeout: this replica's share, floor(5 / 3) = 1, is admitted, then 429
        grid.mode(Mode.SLOW);
        HttpResponse<?> local = get();
        assertThat(local.code()).isEqualTo(200);
        assertThat(local.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=1;w=10");
        assertThat(local.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");
        for (int i = 0; i < 3; i++) {
            HttpResponse<?> denied = get();
            assertThat(denied.code()).isEqualTo(429);
            assertThat(denied.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=1;w=10");
            assertThat(denied.getHeaders().get("Retry-After")).isEqualTo("11");
        }
        // admitted in this window: 5 by the grid + 1 locally = L + floor(L / N), the bound of one replica
        assertThat(count(GridLimitMetrics.DECISIONS, "outcome", "allowed", "mode", "grid")).isEqualTo(5.0);
        assertThat(count(GridLimitMetrics.DECISIONS, "outcome", "fallback", "mode", "local")).isEqualTo(4.0);
        assertThat(grid.answerLate()).extracting(Decision::allowed).containsExactly(false, false, false, false);

        grid.mode(Mode.UP);
        HttpResponse<?> recovered = get();
        assertThat(recovered.code()).isEqualTo(429);
        assertThat(recovered.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
        assertThat(count(GridLimitMetrics.DECISIONS, "outcome", "denied", "mode", "grid")).isEqualTo(2.0);
    }

    @Test
    void aPolicyWhoseQuotaIsBelowTheExpectedReplicasIsNeverDecidedAloneItGets503() {
        start(null);
        grid.mode(Mode.SLOW);
        HttpResponse<?> r = get("/t/api");
        assertThat(r.code()).isEqualTo(503);
        assertThat(r.getHeaders().get("Retry-After")).isEqualTo("1");
        assertThat(r.getHeaders().get("RateLimit")).isNull();
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "two", "outcome", "fallback", "mode", "local"))
                .isEqualTo(1.0);
        grid.mode(Mode.UP);
        assertThat(get("/t/api").code()).isEqualTo(200);
    }

    private void start(String expectedReplicas) {
        Map<String, Object> props = new HashMap<>();
        props.put("micronaut.server.port", "-1");
        props.put("gridlimit-test.switchable-grid", "true");
        props.put("gridlimit-test.controllers", "true");
        props.put("gridlimit.failure-mode", "local");
        if (expectedReplicas != null) {
            props.put("gridlimit.local.expected-replicas", expectedReplicas);
        }
        props.put("gridlimit.warmup.enabled", "false");
        props.putAll(Ports.ownMember("gl-slow"));
        props.put("gridlimit.policies.hello.algorithm", "sliding-window-log");
        props.put("gridlimit.policies.hello.limit", Integer.toString(LIMIT));
        props.put("gridlimit.policies.hello.window", "10s");
        props.put("gridlimit.policies.two.algorithm", "fixed-window");
        props.put("gridlimit.policies.two.limit", "2");
        props.put("gridlimit.policies.two.window", "10s");
        // the test controllers' @RateLimited route names it
        props.put("gridlimit.policies.annot.algorithm", "fixed-window");
        props.put("gridlimit.policies.annot.limit", "2");
        props.put("gridlimit.policies.annot.window", "10s");
        props.put("gridlimit.routes", List.of(
                Map.of("pattern", "/t/hello", "methods", List.of("GET"), "policy", "hello",
                        "key", List.of("client-ip"), "cost", "1", "on-missing-key", "reject"),
                Map.of("pattern", "/t/api", "methods", List.of("GET"), "policy", "two",
                        "key", List.of("global"), "cost", "1", "on-missing-key", "reject")));
        server = ApplicationContext.run(EmbeddedServer.class, props);
        client = HttpClient.create(server.getURL());
        grid = server.getApplicationContext().getBean(SwitchableGrid.Grid.class);
        registry = server.getApplicationContext().getBean(MeterRegistry.class);
    }

    private HttpResponse<?> get() {
        return get("/t/hello");
    }

    private HttpResponse<?> get(String path) {
        try {
            return client.toBlocking().exchange(HttpRequest.GET(path), String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private double count(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }
}
