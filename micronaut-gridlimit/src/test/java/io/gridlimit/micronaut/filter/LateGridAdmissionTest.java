package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.algorithm.SlidingWindowLogState;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code failure-mode: local} with a grid that answers after {@code grid-timeout} (docs/SPEC.md §10), over real
 * HTTP: the embedded member's clock holds every decision until the test releases it, so each request is decided
 * by the local share (3 of a log of 3 per hour with {@code expected-replicas: 1}: admitted, admitted, admitted,
 * then 429), and every grid admission that arrives after its request was answered is given back: the grid's key
 * is exactly as before, although the grid admitted three of the four requests.
 */
class LateGridAdmissionTest {
    /** A frozen clock that holds each reading while closed. */
    static final class GateClock implements TimeSource {
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public long nowNanos() {
            try {
                gate.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 1_767_225_600_000_000_000L;
        }
    }

    @Factory
    @Requires(property = "gridlimit-test.gate-clock", value = "true")
    static class GateClockFactory {
        @Singleton
        @Replaces(TimeSource.class)
        GateClock gateClock() {
            return new GateClock();
        }
    }

    @Test
    void lateGridAdmissionsOfRequestsTheLocalShareDecidedAreGivenBack() {
        Map<String, Object> props = new HashMap<>(Ports.ownMember("gl-late"));
        props.put("micronaut.server.port", -1);
        props.put("gridlimit-test.gate-clock", "true");
        props.put("gridlimit-test.controllers", "true");
        props.put("gridlimit.failure-mode", "local");
        props.put("gridlimit.grid-timeout", "20ms");
        props.put("gridlimit.local.expected-replicas", "1");
        props.put("gridlimit.warmup.enabled", "false");
        props.put("gridlimit.policies.late.algorithm", "sliding-window-log");
        props.put("gridlimit.policies.late.limit", "3");
        props.put("gridlimit.policies.late.window", "1h");
        props.put("gridlimit.policies.annot.algorithm", "fixed-window"); // TestController's @RateLimited
        props.put("gridlimit.policies.annot.limit", "2");
        props.put("gridlimit.policies.annot.window", "10s");
        props.put("gridlimit.routes[0].pattern", "/t/hello");
        props.put("gridlimit.routes[0].policy", "late");
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, props);
             HttpClient client = HttpClient.create(server.getURL())) {
            GateClock clock = server.getApplicationContext().getBean(GateClock.class);
            HazelcastInstance member = server.getApplicationContext().getBean(HazelcastInstance.class);
            MeterRegistry meters = server.getApplicationContext().getBean(MeterRegistry.class);
            clock.gate = new CountDownLatch(1); // the grid now answers only once released
            List<Integer> codes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                try {
                    codes.add(client.toBlocking().exchange(HttpRequest.GET("/t/hello"), String.class).code());
                } catch (HttpClientResponseException e) {
                    codes.add(e.getStatus().getCode());
                }
            }
            assertThat(codes).as("the local share decided").containsExactly(200, 200, 200, 429);
            clock.gate.countDown();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                double late = meters.find(GridLimitMetrics.GIVE_BACKS).tags("policy", "late", "reason", "late")
                        .counters().stream().mapToDouble(Counter::count).sum();
                // the first request left alone; the three behind it were queued, dropped when they timed out
                assertThat(late).as("late admissions given back").isGreaterThanOrEqualTo(1);
                LimiterState s = member.<String, LimiterState>getMap("gridlimit.late").get("ip:127.0.0.1");
                assertThat(s).isInstanceOf(ReservedState.class);
                assertThat(((ReservedState) s).inner()).isInstanceOfSatisfying(SlidingWindowLogState.class,
                        log -> assertThat(log.size()).as("no grid entry stands").isZero());
            });
        }
    }
}
