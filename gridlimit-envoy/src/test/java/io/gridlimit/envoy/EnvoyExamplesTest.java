package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.time.ManualTimeSource;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.headers;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * envoyproxy/ratelimit's documented configuration examples, read unchanged, answered over gRPC to Envoy's own
 * generated client stubs with exact OK / OVER_LIMIT sequences and remaining values (docs/SPEC.md §12). One embedded
 * member on a manual clock; every test starts at a fresh UTC midnight, so every window (1 s to 1 day) is fresh and
 * aligned.
 */
class EnvoyExamplesTest {
    static Rls rls;
    static ManualTimeSource clock;

    @BeforeAll
    static void start() {
        rls = Rls.start(Rls.properties("envoy-examples", "example1.yaml", "example2.yaml",
                "example3-without-blocklist.yaml", "example4.yaml", "example5.yaml", "example6.yaml",
                "example7.yaml", "buckets.yaml"));
        clock = rls.context.getBean(ManualTimeSource.class);
    }

    @AfterAll
    static void stop() {
        rls.close();
    }

    @BeforeEach
    void nextMidnight() {
        Rls.nextMidnight(clock);
    }


    @Test
    void example1DatabaseUsersGets500PerSecondAndUnknownValuesAreNotLimited() {
        RateLimitResponse first = rls.call("mongo_cps", 499, d("database", "users"));
        assertThat(statuses(first)).containsExactly("OK 1/500 per SECOND");
        assertThat(first.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(1);
        assertThat(rls.sequence(2, "mongo_cps", d("database", "users"))).containsExactly(
                "OK [OK 0/500 per SECOND]", "OVER_LIMIT [OVER_LIMIT 0/500 per SECOND]");
        // "default" has a limit of its own; a value with no descriptor is not limited at all
        assertThat(statuses(rls.call("mongo_cps", d("database", "default")))).containsExactly("OK 499/500 per SECOND");
        assertThat(rls.sequence(1, "mongo_cps", d("database", "orders"))).containsExactly("OK [OK 0]");
        clock.advance(Duration.ofSeconds(1));
        assertThat(statuses(rls.call("mongo_cps", d("database", "users")))).containsExactly("OK 499/500 per SECOND");
    }

    @Test
    void example2MarketingMessagesAre5ADayPerNumberBeside100ADayPerNumber() {
        RateLimitDescriptor marketing = d("message_type", "marketing", "to_number", "2061111111");
        RateLimitDescriptor number = d("to_number", "2061111111");
        assertThat(rls.sequence(6, "messaging", marketing, number)).containsExactly(
                "OK [OK 4/5 per DAY, OK 99/100 per DAY]",
                "OK [OK 3/5 per DAY, OK 98/100 per DAY]",
                "OK [OK 2/5 per DAY, OK 97/100 per DAY]",
                "OK [OK 1/5 per DAY, OK 96/100 per DAY]",
                "OK [OK 0/5 per DAY, OK 95/100 per DAY]",
                // the request is denied: the number's own descriptor was admitted (94 after it, as answered) and
                // is then given back (SPEC §12 all-or-nothing; EnvoyAllOrNothingTest shows it exactly)
                "OVER_LIMIT [OVER_LIMIT 0/5 per DAY, OK 94/100 per DAY]");
        // another number has limits of its own
        assertThat(rls.sequence(1, "messaging", d("message_type", "marketing", "to_number", "2062222222"),
                d("to_number", "2062222222"))).containsExactly("OK [OK 4/5 per DAY, OK 99/100 per DAY]");
        // a placeholder descriptor without a limit is not limited
        assertThat(rls.sequence(1, "messaging", d("message_type", "marketing"))).containsExactly("OK [OK 0]");
    }

    @Test
    void headersRetryAfterAndTheProblemBodyOnOverLimit() {
        RateLimitDescriptor marketing = d("message_type", "marketing", "to_number", "2063333333");
        RateLimitDescriptor number = d("to_number", "2063333333");
        RateLimitResponse ok = rls.call("messaging", marketing, number);
        assertThat(headers(ok)).containsExactly(
                entry("RateLimit-Policy", "\"messaging.message_type_marketing.to_number\";q=5;w=86400, "
                        + "\"messaging.to_number\";q=100;w=86400"),
                entry("RateLimit", "\"messaging.message_type_marketing.to_number\";r=4;t=86400"));
        assertThat(ok.getRawBody().isEmpty()).isTrue();
        rls.call("messaging", 4, marketing);
        clock.advance(Duration.ofHours(23));
        RateLimitResponse over = rls.call("messaging", marketing, number);
        assertThat(over.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
        assertThat(headers(over)).containsExactly(
                entry("RateLimit-Policy", "\"messaging.message_type_marketing.to_number\";q=5;w=86400, "
                        + "\"messaging.to_number\";q=100;w=86400"),
                entry("RateLimit", "\"messaging.message_type_marketing.to_number\";r=0;t=3600"),
                entry("Retry-After", "3600"),
                entry("content-type", "application/problem+json"));
        assertThat(over.getRawBody().toString(StandardCharsets.UTF_8)).isEqualTo("{\"type\":"
                + "\"https://iana.org/assignments/http-problem-types#quota-exceeded\",\"title\":\"Request cannot be "
                + "satisfied as assigned quota has been exceeded\",\"status\":429,\"detail\":\"Quota of policy "
                + "'messaging.message_type_marketing.to_number' exceeded; retry after 3600 s.\","
                + "\"violated-policies\":[\"messaging.message_type_marketing.to_number\"]}");
        assertThat(over.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(3600);
    }

    private static java.util.Map.Entry<String, String> entry(String k, String v) {
        return java.util.Map.entry(k, v);
    }

    @Test
    void example3KeyAndValueIsMatchedBeforeKeyAlone() {
        assertThat(rls.sequence(3, "edge_proxy_per_ip", d("remote_address", "50.0.0.5"))).containsExactly(
                "OK [OK 1/2 per SECOND]", "OK [OK 0/2 per SECOND]", "OVER_LIMIT [OVER_LIMIT 0/2 per SECOND]");
        assertThat(rls.sequence(1, "edge_proxy_per_ip", d("remote_address", "50.0.0.1")))
                .containsExactly("OK [OK 9/10 per SECOND]");
    }

    @Test
    void example4RulesApplyOnlyAtTheDescriptorsDepth() {
        assertThat(rls.sequence(1, "example4", d("key", "value", "subkey", "subvalue")))
                .containsExactly("OK [OK 299/300 per SECOND]");
        assertThat(rls.sequence(1, "example4", d("key", "value"))).containsExactly("OK [OK 0]");
        assertThat(rls.sequence(1, "example4", d("flat", "value", "subkey", "subvalue"))).containsExactly("OK [OK 0]");
    }

    @Test
    void example5UnlimitedAnswersOkWithMaxUint32Remaining() {
        RateLimitResponse r = rls.call("internal", d("ldap", "x"), d("azure", "y"));
        assertThat(statuses(r)).containsExactly("OK 4294967295", "OK 99/100 per MINUTE");
        assertThat(headers(r)).containsEntry("RateLimit", "\"internal.azure\";r=99;t=60");
    }

    @Test
    void example6ShadowModeIsDecidedAndCountedButNeverOverLimit() {
        RateLimitDescriptor a = d("service", "auth-service", "user", "user-a");
        List<String> seq = rls.sequence(12, "example6", a);
        assertThat(seq.subList(0, 10)).allMatch(s -> s.startsWith("OK [OK "));
        assertThat(seq.get(9)).isEqualTo("OK [OK 0/10 per SECOND]");
        // denied in shadow: answered OK, and (SPEC §3) a denial consumes nothing
        assertThat(seq.subList(10, 12)).containsExactly("OK [OK 0/10 per SECOND]", "OK [OK 0/10 per SECOND]");
        assertThat(rls.context.getBean(MeterRegistry.class).get("gridlimit.decisions")
                .tag("policy", "example6.service.user_user-a").tag("outcome", "shadow_denied")
                .tag("source", "envoy").counter().count()).isEqualTo(2.0);
        RateLimitDescriptor b = d("service", "auth-service", "user", "user-b");
        List<String> seqB = rls.sequence(21, "example6", b);
        assertThat(seqB.get(19)).isEqualTo("OK [OK 0/20 per SECOND]");
        assertThat(seqB.get(20)).isEqualTo("OVER_LIMIT [OVER_LIMIT 0/20 per SECOND]");
    }

    @Test
    void example7TheReplacingRuleDropsTheReplacedOne() {
        RateLimitDescriptor one = d("key_1", "value_1", "user", "bkthomps");
        RateLimitDescriptor two = d("key_2", "value_2", "user", "bkthomps");
        List<String> both = rls.sequence(10, "example7", one, two);
        assertThat(both.get(0)).isEqualTo("OK [OK 0, OK 9/10 per SECOND]");
        assertThat(both.get(9)).isEqualTo("OK [OK 0, OK 0/10 per SECOND]");
        // the replaced 5/s limit was not asked by the 10 requests that carried both: alone, it finds all 5. (Asked
        // first, its state would have to outlive the 10 calls in real time: a state's TTL is real time, the clock
        // here is manual, and a loaded machine took over 2 s for them once.)
        assertThat(rls.sequence(1, "example7", one)).containsExactly("OK [OK 4/5 per SECOND]");
        assertThat(rls.sequence(1, "example7", one, two)).containsExactly("OVER_LIMIT [OK 0, OVER_LIMIT 0/10 per SECOND]");
    }

    @Test
    void hitsAddendAtBothLevelsAndPeeks() {
        // request level: 3 per descriptor; a descriptor's own hits_addend overrides it
        assertThat(statuses(rls.call("mongo_cps", 3, d("database", "users"), d(100, "database", "default"))))
                .containsExactly("OK 497/500 per SECOND", "OK 400/500 per SECOND");
        // an explicit 0 on a descriptor peeks: answered, nothing consumed
        assertThat(statuses(rls.call("mongo_cps", 3, d(0, "database", "users")))).containsExactly(
                "OK 497/500 per SECOND");
        assertThat(statuses(rls.call("mongo_cps", d(497, "database", "users"))))
                .containsExactly("OK 0/500 per SECOND");
        RateLimitResponse peek = rls.call("mongo_cps", d(0, "database", "users"));
        assertThat(statuses(peek)).containsExactly("OVER_LIMIT 0/500 per SECOND");
        assertThat(headers(peek)).containsEntry("Retry-After", "1");
        // a cost above the limit can never pass: OVER_LIMIT without Retry-After, nothing consumed
        RateLimitResponse never = rls.call("mongo_cps", d(501, "database", "default"));
        assertThat(statuses(never)).containsExactly("OVER_LIMIT 400/500 per SECOND");
        assertThat(headers(never)).doesNotContainKey("Retry-After");
        assertThat(never.getRawBody().toStringUtf8()).contains("exceeds what policy 'mongo_cps.database_default' can "
                + "ever admit");
    }

    @Test
    void aCostAbove10To15IsInvalidArgumentAndDecidesNothing() {
        assertThatThrownBy(() -> rls.call("mongo_cps", d("database", "users"),
                d(1_000_000_000_000_001L, "database", "default")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).isEqualTo(
                            "descriptors[1].hits_addend must be in [0, 1000000000000000], got 1000000000000001");
                });
        assertThatThrownBy(() -> rls.call("mongo_cps", d(-1L, "database", "users")))
                .hasMessageContaining("descriptors[0].hits_addend must be in [0, 1000000000000000], got "
                        + "18446744073709551615");
        assertThat(statuses(rls.call("mongo_cps", d("database", "users")))).containsExactly("OK 499/500 per SECOND");
    }

    @Test
    void malformedRequestsAreInvalidArgument() {
        assertThatThrownBy(() -> rls.call("", d("a", "b"))).hasMessage("INVALID_ARGUMENT: domain must not be empty");
        assertThatThrownBy(() -> rls.call("mongo_cps")).hasMessage("INVALID_ARGUMENT: descriptors must hold 1 to 100 "
                + "descriptors, got 0");
        assertThatThrownBy(() -> rls.call("mongo_cps", RateLimitDescriptor.getDefaultInstance()))
                .hasMessage("INVALID_ARGUMENT: descriptors[0].entries must hold 1 to 64 entries, got 0");
        assertThatThrownBy(() -> rls.call("mongo_cps", d("", "x")))
                .hasMessage("INVALID_ARGUMENT: descriptors[0].entries[0].key must not be empty");
        // an override without a unit (UNKNOWN): envoyproxy/ratelimit would fail the call; here it is named
        RateLimitDescriptor override = d("database", "users").toBuilder().setLimit(RateLimitDescriptor
                .RateLimitOverride.newBuilder().setRequestsPerUnit(1_000_000)).build();
        assertThatThrownBy(() -> rls.call("mongo_cps", d("database", "users"), override)).hasMessage(
                "INVALID_ARGUMENT: descriptors[1].limit.unit must be SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR, "
                        + "got 0");
        RateLimitDescriptor unrecognized = d("database", "users").toBuilder().setLimit(RateLimitDescriptor
                .RateLimitOverride.newBuilder().setRequestsPerUnit(5).setUnitValue(99)).build();
        assertThatThrownBy(() -> rls.call("mongo_cps", unrecognized)).hasMessageEndingWith(
                "descriptors[0].limit.unit must be SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR, got 99");
    }

    @Test
    void anUnknownDomainAnswersOkAndIsCounted() {
        MeterRegistry registry = rls.context.getBean(MeterRegistry.class);
        double before = registry.counter(EnvoyRateLimitService.UNKNOWN_DOMAINS).count();
        RateLimitResponse r = rls.call("nobody", d("a", "b"), d("c", "d"));
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(r)).containsExactly("OK 0", "OK 0");
        assertThat(r.getResponseHeadersToAddList()).isEmpty();
        assertThat(registry.counter(EnvoyRateLimitService.UNKNOWN_DOMAINS).count()).isEqualTo(before + 1);
    }

    @Test
    void theExtensionsTokenBucketReportsItsRefillUnit() {
        List<String> seq = rls.sequence(6, "buckets", d("api_key", "k1"));
        assertThat(seq).containsExactly("OK [OK 4/2 per SECOND]", "OK [OK 3/2 per SECOND]", "OK [OK 2/2 per SECOND]",
                "OK [OK 1/2 per SECOND]", "OK [OK 0/2 per SECOND]", "OVER_LIMIT [OVER_LIMIT 0/2 per SECOND]");
        RateLimitResponse r = rls.call("buckets", d("api_key", "k1"));
        // capacity 5 refilling 2 per second: w = ceil(5·1/2) = 3 s; one token back after 0.5 s
        assertThat(headers(r)).containsEntry("RateLimit-Policy", "\"buckets.api_key\";q=5;w=3")
                .containsEntry("RateLimit", "\"buckets.api_key\";r=0;t=3")
                .containsEntry("Retry-After", "1");
        assertThat(r.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(2);
        assertThat(r.getStatuses(0).getDurationUntilReset().getNanos()).isEqualTo(500_000_000);
        clock.advance(Duration.ofMillis(500));
        assertThat(rls.sequence(2, "buckets", d("api_key", "k1"))).containsExactly("OK [OK 0/2 per SECOND]",
                "OVER_LIMIT [OVER_LIMIT 0/2 per SECOND]");
    }
}
