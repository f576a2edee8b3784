package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * All-or-nothing requests (docs/SPEC.md §12, §10) over gRPC with Envoy's generated stubs, on one embedded member
 * with a manual clock: when a descriptor not in shadow mode is OVER_LIMIT, every admitted descriptor of the request
 * is given back, so the others' keys are left exactly as before (a fixed window, a token bucket, a shadow-mode
 * descriptor); a shadow-mode denial makes nothing OVER_LIMIT and gives nothing back. Each give-back is awaited on
 * its counter ({@value GridLimitMetrics#GIVE_BACKS}) before the next request, so every remaining is exact.
 */
class EnvoyAllOrNothingTest {
    static Rls rls;
    static ManualTimeSource clock;
    static MeterRegistry meters;

    @BeforeAll
    static void start() {
        rls = Rls.start(Rls.properties("envoy-atomic", "example2.yaml", "example6.yaml", "buckets.yaml"));
        clock = rls.context.getBean(ManualTimeSource.class);
        meters = rls.context.getBean(MeterRegistry.class);
    }

    @AfterAll
    static void stop() {
        rls.close();
    }

    @BeforeEach
    void nextMidnight() {
        Rls.nextMidnight(clock);
    }

    /** @return the give-backs of a policy counted with that reason and result */
    static double giveBacks(String policy, String reason, String result) {
        return meters.find(GridLimitMetrics.GIVE_BACKS).tags("policy", policy, "reason", reason, "result", result)
                .counters().stream().mapToDouble(Counter::count).sum();
    }

    private static void awaitGiveBacks(String policy, double count) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(giveBacks(policy, "denied", "given-back")).isEqualTo(count));
    }

    @Test
    void aSecondDescriptorsDenialLeavesTheFirstFixedWindowExactlyAsBefore() {
        String policy = "messaging.to_number";
        double before = giveBacks(policy, "denied", "given-back");
        RateLimitDescriptor number = d("to_number", "2064444444");
        RateLimitDescriptor marketing = d("message_type", "marketing", "to_number", "2064444444");
        assertThat(statuses(rls.call("messaging", 5, marketing))).containsExactly("OK 0/5 per DAY");
        assertThat(statuses(rls.call("messaging", 3, number))).containsExactly("OK 97/100 per DAY");
        // repeated denied requests never drain the number's own limit: each admission is given back
        for (int i = 1; i <= 20; i++) {
            RateLimitResponse r = rls.call("messaging", number, marketing);
            assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
            // the answer shows the admission as decided (96 after it); its cost is then given back
            assertThat(statuses(r)).containsExactly("OK 96/100 per DAY", "OVER_LIMIT 0/5 per DAY");
            awaitGiveBacks(policy, before + i);
        }
        assertThat(statuses(rls.call("messaging", number))).as("as before the 20 denied requests: 97 left")
                .containsExactly("OK 96/100 per DAY");
        assertThat(giveBacks("messaging.message_type_marketing.to_number", "denied", "given-back"))
                .as("a denial took nothing to give back").isZero();
    }

    @Test
    void aSecondDescriptorsDenialLeavesTheFirstTokenBucketExactlyAsBefore() {
        String policy = "buckets.api_key";
        double before = giveBacks(policy, "denied", "given-back");
        RateLimitDescriptor key = d(2, "api_key", "k-atomic");
        RateLimitDescriptor tenant = d("tenant", "t-atomic");
        // the tenant's log of 3 per minute is exhausted; the bucket (capacity 5, 2 per second) is full
        assertThat(statuses(rls.call("buckets", 3, tenant))).containsExactly("OK 0/3 per MINUTE");
        for (int i = 1; i <= 5; i++) {
            assertThat(statuses(rls.call("buckets", key, tenant))).containsExactly("OK 3/2 per SECOND",
                    "OVER_LIMIT 0/3 per MINUTE");
            awaitGiveBacks(policy, before + i);
        }
        // the clock has not moved: a full bucket of 5 takes 1 and leaves 4, as if no request had come before
        assertThat(statuses(rls.call("buckets", d(1, "api_key", "k-atomic")))).containsExactly("OK 4/2 per SECOND");
    }

    @Test
    void shadowModeDenialsGiveNothingBackAndShadowAdmissionsAreGivenBackWithTheRequest() {
        RateLimitDescriptor a = d("service", "atomic-service", "user", "user-a"); // shadow mode, 10 per second
        RateLimitDescriptor b = d("service", "atomic-service", "user", "user-b"); // 20 per second
        String policyB = "example6.service.user_user-b";
        String policyA = "example6.service.user_user-a";
        double beforeA = giveBacks(policyA, "denied", "given-back");
        double beforeB = giveBacks(policyB, "denied", "given-back");
        assertThat(statuses(rls.call("example6", 10, a))).containsExactly("OK 0/10 per SECOND");
        // a shadow denial does not make the request OVER_LIMIT: user-b's admission stands
        RateLimitResponse shadowDenied = rls.call("example6", b, a);
        assertThat(shadowDenied.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(shadowDenied)).containsExactly("OK 19/20 per SECOND", "OK 0/10 per SECOND");
        assertThat(statuses(rls.call("example6", 19, b))).containsExactly("OK 0/20 per SECOND");
        assertThat(giveBacks(policyB, "denied", "given-back")).isEqualTo(beforeB);
        // the next second: user-a (shadow) admitted, user-b denied: user-a's admission is given back as well
        clock.advance(Duration.ofSeconds(1));
        assertThat(statuses(rls.call("example6", 20, b))).containsExactly("OK 0/20 per SECOND");
        RateLimitResponse denied = rls.call("example6", a, b);
        assertThat(denied.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
        assertThat(statuses(denied)).containsExactly("OK 9/10 per SECOND", "OVER_LIMIT 0/20 per SECOND");
        awaitGiveBacks(policyA, beforeA + 1);
        assertThat(statuses(rls.call("example6", a))).containsExactly("OK 9/10 per SECOND");
    }
}
