package io.gridlimit.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.decide.LocalFallbackFactory;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A grid too slow for the call's gRPC deadline (docs/SPEC.md §12, §10), on one embedded member whose clock holds
 * each reading while the test keeps its gate closed (the owner's decision waits on the partition thread, as on an
 * overloaded member): the call is answered by {@code failure-mode: local} within four fifths of its deadline, the
 * grid's admission that arrives afterwards is given back and counted ({@code reason=late}), a decision still queued
 * behind it on this replica is never sent, and the key is left exactly as before both calls.
 */
class EnvoyLateAdmissionTest {
    /** 2026-01-02T00:00:00Z, the grid's frozen reading. */
    static final long GRID_NOW = 1_767_312_000_000_000_000L;

    /** A frozen clock that holds each reading while its gate is closed. */
    static final class GateClock implements TimeSource {
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public long nowNanos() {
            try {
                gate.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return GRID_NOW;
        }
    }

    /** The member's gate clock, and local decisions on a manual clock of their own (exact shares). */
    @Factory
    @Requires(property = "envoy-test.gate-clock", value = "true")
    static class GateClockFactory {
        @Singleton
        @Replaces(TimeSource.class)
        GateClock gateClock() {
            return new GateClock();
        }

        @Singleton
        @Replaces(value = LocalFallback.class, factory = LocalFallbackFactory.class)
        LocalFallback localFallback(GridLimitConfig config) {
            return new LocalFallback(config.policies().values(), config.local(), new ManualTimeSource(GRID_NOW));
        }
    }

    private Rls rls;

    @AfterEach
    void stop() {
        if (rls != null) {
            rls.context.getBean(GateClock.class).gate.countDown();
            rls.close();
        }
    }

    private RateLimitResponse callWithDeadline(long cost) {
        return rls.stub.withDeadlineAfter(2, TimeUnit.SECONDS).shouldRateLimit(RateLimitRequest.newBuilder()
                .setDomain("mongo_cps").addDescriptors(d(cost, "database", "users")).build());
    }

    private double late(String result) {
        return rls.context.getBean(MeterRegistry.class).find(GridLimitMetrics.GIVE_BACKS)
                .tags("policy", "mongo_cps.database_users", "reason", "late", "result", result).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    @Test
    void aLateGridAdmissionIsGivenBackAndAQueuedOneIsNeverSent() {
        Map<String, Object> p = Rls.properties("envoy-late", "example1.yaml");
        p.remove("gridlimit-test.manual-clock");
        p.put("envoy-test.gate-clock", "true");
        p.put("gridlimit.failure-mode", "local");
        p.put("gridlimit.grid-timeout", "1h"); // the deadline bounds the wait
        rls = Rls.start(p);
        GateClock clock = rls.context.getBean(GateClock.class);
        assertThat(statuses(callWithDeadline(1))).containsExactly("OK 499/500 per SECOND");

        clock.gate = new CountDownLatch(1); // the owner now answers only once released
        // expected-replicas 3: a local share of floor(500 / 3) = 166 per second
        assertThat(statuses(callWithDeadline(7))).as("sent, held on the owner; answered locally")
                .containsExactly("OK 159/500 per SECOND");
        assertThat(statuses(callWithDeadline(3))).as("queued behind it on this replica; answered locally")
                .containsExactly("OK 156/500 per SECOND");
        assertThat(late("given-back")).isZero();

        clock.gate.countDown(); // the owner admits the 7 after its call was answered
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(late("given-back")).isEqualTo(1.0));
        // neither the 7 (given back) nor the 3 (never sent) stands: 499 left, this call takes 1
        assertThat(statuses(callWithDeadline(1))).containsExactly("OK 498/500 per SECOND");
        assertThat(late("given-back")).isEqualTo(1.0);
        assertThat(late("lost") + late("already-settled")).isZero();
    }
}
