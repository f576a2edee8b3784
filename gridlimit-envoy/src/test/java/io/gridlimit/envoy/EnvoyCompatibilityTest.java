package io.gridlimit.envoy;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.headers;
import static io.gridlimit.envoy.Rls.override;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.MeterRegistry;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code gridlimit.envoy-rls.compatibility: reference} over gRPC to Envoy's generated stubs (docs/SPEC.md §12,
 * "Compatibility"), re-stating envoyproxy/ratelimit's own assertions: every hit counts ({@code hits_addend} over the
 * limit, test/redis/fixed_cache_impl_test.go), descriptors count each on its own, a peek at the limit is OK,
 * whole-second resets, its headers under configured names set through its own environment variables
 * (TestServiceWithCustomRatelimitHeaders: {@code A-Ratelimit-Limit 10, Remaining 0, Reset 58}), quota mode and the
 * global shadow mode (TestServiceGlobalShadowMode). One embedded member on a manual clock; every test starts 2 s
 * after a fresh UTC midnight.
 */
class EnvoyCompatibilityTest {
    static Rls rls;
    static ManualTimeSource clock;

    static String file() {
        return Path.of("src/test/resources/reference-mode/counting.yaml").toAbsolutePath().toString();
    }

    static Map<String, Object> properties(String cluster, Object... more) {
        Map<String, Object> p = Rls.properties(cluster, file());
        for (int i = 0; i < more.length; i += 2) {
            p.put((String) more[i], more[i + 1]);
        }
        return p;
    }

    @BeforeAll
    static void start() {
        // how Micronaut's environment source shows LIMIT_RESPONSE_HEADERS_ENABLED, LIMIT_LIMIT_HEADER, …
        rls = Rls.start(properties("envoy-compat", "gridlimit.envoy-rls.compatibility", "reference",
                "limit.response.headers.enabled", "true", "limit.limit.header", "A-Ratelimit-Limit",
                "limit.remaining.header", "A-Ratelimit-Remaining", "limit.reset.header", "A-Ratelimit-Reset"));
        clock = rls.context.getBean(ManualTimeSource.class);
    }

    @AfterAll
    static void stop() {
        rls.close();
    }

    @BeforeEach
    void twoSecondsAfterMidnight() {
        Rls.nextMidnight(clock);
        clock.advance(Duration.ofSeconds(2));
    }

    private static String answer(RateLimitResponse r) {
        return r.getOverallCode() + " " + statuses(r);
    }

