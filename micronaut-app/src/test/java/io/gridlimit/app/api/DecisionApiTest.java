package io.gridlimit.app.api;

import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.app.support.SharedClock;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision API over real HTTP against the service's own configuration plus a few test policies, with an
 * embedded member and a manual clock: exact statuses and bodies.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionApiTest implements TestPropertyProvider {
    private static final String CHECK = "/v1/ratelimit/check";
    private static final String BATCH = "/v1/ratelimit/check/batch";
    private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

    /** The decision API answers on the internal port only. */
    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient httpClient;

    @Inject
    ManualTimeSource clock;

    @Inject
    io.micrometer.core.instrument.MeterRegistry meters;

    @Property(name = SharedClock.PROPERTY)
    String clockName;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v)));
        p.put("gridlimit.hazelcast.members", p.get("gridlimit.hazelcast.members")
                .replace("[", "").replace("]", ""));
        p.put("gridlimit.policies.api.algorithm", "token-bucket");
        p.put("gridlimit.policies.api.capacity", "10");
        p.put("gridlimit.policies.api.refill-tokens", "1");
        p.put("gridlimit.policies.api.refill-period", "1s");
        p.put("gridlimit.policies.tiers.bands.burst.algorithm", "fixed-window");
        p.put("gridlimit.policies.tiers.bands.burst.limit", "2");
        p.put("gridlimit.policies.tiers.bands.burst.window", "1s");
        p.put("gridlimit.policies.tiers.bands.hourly.algorithm", "sliding-window-counter");
        p.put("gridlimit.policies.tiers.bands.hourly.limit", "100");
        p.put("gridlimit.policies.tiers.bands.hourly.window", "1h");
        p.put("gridlimit.policies.monthly.bands.per-second.algorithm", "token-bucket");
        p.put("gridlimit.policies.monthly.bands.per-second.capacity", "10");
        p.put("gridlimit.policies.monthly.bands.per-second.refill-tokens", "10");
        p.put("gridlimit.policies.monthly.bands.per-second.refill-period", "1s");
        p.put("gridlimit.policies.monthly.bands.per-month.algorithm", "calendar");
        p.put("gridlimit.policies.monthly.bands.per-month.limit", "3");
        p.put("gridlimit.policies.monthly.bands.per-month.period", "month");
        p.put("gridlimit.policies.monthly.bands.per-month.zone", "Europe/Berlin");
        p.put("gridlimit.policies.shadowed.algorithm", "fixed-window");
        p.put("gridlimit.policies.shadowed.limit", "1");
        p.put("gridlimit.policies.shadowed.window", "1m");
        p.put("gridlimit.policies.shadowed.shadow", "true");
        return Collections.unmodifiableMap(p);
    }

    /** Moves the clock forward to the next whole hour: aligned to every window, and later than any test before. */
    @BeforeEach
    void nextHour() {
        long now = clock.peekNanos();
        clock.setNanos((Math.floorDiv(now, HOUR_NANOS) + 1) * HOUR_NANOS);
    }

    private BlockingHttpClient client() {
        return httpClient.toBlocking();
    }

    private HttpResponse<String> post(String path, String json) {
        return Http.exchange(client(), HttpRequest.POST(path, json).contentType(MediaType.APPLICATION_JSON));
    }

    private static String decision(boolean allowed, long limit, long remaining, long resetAfterMillis,
                                   Long retryAfterMillis, String policy, String band) {
        return "{\"allowed\":" + allowed + ",\"limit\":" + limit + ",\"remaining\":" + remaining
                + ",\"resetAfterMillis\":" + resetAfterMillis + ",\"retryAfterMillis\":" + retryAfterMillis
                + ",\"policy\":\"" + policy + "\",\"band\":" + (band == null ? "null" : "\"" + band + "\"") + "}";
    }

    private static String problem(int status, String title, String detail) {
        return "{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status + ",\"detail\":\""
                + detail.replace("\"", "\\\"") + "\"}";
    }

    private void assertOk(HttpResponse<String> response, String body) {
        assertThat(response.code()).isEqualTo(200);
        assertThat(response.getContentType()).contains(MediaType.APPLICATION_JSON_TYPE);
        assertThat(Http.body(response)).isEqualTo(body);
    }

    private void assertProblem(HttpResponse<String> response, int status, String title, String detail) {
        assertThat(response.code()).isEqualTo(status);
        assertThat(response.getContentType().map(MediaType::toString)).contains("application/problem+json");
        assertThat(Http.body(response)).isEqualTo(problem(status, title, detail));
    }

    private HttpResponse<String> check(String policy, String key) {
        return post(CHECK, "{\"policy\":\"" + policy + "\",\"key\":\"" + key + "\"}");
    }

    private double apiDecisions(String policy, String outcome) {
        var c = meters.find(io.gridlimit.micronaut.metrics.GridLimitMetrics.DECISIONS).tag("policy", policy)
                .tag("outcome", outcome).tag("mode", "grid").tag("source", "api").counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void everyDecisionIsCountedWithSourceApi() {
        double allowed = apiDecisions("api", "allowed");
        double denied = apiDecisions("api", "denied");
        assertThat(post(CHECK, "{\"policy\":\"api\",\"key\":\"metrics-1\",\"cost\":10}").code()).isEqualTo(200);
        assertThat(post(BATCH, "{\"checks\":[{\"policy\":\"api\",\"key\":\"metrics-1\"},"
                + "{\"policy\":\"api\",\"key\":\"metrics-2\"}]}").code()).isEqualTo(200);
        assertThat(apiDecisions("api", "allowed")).isEqualTo(allowed + 2);
        assertThat(apiDecisions("api", "denied")).isEqualTo(denied + 1);
        assertThat(post(CHECK, "{\"policy\":\"api\",\"key\":\"\"}").code()).as("rejected, not decided")
                .isEqualTo(400);
        assertThat(apiDecisions("api", "allowed") + apiDecisions("api", "denied")).isEqualTo(allowed + denied + 3);
    }

    @Test
    void slidingWindowLogDecisionsWithMillisecondsRoundedUp() {
        for (int remaining = 4; remaining >= 0; remaining--) {
            assertOk(check("demo", "user:seq"), decision(true, 5, remaining, 10_001, null, "demo", null));
        }
        // Denied at t0: the oldest entry frees its capacity at t0 + 10 s + 1 ns (SPEC §3).
        assertOk(check("demo", "user:seq"), decision(false, 5, 0, 10_001, 10_001L, "demo", null));
        clock.advance(java.time.Duration.ofSeconds(3));
        assertOk(check("demo", "user:seq"), decision(false, 5, 0, 7_001, 7_001L, "demo", null));
        clock.advance(java.time.Duration.ofSeconds(7));
        // 1 ns left: still 1 ms, never 0.
        assertOk(check("demo", "user:seq"), decision(false, 5, 0, 1, 1L, "demo", null));
        clock.advanceNanos(1);
        assertOk(check("demo", "user:seq"), decision(true, 5, 4, 10_001, null, "demo", null));
    }

    @Test
    void tokenBucketCostsAndAnUnsatisfiableCost() {
        assertOk(post(CHECK, "{\"policy\":\"api\",\"key\":\"user:bucket\",\"cost\":10}"),
                decision(true, 10, 0, 10_000, null, "api", null));
        assertOk(post(CHECK, "{\"policy\":\"api\",\"key\":\"user:bucket\",\"cost\":3}"),
                decision(false, 10, 0, 10_000, 3_000L, "api", null));
        // More than the capacity can never pass: no retryAfter.
        assertOk(post(CHECK, "{\"policy\":\"api\",\"key\":\"user:bucket\",\"cost\":11}"),
                decision(false, 10, 0, 10_000, null, "api", null));
        clock.advance(java.time.Duration.ofMillis(1));
        // 0.001 tokens: full again after 9.999 s, one token after 0.999 s.
        assertOk(check("api", "user:bucket"), decision(false, 10, 0, 9_999, 999L, "api", null));
    }

    @Test
    void compositePolicyNamesTheBindingBand() {
        assertOk(check("tiers", "user:tiers"), decision(true, 2, 1, 1_000, null, "tiers", "burst"));
        assertOk(check("tiers", "user:tiers"), decision(true, 2, 0, 1_000, null, "tiers", "burst"));
        assertOk(check("tiers", "user:tiers"), decision(false, 2, 0, 1_000, 1_000L, "tiers", "burst"));
    }

    @Test
    void aCalendarBandCountsToTheNextFirstOfTheMonthInItsZone() {
        // docs/SPEC.md §14: the month of Berlin ends at local midnight before the 1st (computed here with java.time)
        long now = clock.peekNanos();
        java.time.ZoneId berlin = java.time.ZoneId.of("Europe/Berlin");
        long end = java.time.Instant.ofEpochSecond(now / 1_000_000_000L).atZone(berlin).toLocalDate().withDayOfMonth(1)
                .plusMonths(1).atStartOfDay(berlin).toInstant().toEpochMilli();
        long untilEnd = end - now / 1_000_000L; // the clock stands on a whole hour
        for (int remaining = 2; remaining >= 0; remaining--) {
            assertOk(check("monthly", "user:cal"), decision(true, 3, remaining, untilEnd, null, "monthly",
                    "per-month"));
        }
        assertOk(check("monthly", "user:cal"), decision(false, 3, 0, untilEnd, untilEnd, "monthly", "per-month"));
    }

    @Test
    void shadowPolicyIsReportedAsComputed() {
        assertOk(check("shadowed", "user:shadow"), decision(true, 1, 0, 60_000, null, "shadowed", null));
        assertOk(check("shadowed", "user:shadow"), decision(false, 1, 0, 60_000, 60_000L, "shadowed", null));
    }

    @Test
    void batchAnswersInOrderAndDecidesOneKeyInRequestOrder() {
        StringBuilder body = new StringBuilder("{\"checks\":[");
        for (int i = 0; i < 6; i++) {
            body.append("{\"policy\":\"demo\",\"key\":\"user:b1\"},");
        }
        body.append("{\"policy\":\"api\",\"key\":\"user:b2\",\"cost\":4},{\"policy\":\"demo\",\"key\":\"user:b3\"}]}");
        String expected = "{\"decisions\":["
                + decision(true, 5, 4, 10_001, null, "demo", null) + ","
                + decision(true, 5, 3, 10_001, null, "demo", null) + ","
                + decision(true, 5, 2, 10_001, null, "demo", null) + ","
                + decision(true, 5, 1, 10_001, null, "demo", null) + ","
                + decision(true, 5, 0, 10_001, null, "demo", null) + ","
                + decision(false, 5, 0, 10_001, 10_001L, "demo", null) + ","
                + decision(true, 10, 6, 4_000, null, "api", null) + ","
                + decision(true, 5, 4, 10_001, null, "demo", null) + "]}";
        assertOk(post(BATCH, body.toString()), expected);
    }

    @Test
    void anInvalidBatchDecidesNothing() {
        String ok = "{\"policy\":\"demo\",\"key\":\"user:v1\"}";
        assertProblem(post(BATCH, "{\"checks\":[" + ok + "," + ok + ",{\"policy\":\"nope\",\"key\":\"user:v1\"}]}"),
                404, "Not Found", "checks[2].policy 'nope' is not a configured policy");
        assertProblem(post(BATCH, "{\"checks\":[" + ok + ",{\"policy\":\"demo\",\"key\":\"\"}]}"),
                400, "Bad Request", "checks[1].key must not be empty");
        assertProblem(post(BATCH, "{\"checks\":[" + ok + ",{\"policy\":\"demo\",\"key\":\"user:v1\",\"cost\":0}]}"),
                400, "Bad Request", "checks[1].cost must be an integer in [1, 1000000000000000], got 0");
        String many = "{\"checks\":[" + String.join(",", Collections.nCopies(101, ok)) + "]}";
        assertProblem(post(BATCH, many), 400, "Bad Request", "checks must hold 1 to 100 checks, got 101");
        assertProblem(post(BATCH, "{\"checks\":[]}"), 400, "Bad Request", "checks must hold 1 to 100 checks, got 0");
        // None of the above consumed anything.
        assertOk(check("demo", "user:v1"), decision(true, 5, 4, 10_001, null, "demo", null));
        // A batch of exactly 100 is accepted.
        String hundred = "{\"checks\":[" + String.join(",",
                Collections.nCopies(100, "{\"policy\":\"api\",\"key\":\"user:v100\",\"cost\":1}")) + "]}";
        HttpResponse<String> full = post(BATCH, hundred);
        assertThat(full.code()).isEqualTo(200);
        assertThat(Http.body(full)).startsWith("{\"decisions\":[" + decision(true, 10, 9, 1_000, null, "api", null));
        assertThat(Http.body(full)).endsWith(decision(false, 10, 0, 10_000, 1_000L, "api", null) + "]}");
    }

    @Test
    void aMisspeltMemberIsRefusedAndDecidesNothing() {
        // Found by a hostile review: "atomc" made a batch partly consume, "Cost" charged 1 instead of 3.
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"user:typo\",\"Cost\":3}"), 400, "Bad Request",
                "Cost: unknown member (known: policy, key, cost, reserve)");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"user:typo\",\"reserv\":true}"), 400,
                "Bad Request", "reserv: unknown member (known: policy, key, cost, reserve)");
        assertProblem(post(BATCH, "{\"atomc\":true,\"checks\":[{\"policy\":\"demo\",\"key\":\"user:typo\"}]}"), 400,
                "Bad Request", "atomc: unknown member (known: checks, atomic)");
        assertProblem(post(BATCH, "{\"checks\":[{\"policy\":\"demo\",\"key\":\"user:typo\"},"
                        + "{\"policy\":\"demo\",\"key\":\"user:typo\",\"cots\":5}]}"), 400, "Bad Request",
                "checks[1].cots: unknown member (known: policy, key, cost, reserve)");
        assertProblem(post("/v1/ratelimit/settle", "{\"reservation\":\"x\",\"actual\":1,\"x\":0}"), 400,
                "Bad Request", "x: unknown member (known: reservation, actual)");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"user:typo\",\"" + "m".repeat(100) + "\":1}"),
                400, "Bad Request", "m".repeat(40) + "...: unknown member (known: policy, key, cost, reserve)");
        // None of the above consumed anything.
        assertOk(check("demo", "user:typo"), decision(true, 5, 4, 10_001, null, "demo", null));
    }

    @Test
    void badRequestsAreProblemsWithoutMicronautErrorBodies() {
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":"), 400, "Bad Request",
                "the request body is not valid JSON");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"\"}"), 400, "Bad Request", "key must not be empty");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"" + "k".repeat(1025) + "\"}"), 400,
                "Bad Request", "key must be at most 1024 UTF-8 bytes, got 1025 bytes");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"sur\\ud800\"}"), 400, "Bad Request",
                "key must be well-formed UTF-16: a lone surrogate at index 3 has no UTF-8 form");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"k\",\"cost\":0}"), 400, "Bad Request",
                "cost must be an integer in [1, 1000000000000000], got 0");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1000000000000001}"), 400,
                "Bad Request", "cost must be an integer in [1, 1000000000000000], got 1000000000000001");
        assertProblem(post(CHECK, "{\"policy\":\"nope\",\"key\":\"k\"}"), 404, "Not Found",
                "policy 'nope' is not a configured policy");
        assertProblem(Http.exchange(client(), HttpRequest.POST(CHECK, "{}").contentType(MediaType.TEXT_PLAIN)),
                415, "Unsupported Media Type", "the request body must be sent as Content-Type: application/json");
        assertProblem(Http.exchange(client(), HttpRequest.GET(CHECK)), 405, "Method Not Allowed",
                "the decision API accepts POST only");
        // Rejected requests consumed nothing.
        assertOk(check("demo", "k"), decision(true, 5, 4, 10_001, null, "demo", null));
    }

    @Test
    void keysAreUsedAsGivenUpTo1024Utf8Bytes() {
        String key = "é".repeat(512);
        assertOk(check("demo", key), decision(true, 5, 4, 10_001, null, "demo", null));
        assertOk(check("demo", key), decision(true, 5, 3, 10_001, null, "demo", null));
        assertOk(check("demo", key.substring(1)), decision(true, 5, 4, 10_001, null, "demo", null));
    }
    @Test
    void onlyOneJsonValueWithoutDuplicatesAndIntegerCostLiteralsAreDecided() {
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"strict\"} garbage"), 400, "Bad Request",
                "the request body is not valid JSON");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"strict\"} {}"), 400, "Bad Request",
                "the request body is not valid JSON: content after the JSON value");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"other\",\"key\":\"strict\"}"), 400,
                "Bad Request", "the request body is not valid JSON: duplicate member 'key'");
        String literal = "cost must be an integer in [1, 1000000000000000] written as a JSON integer, got ";
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"strict\",\"cost\":1.00000000000000000001}"),
                400, "Bad Request", literal + "1.00000000000000000001");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"strict\",\"cost\":1.0}"), 400,
                "Bad Request", literal + "1.0");
        assertProblem(post(CHECK, "{\"policy\":\"demo\",\"key\":\"strict\",\"cost\":1e3}"), 400,
                "Bad Request", literal + "1E+3");
        assertProblem(post(BATCH, "{\"checks\":[{\"policy\":\"demo\",\"key\":\"strict\"},"
                + "{\"policy\":\"demo\",\"key\":\"strict\",\"cost\":2.0}]}"), 400, "Bad Request",
                "checks[1]." + literal + "2.0");
        // None of them consumed anything.
        assertOk(check("demo", "strict"), decision(true, 5, 4, 10_001, null, "demo", null));
    }

    @Test
    void anOversizedBodyIs413AndUnknownApiPathsAre404Problems() {
        String huge = "{\"policy\":\"demo\",\"key\":\"" + "k".repeat(20 * 1024 * 1024) + "\"}";
        assertProblem(post(CHECK, huge), 413, "Request Entity Too Large",
                "the request body is larger than the server accepts");
        assertProblem(post("/v1/ratelimit/nope", "{}"), 404, "Not Found", "no such resource");
        assertProblem(post("/v1/nope", "{}"), 404, "Not Found", "no such resource");
        assertProblem(Http.exchange(client(), HttpRequest.GET("/v1/ratelimit/check/batch/extra")), 404, "Not Found",
                "no such resource");
    }

    @Test
    void aQueryParameterIsRefusedNeverIgnoredAndSpendsNothing() {
        // Found by a hostile review of the admin API's parameters: the decision API reads its body only, so a
        // ?key=... would be a caller's mistake that an ignoring API turns into spending another key's quota.
        String none = ": not a parameter of this resource (it takes none)";
        Map<String, String> refused = Map.of(CHECK + "?key=other", "'key'" + none,
                CHECK + "?key=a&key=b", "'key'" + none, BATCH + "?atomic=true", "'atomic'" + none,
                "/v1/ratelimit/settle?x=%FF", "'x'" + none, CHECK + "?%ED%A0%80=1", "a query parameter's name is "
                        + "not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded "
                        + "surrogate)");
        refused.forEach((target, detail) -> assertProblem(post(target,
                "{\"policy\":\"demo\",\"key\":\"q-probe\"}"), 400, "Bad Request", detail));
        assertOk(check("demo", "q-probe"), decision(true, 5, 4, 10_001, null, "demo", null));
    }
}
