package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.SwitchableGrid;
import io.gridlimit.micronaut.support.SwitchableGrid.Mode;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code failure-mode: local} (docs/SPEC.md §5) over HTTP, with a grid a test switches off and on
 * ({@link SwitchableGrid}) and a manual local clock: while the grid does not answer within {@code grid-timeout}
 * (or fails) each request is decided on the replica's local approximation, the policy's quota divided by
 * {@code gridlimit.local.expected-replicas} and rounded down (3 here: policy {@code hello}, a sliding-window log
 * of 5 per 10 s, becomes 1 per 10 s; a quota below 3 has no share and answers 503); its headers are the local decision's; each is counted as {@code outcome=fallback,
 * mode=local}; as soon as the grid answers again the decisions are the grid's.
 */
class LocalFailureModeTest {
    private static final String CLIENT = "192.0.2.1";
    private static final long WINDOW_PLUS_1NS = 10_000_000_001L;

    private EmbeddedServer server;
    private HttpClient client;
    private SwitchableGrid.Grid grid;
    private ManualTimeSource localClock;
    private MeterRegistry registry;

    @BeforeEach
    void start() {
        Map<String, Object> props = new HashMap<>();
        props.put("gridlimit.failure-mode", "local");
        props.put("gridlimit.grid-timeout", "50ms");
        props.put("gridlimit.local.expected-replicas", "3");
        props.put("gridlimit.local.max-keys", "1000");
        props.put("gridlimit-test.switchable-grid", "true");
        props.put("gridlimit.warmup.enabled", "false");
        props.putAll(Ports.ownMember("gl-local"));
        server = ApplicationContext.run(EmbeddedServer.class, props, "gl-filter");
        client = HttpClient.create(server.getURL());
        grid = server.getApplicationContext().getBean(SwitchableGrid.Grid.class);
        localClock = server.getApplicationContext().getBean(SwitchableGrid.LocalClock.class).time();
        registry = server.getApplicationContext().getBean(MeterRegistry.class);
        assertThat(server.getApplicationContext().getBean(GridLimitConfig.class).local())
                .isEqualTo(new LocalFallbackSettings(1000, 3));
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void aSilentGridIsReplacedByTheLocalDecisionWithTheDividedQuotaUntilItAnswersAgain() {
        grid.mode(Mode.NEVER);
        // sliding-window log, 5 per 10 s divided by 3 replicas: floor(5/3) = 1 per 10 s, decided on the local clock
        HttpResponse<?> first = get("/t/hello");
        assertThat(first.code()).isEqualTo(200);
        assertThat(first.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=1;w=10");
        // the entry counts until t + W, its capacity returns at t + W + 1 ns: 10 s + 1 ns, rounded up to 11 s
        assertThat(first.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");
        assertThat(first.getHeaders().get("X-RateLimit-Limit")).isEqualTo("1");

        localClock.advanceNanos(1_000_000_000L);
        HttpResponse<?> second = get("/t/hello");
        assertThat(second.code()).isEqualTo(429);
        // the first entry's capacity returns 9 s + 1 ns from now
        assertThat(second.getHeaders().get("Retry-After")).isEqualTo("10");
        assertThat(second.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=10");
        assertThat(second.getBody(String.class).orElseThrow()).contains("\"violated-policies\":[\"hello\"]");

        // 9 s + 1 ns later the first entry's capacity is back: admitted locally
        localClock.advanceNanos(WINDOW_PLUS_1NS - 1_000_000_000L);
        HttpResponse<?> third = get("/t/hello");
        assertThat(third.code()).isEqualTo(200);
        assertThat(third.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");

        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback", "mode", "local"))
                .isEqualTo(3.0);
        assertThat(count(GridLimitMetrics.GRID_ERRORS, "policy", "hello", "reason", "timeout")).isEqualTo(3.0);
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "denied", "mode", "grid"))
                .as("a local denial is a fallback, not a grid denial").isEqualTo(0.0);

        // the grid answers again: the very next request is the grid's decision, with the full quota
        grid.mode(Mode.UP);
        HttpResponse<?> recovered = get("/t/hello");
        assertThat(recovered.code()).isEqualTo(200);
        assertThat(recovered.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
        assertThat(recovered.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=4;t=11");
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "allowed", "mode", "grid"))
                .isEqualTo(1.0);
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback", "mode", "local"))
                .isEqualTo(3.0);
        assertThat(grid.calls()).as("every request asked the grid first").isEqualTo(4);
    }

    @Test
    void aFailingGridFallsBackLocallyAndTheLocalStateCarriesOverBetweenOutages() {
        grid.mode(Mode.FAIL);
        assertThat(get("/t/hello").getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");
        grid.mode(Mode.UP);
        assertThat(get("/t/hello").getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=4;t=11");
        // the second outage decides on what this replica counted during the first (same local window)
        grid.mode(Mode.FAIL);
        HttpResponse<?> again = get("/t/hello");
        assertThat(again.code()).isEqualTo(429);
        assertThat(again.getHeaders().get("RateLimit")).isEqualTo("\"hello\";r=0;t=11");

        assertThat(count(GridLimitMetrics.GRID_ERRORS, "policy", "hello", "reason", "failure")).isEqualTo(2.0);
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "fallback", "mode", "local"))
                .isEqualTo(2.0);
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "hello", "outcome", "allowed", "mode", "grid"))
                .isEqualTo(1.0);
    }

    @Test
    void aCompositePolicyIsDividedBandByBand() {
        grid.mode(Mode.NEVER);
        // tiered: burst GCRA C=10, 1 per 1 s -> C=3, 1 per 3 s; hourly fixed window 1000 per 1 h -> 333 per 1 h
        HttpResponse<?> r = get("/t/tiered");
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.getHeaders().get("RateLimit-Policy"))
                .isEqualTo("\"tiered/burst\";q=3;w=9, \"tiered/hourly\";q=333;w=3600");
        // binding band: the smallest remaining, burst with 2 left; its TAT is 3 s ahead
        assertThat(r.getHeaders().get("RateLimit")).isEqualTo("\"tiered/burst\";r=2;t=3");
    }

    @Test
    void aRuleWhosePolicyHasNoShareAnswers503AsClosedAfterTheRulesBeforeItWereDecidedLocally() {
        grid.mode(Mode.FAIL);
        // /t/multi: multi-a, 3 per 10 s, has a share of 1; multi-b, 2 per 10 s, has none (floor(2/3) = 0)
        HttpResponse<?> r = get("/t/multi");
        assertThat(r.code()).isEqualTo(503);
        assertThat(r.getHeaders().get("Retry-After")).isEqualTo("1");
        assertThat(r.getBody(String.class).orElseThrow()).contains(ResponseWriter.TEMPORARY_REDUCED_CAPACITY);
        assertThat(server.getApplicationContext().getBean(LocalFallback.class).withoutShare())
                .containsExactlyInAnyOrder("shadowed", "multi-b", "annot", "health");
        assertThat(count(GridLimitMetrics.DECISIONS, "policy", "multi-b", "outcome", "fallback", "mode", "local"))
                .isEqualTo(1.0);
    }

    private HttpResponse<?> get(String path) {
        try {
            return client.toBlocking().exchange(HttpRequest.GET(path).header("X-Forwarded-For", CLIENT),
                    String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private double count(String name, String... tags) {
        Counter c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }
}