    @Test
    void everyHitCountsOverTheLimitToo() {
        // the rule's series is shared with the other tests' keys of the rule: compared from here on
        double[] before = {stat("total_hits", "hits"), stat("within_limit", "hits"), stat("over_limit", "hits"),
            stat("near_limit", "hits"), stat("shadow_mode", "hits")};
        double deniedBefore = denied("counting.hits");
        RateLimitResponse first = rls.call("counting", d(2, "hits", "a"));
        assertThat(answer(first)).isEqualTo("OK [OK 1/3 per MINUTE]");
        assertThat(first.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(58);
        assertThat(first.getStatuses(0).getDurationUntilReset().getNanos()).isZero();
        assertThat(headers(first)).containsExactly(Map.entry("A-Ratelimit-Limit", "3"),
                Map.entry("A-Ratelimit-Remaining", "1"), Map.entry("A-Ratelimit-Reset", "58"));
        RateLimitResponse over = rls.call("counting", d(2, "hits", "a"));
        assertThat(answer(over)).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        // the reference's answer shape: no body, no Retry-After, no RateLimit fields, only its three headers
        assertThat(over.getRawBody().isEmpty()).isTrue();
        assertThat(headers(over)).containsExactly(Map.entry("A-Ratelimit-Limit", "3"),
                Map.entry("A-Ratelimit-Remaining", "0"), Map.entry("A-Ratelimit-Reset", "58"));
        // the denied 2 counted (4 of 3): a hit of 1 is over, where GridLimit's own counting would admit it
        assertThat(answer(rls.call("counting", d(1, "hits", "a")))).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        assertThat(answer(rls.call("counting", d(0, "hits", "a")))).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        // the next window starts empty; a peek at exactly the limit is OK
        clock.advance(Duration.ofSeconds(60));
        assertThat(answer(rls.call("counting", 3, d("hits", "a")))).isEqualTo("OK [OK 0/3 per MINUTE]");
        assertThat(answer(rls.call("counting", d(0, "hits", "a")))).isEqualTo("OK [OK 0/3 per MINUTE]");
        assertThat(denied("counting.hits") - deniedBefore).isEqualTo(2.0); // the peeks are not counted
        // the reference's stats, worked by hand (near limit: floor(3 × 0.8) = 2): hits 2 within; 2 over with 1
        // above the limit and 1 near it; 1 over; 3 within, 1 of them above 2
        assertThat(stat("total_hits", "hits") - Math.max(0, before[0])).isEqualTo(8.0);
        assertThat(stat("within_limit", "hits") - Math.max(0, before[1])).isEqualTo(5.0);
        assertThat(stat("over_limit", "hits") - Math.max(0, before[2])).isEqualTo(2.0);
        assertThat(stat("near_limit", "hits") - Math.max(0, before[3])).isEqualTo(2.0);
        assertThat(stat("shadow_mode", "hits")).isZero();
    }

    /** One of the reference's stats of a one-level rule of domain counting (its key2 empty). */
    private static double stat(String name, String key1) {
        var g = rls.context.getBean(MeterRegistry.class).find(RlsStats.PREFIX + name).tag("domain", "counting")
                .tag("key1", key1).tag("key2", "").gauge();
        return g == null ? -1 : g.value();
    }

    private static double denied(String policy) {
        var c = rls.context.getBean(MeterRegistry.class).find("gridlimit.decisions").tag("policy", policy)
                .tag("outcome", "denied").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void descriptorsCountEachOnItsOwnAndTheOverLimitOneGivesTheHeaders() {
        // a block list makes the call OVER_LIMIT; the other descriptor's hit stands (nothing is given back)
        assertThat(answer(rls.call("counting", d("hits", "b"), d("blocked", "x")))).isEqualTo(
                "OVER_LIMIT [OK 2/3 per MINUTE, OVER_LIMIT 0/0 per HOUR]");
        RateLimitResponse again = rls.call("counting", d("hits", "b"), d("blocked", "x"));
        assertThat(answer(again)).isEqualTo("OVER_LIMIT [OK 1/3 per MINUTE, OVER_LIMIT 0/0 per HOUR]");
        // the headers are the OVER_LIMIT descriptor's: its limit 0 and the time left in its hour
        assertThat(headers(again)).containsExactly(Map.entry("A-Ratelimit-Limit", "0"),
                Map.entry("A-Ratelimit-Remaining", "0"), Map.entry("A-Ratelimit-Reset", "3598"));
        // a peek at a block list is OVER_LIMIT: nothing is stored for it, so it cannot tell whether the window was
        // hit (the reference answers OK only for a window nothing hit; found by attack: after a hit it is over)
        assertThat(answer(rls.call("counting", d(0, "blocked", "x")))).isEqualTo(
                "OVER_LIMIT [OVER_LIMIT 0/0 per HOUR]");
    }

    @Test
    void headersFollowTheLeastRemainingAndSkipDescriptorsWithoutALimit() {
        RateLimitResponse r = rls.call("counting", d("foo", "f"), d("open", "o"), d("hits", "c"), d("none", "n"));
        assertThat(answer(r)).isEqualTo("OK [OK 9/10 per MINUTE, OK 4294967295, OK 2/3 per MINUTE, OK 0]");
        assertThat(headers(r)).containsExactly(Map.entry("A-Ratelimit-Limit", "3"),
                Map.entry("A-Ratelimit-Remaining", "2"), Map.entry("A-Ratelimit-Reset", "58"));
        // no descriptor with a limit: no headers
        assertThat(rls.call("counting", d("open", "o"), d("none", "n")).getResponseHeadersToAddList()).isEmpty();
    }

    @Test
    void resetsAreWholeSecondsToTheUnitsWindow() {
        clock.advance(Duration.ofMillis(250)); // 2.25 s after midnight
        RateLimitResponse r = rls.call("counting", d("foo", "g"));
        assertThat(r.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(58);
        assertThat(r.getStatuses(0).getDurationUntilReset().getNanos()).isZero();
        // a peek of a key nothing has counted yet: from the replica's clock, as the reference always computes it
        RateLimitResponse peek = rls.call("counting", d(0, "foo", "unseen"));
        assertThat(answer(peek)).isEqualTo("OK [OK 10/10 per MINUTE]");
        assertThat(peek.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(58);
    }

    @Test
    void quotaAndShadowModeDescriptorsAnswerAsTheReferenceDoes() {
        assertThat(answer(rls.call("counting", d("quota", "q")))).isEqualTo("OK [OK 0/1 per SECOND]");
        // every quota-mode descriptor is over: the call is OVER_LIMIT; the headers are of the least remaining
        RateLimitResponse quota = rls.call("counting", d("quota", "q"));
        assertThat(answer(quota)).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/1 per SECOND]");
        assertThat(headers(quota)).containsEntry("A-Ratelimit-Remaining", "0");
        // one quota-mode descriptor of two over its limit leaves the call OK (TestServiceQuotaModeOnlySomeOverTheLimit)
        assertThat(answer(rls.call("counting", d("quota", "q"), d("quota", "r")))).isEqualTo(
                "OK [OVER_LIMIT 0/1 per SECOND, OK 0/1 per SECOND]");
        // all of them over, beside a descriptor under its limit: OVER_LIMIT (TestServiceQuotaModeOnlyAllOverTheLimit)
        assertThat(answer(rls.call("counting", d("quota", "q"), d("foo", "h")))).isEqualTo(
                "OVER_LIMIT [OVER_LIMIT 0/1 per SECOND, OK 9/10 per MINUTE]");
        // shadow mode: over its limit, answered OK, counted in shadow_mode
        double shadowBefore = stat("shadow_mode", "shadow");
        assertThat(answer(rls.call("counting", d("shadow", "s")))).isEqualTo("OK [OK 0/1 per MINUTE]");
        assertThat(answer(rls.call("counting", d("shadow", "s")))).isEqualTo("OK [OK 0/1 per MINUTE]");
        assertThat(stat("shadow_mode", "shadow") - Math.max(0, shadowBefore)).isEqualTo(1.0);
    }

    @Test
    void anOverrideOfTheRulesUnitCountsOnTheRulesCounterEveryHitIncluded() {
        // found by attack: the override counted on its own counter and lifted a rule the window had used up. The
        // reference keys a rule and an override of one unit by domain, entries and window start: one counter
        RateLimitDescriptor lift = d(2, "hits", "lift");
        assertThat(answer(rls.call("counting", lift))).isEqualTo("OK [OK 1/3 per MINUTE]");
        assertThat(answer(rls.call("counting", lift))).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        // 4 counted, the denied 2 included: an override of 5 per minute has 1 left, then its own hit is over
        assertThat(answer(rls.call("counting", override(d("hits", "lift"), 5, RateLimitUnit.MINUTE))))
                .isEqualTo("OK [OK 0/5 per MINUTE]");
        assertThat(answer(rls.call("counting", override(d("hits", "lift"), 5, RateLimitUnit.MINUTE))))
                .isEqualTo("OVER_LIMIT [OVER_LIMIT 0/5 per MINUTE]");
        // 6 counted: the rule stays over; an override of hours is its own counter
        assertThat(answer(rls.call("counting", d(0, "hits", "lift")))).isEqualTo(
                "OVER_LIMIT [OVER_LIMIT 0/3 per MINUTE]");
        assertThat(answer(rls.call("counting", override(d("hits", "lift"), 5, RateLimitUnit.HOUR))))
                .isEqualTo("OK [OK 4/5 per HOUR]");
        // the next minute starts both at 0
        clock.advance(Duration.ofSeconds(60));
        assertThat(answer(rls.call("counting", override(d("hits", "lift"), 5, RateLimitUnit.MINUTE))))
                .isEqualTo("OK [OK 4/5 per MINUTE]");
        assertThat(answer(rls.call("counting", d("hits", "lift")))).isEqualTo("OK [OK 1/3 per MINUTE]");
    }

    /** The reference's read-then-increment race is not reproduced: concurrent hits of one key pass exactly the limit. */
    @Test
    void concurrentHitsOfOneKeyPassExactlyTheLimit() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<RateLimitResponse.Code>> calls = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                calls.add(pool.submit(() -> rls.call("counting", d("foo", "race")).getOverallCode()));
            }
            int ok = 0;
            for (var c : calls) {
                ok += c.get() == RateLimitResponse.Code.OK ? 1 : 0;
            }
            assertThat(ok).isEqualTo(10);
            // all 40 counted: a peek sees the window over its limit
            assertThat(answer(rls.call("counting", d(0, "foo", "race")))).isEqualTo(
                    "OVER_LIMIT [OVER_LIMIT 0/10 per MINUTE]");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theGlobalShadowModeAnswersOkAndCountsInBothModes() {
        for (String mode : List.of("reference", "gridlimit")) {
            // SHADOW_MODE, as Micronaut's environment source shows it
            Map<String, Object> p = properties("envoy-compat-shadow-" + mode, "gridlimit.envoy-rls.compatibility",
                    mode, "shadow.mode", "true");
            try (Rls shadow = Rls.start(p)) {
                ManualTimeSource c = shadow.context.getBean(ManualTimeSource.class);
                Rls.nextMidnight(c);
                assertThat(answer(shadow.call("counting", d(3, "hits", "a")))).isEqualTo("OK [OK 0/3 per MINUTE]");
                // the statuses keep their codes (the reference's TestServiceGlobalShadowMode)
                assertThat(answer(shadow.call("counting", d("foo", "x"), d("hits", "a")))).as(mode).isEqualTo(
                        "OK [OK 9/10 per MINUTE, OVER_LIMIT 0/3 per MINUTE]");
                // answered OK, so the admitted descriptor's decision stands in both modes
                assertThat(answer(shadow.call("counting", d("foo", "x")))).as(mode).isEqualTo(
                        "OK [OK 8/10 per MINUTE]");
                var counter = shadow.context.getBean(MeterRegistry.class).find(RlsCompatibility.GLOBAL_SHADOW)
                        .counter();
                assertThat(counter).isNotNull();
                assertThat(counter.count()).isEqualTo(1.0);
            }
        }
    }
}
