package io.gridlimit.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.app.support.SharedClock;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
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
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A decision-API request answered 503 after its timeout consumes nothing (docs/SPEC.md §10): with
 * {@code gridlimit.decision-api.timeout: 20ms} and a grid slowed to 5 ms per decision (its clock parks the
 * partition thread), a batch of 100 checks on one key answers {@code 503 Retry-After: 1}, and once the answers in
 * flight have arrived the key holds exactly its 1000 tokens again. The 503 is certain whatever the machine's speed:
 * the key's checks are decided one after another, 100 × 5 ms past 20 ms.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionApiTimeoutTest implements TestPropertyProvider {
    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient client;

    @Inject
    SlowClock clock;

    @Inject
    HazelcastInstance member;

    @Inject
    MeterRegistry meters;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v).replace("[", "")
                .replace("]", "")));
        p.remove(SharedClock.PROPERTY);
        p.put("gridlimit-svc-test.slow-clock", "true");
        p.put("gridlimit.decision-api.timeout", "20ms");
        p.put("gridlimit.policies.big.algorithm", "token-bucket");
        p.put("gridlimit.policies.big.capacity", "1000");
        p.put("gridlimit.policies.big.refill-tokens", "1");
        p.put("gridlimit.policies.big.refill-period", "1h");
        return p;
    }

    /** A frozen clock that parks the reading thread (the partition thread) while slowed. */
    static final class SlowClock implements TimeSource {
        volatile long delayNanos;

        @Override
        public long nowNanos() {
            long d = delayNanos;
            if (d > 0) {
                LockSupport.parkNanos(d);
            }
            return SharedClock.START.getEpochSecond() * 1_000_000_000L;
        }
    }

    @Factory
    @Requires(property = "gridlimit-svc-test.slow-clock", value = "true")
    static class SlowClockFactory {
        @Singleton
        @Replaces(TimeSource.class)
        SlowClock slowClock() {
            return new SlowClock();
        }
    }

    private double count(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aBatchAnswered503AfterItsTimeoutLeavesTheKeyExactlyAsBefore() {
        StringBuilder body = new StringBuilder("{\"checks\":[");
        for (int i = 0; i < 100; i++) {
            body.append(i == 0 ? "" : ",").append("{\"policy\":\"big\",\"key\":\"k\",\"cost\":1}");
        }
        body.append("]}");
        clock.delayNanos = TimeUnit.MILLISECONDS.toNanos(5);
        HttpResponse<String> response = Http.exchange(client.toBlocking(),
                HttpRequest.POST("/v1/ratelimit/check/batch", body.toString()).contentType(MediaType.APPLICATION_JSON));
        assertThat(response.code()).isEqualTo(503);
        assertThat(response.header("Retry-After")).isEqualTo("1");
        clock.delayNanos = 0;

        // every admission the API saw is given back (reason=failed), the one in flight by the limiter (late)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            double seen = count(GridLimitMetrics.DECISIONS, "policy", "big", "source", "api", "outcome", "allowed");
            double failed = count(GridLimitMetrics.GIVE_BACKS, "policy", "big", "reason", "failed",
                    "result", "given-back");
            double late = count(GridLimitMetrics.GIVE_BACKS, "policy", "big", "reason", "late",
                    "result", "given-back");
            assertThat(failed).isEqualTo(seen);
            assertThat(seen + late).as("at least one check was sent").isGreaterThanOrEqualTo(1);
            assertThat(seen).as("the chain stopped sending at the 503").isLessThan(100);
            LimiterState state = member.<String, LimiterState>getMap(GridLimitHazelcast.mapName("big")).get("k");
            assertThat(state).isInstanceOf(ReservedState.class);
            assertThat(((ReservedState) state).inner()).isInstanceOfSatisfying(TokenBucketState.class,
                    s -> assertThat(s.tokens()).isEqualTo(1000));
        });
        assertThat(count(GridLimitMetrics.GIVE_BACKS, "policy", "big", "result", "lost")).isZero();
    }
}
