package io.gridlimit.micronaut.filter;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.RawHttp;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter over HTTP with a real client, a real embedded member and a manual clock (application-gl-filter.yml).
 * The test client connects from 127.0.0.1, a trusted proxy here, so each test picks its own client IP with
 * {@code X-Forwarded-For} and starts from fresh state; the clock only moves when a test moves it forward.
 */
@MicronautTest(environments = "gl-filter")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimitFilterTest implements TestPropertyProvider {
    @Inject
    @Client("/")
    HttpClient client;

    @Inject
    EmbeddedServer server;

    @Inject
    ManualTimeSource clock;

    @Inject
    HazelcastInstance hazelcast;

    @Inject
    MeterRegistry meters;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        return Ports.ownMember("gl-filter");
    }

    /** A response with its body read as text, whatever the status. */
    record Resp(int code, io.micronaut.http.HttpHeaders headers, String body) {
    }

    private Resp get(String path, String... headers) {
        MutableHttpRequest<?> request = HttpRequest.GET(path);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<String> r = client.toBlocking().exchange(request, String.class);
            return new Resp(r.code(), r.getHeaders(), r.body());
        } catch (HttpClientResponseException e) {
            HttpResponse<?> r = e.getResponse();
            return new Resp(r.code(), r.getHeaders(), r.getBody(String.class).orElse(null));
        }
    }

    private static String h(Resp r, String name) {
        return r.headers().get(name);
    }

    @Test
    void admittedRequestsCarryExactHeadersThenA429WithRetryAfterAndProblemBody() throws Exception {
        String ip = "203.0.113.10";
        for (int i = 1; i <= 5; i++) {
            Resp r = get("/t/hello", "X-Forwarded-For", ip);
            assertThat(r.code()).as(r.body() + " " + r.headers().asMap()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello");
            assertThat(h(r, "RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
            // sliding window log: resetAfter = newest + W + 1 ns - t = 10 s + 1 ns, rounded up (SPEC §3, §5)
            assertThat(h(r, "RateLimit")).isEqualTo("\"hello\";r=" + (5 - i) + ";t=11");
            assertThat(h(r, "X-RateLimit-Limit")).isEqualTo("5");
            assertThat(h(r, "X-RateLimit-Remaining")).isEqualTo(Integer.toString(5 - i));
            assertThat(h(r, "X-RateLimit-Reset")).isEqualTo("11");
            assertThat(h(r, "Retry-After")).isNull();
        }
        Resp denied = get("/t/hello", "X-Forwarded-For", ip);
        assertThat(denied.code()).isEqualTo(429);
        assertThat(h(denied, "Content-Type")).startsWith("application/problem+json");
        assertThat(h(denied, "Retry-After")).isEqualTo("11");
        assertThat(h(denied, "RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
        assertThat(h(denied, "RateLimit")).isEqualTo("\"hello\";r=0;t=11");
        assertThat(h(denied, "X-RateLimit-Limit")).isEqualTo("5");
        assertThat(h(denied, "X-RateLimit-Remaining")).isEqualTo("0");
        assertThat(h(denied, "X-RateLimit-Reset")).isEqualTo("11");
        Map<String, Object> body = problem(denied);
        assertThat(body).containsEntry("type", "https://iana.org/assignments/http-problem-types#quota-exceeded")
                .containsEntry("status", 429)
                .containsEntry("title", "Request cannot be satisfied as assigned quota has been exceeded")
                .containsEntry("detail", "Quota of policy 'hello' exceeded; retry after 11 s.")
                .containsEntry("violated-policies", java.util.List.of("hello"));
        assertThat(denied.body()).doesNotContain(ip);
        assertThat(hazelcast.<String, Object>getMap("gridlimit.hello").containsKey("ip:" + ip)).isTrue();
    }

    @Test
    void tokenBucketHeadersAndHeaderKeysAreHashed() {
        Resp r = get("/t/api", "X-Api-Key", "secret-key-1");
        assertThat(r.code()).isEqualTo(200);
        // w = ceil(C * P / R) = ceil(20 * 1 s / 5) = 4; t = ceil((C - tokens) * P / R) = ceil(0.2 s) = 1
        assertThat(h(r, "RateLimit-Policy")).isEqualTo("\"api\";q=20;w=4");
        assertThat(h(r, "RateLimit")).isEqualTo("\"api\";r=19;t=1");
        assertThat(hazelcast.<String, Object>getMap("gridlimit.api").keySet())
                .contains("hdr:" + KeyResolver.sha256Hex("secret-key-1"))
                .noneMatch(k -> k.toString().contains("secret"));
    }

    @Test
    void missingKeyRejectsWith400NamingTheHeaderOrSkipsTheRule() throws Exception {
        Resp none = get("/t/api", "X-Forwarded-For", "203.0.113.11");
        assertThat(none.code()).isEqualTo(400);
        assertThat(h(none, "Content-Type")).startsWith("application/problem+json");
        Map<String, Object> body = problem(none);
        assertThat(body).containsEntry("status", 400);
        assertThat((String) body.get("detail")).contains("X-Api-Key");
        assertThat(h(none, "RateLimit")).isNull();

        RawHttp.Response blank = RawHttp.send(server.getPort(), "GET", "/t/api", "X-Api-Key:    ");
        assertThat(blank.status()).isEqualTo(400);

        Resp skipped = get("/t/skip");
        assertThat(skipped.code()).isEqualTo(200);
        assertThat(h(skipped, "RateLimit")).isNull();
        assertThat(h(skipped, "X-RateLimit-Limit")).isNull();
        Resp limited = get("/t/skip", "X-Api-Key", "k");
        assertThat(h(limited, "RateLimit")).isEqualTo("\"skipper\";r=99;t=60");
    }

    @Test
    void compositePolicyListsEveryBandAndBindsTheSmallestRemaining() {
        Resp r = get("/t/tiered", "X-Forwarded-For", "203.0.113.12");
        assertThat(r.code()).isEqualTo(200);
        assertThat(h(r, "RateLimit-Policy"))
                .isEqualTo("\"tiered/burst\";q=10;w=10, \"tiered/hourly\";q=1000;w=3600");
        assertThat(h(r, "RateLimit")).isEqualTo("\"tiered/burst\";r=9;t=1");
        assertThat(h(r, "X-RateLimit-Limit")).isEqualTo("10");
    }

    @Test
    void xForwardedForFromATrustedPeerNamesTheClientAndForwardedIsIgnored() {
        // gridlimit.client-ip.header is x-forwarded-for (the default): a Forwarded header never counts (SPEC §6)
        get("/t/hello", "X-Forwarded-For", "198.51.100.1, 10.1.2.3");
        get("/t/hello", "Forwarded", "for=198.51.100.2;proto=https, for=\"10.9.9.9:4711\"",
                "X-Forwarded-For", "198.51.100.99");
        get("/t/hello", "Forwarded", "for=\"[2001:db8:cafe::17]:4711\"", "X-Forwarded-For", "198.51.100.98");
        assertThat(hazelcast.<String, Object>getMap("gridlimit.hello").keySet())
                .contains("ip:198.51.100.1", "ip:198.51.100.99", "ip:198.51.100.98")
                .doesNotContain("ip:198.51.100.2", "ip:2001:db8:cafe::/64", "ip:10.1.2.3", "ip:10.9.9.9");
        Resp unknown = get("/t/hello", "X-Forwarded-For", "unknown");
        assertThat(unknown.code()).isEqualTo(400);
        Resp allTrusted = get("/t/hello", "X-Forwarded-For", "10.0.0.5, 10.0.0.6");
        assertThat(allTrusted.code()).isEqualTo(200);
        assertThat(hazelcast.<String, Object>getMap("gridlimit.hello").keySet()).contains("ip:10.0.0.5");
    }

    @Test
    void ipv6FormsOfOneAddressAndOneSlash64ShareOneKey() {
        String[] forms = {"2001:db8:1:2::7", "2001:DB8:1:2:0:0:0:7", "2001:0db8:0001:0002:0000:0000:0000:0007",
            "[2001:db8:1:2::7]:443", "2001:db8:1:2:ffff::1"};
        for (int i = 0; i < forms.length; i++) {
            Resp r = get("/t/hello", "X-Forwarded-For", forms[i]);
            assertThat(r.code()).as(forms[i]).isEqualTo(200);
            assertThat(h(r, "RateLimit")).as(forms[i]).isEqualTo("\"hello\";r=" + (4 - i) + ";t=11");
        }
        assertThat(get("/t/hello", "X-Forwarded-For", "2001:db8:1:2::8").code()).isEqualTo(429);
        assertThat(get("/t/hello", "X-Forwarded-For", "2001:db8:1:3::7").code()).isEqualTo(200);
        assertThat(get("/t/hello", "X-Forwarded-For", "::ffff:192.0.2.77").code()).isEqualTo(200);
        assertThat(hazelcast.<String, Object>getMap("gridlimit.hello").keySet())
                .contains("ip:2001:db8:1:2::/64", "ip:2001:db8:1:3::/64", "ip:192.0.2.77");
    }

    @Test
    void pathSpellingsCannotBypassARule() {
        int port = server.getPort();
        String xff = "X-Forwarded-For: 203.0.113.13";
        String[] spellings = {"/t/hello/", "//t/hello", "/t/%68ello", "/t/./hello", "/t/x/../hello"};
        for (int i = 0; i < spellings.length; i++) {
            RawHttp.Response r = RawHttp.send(port, "GET", spellings[i], xff);
            assertThat(r.header("RateLimit")).as(spellings[i]).isEqualTo("\"hello\";r=" + (4 - i) + ";t=11");
        }
        for (String target : new String[] {"/t/hello", "/t/hello/", "//t/hello", "/t/%68ello", "/t//hello"}) {
            assertThat(RawHttp.send(port, "GET", target, xff).status()).as(target).isEqualTo(429);
        }
        assertThat(RawHttp.send(port, "HEAD", "/t/hello", xff).status()).isEqualTo(429);
    }

    @Test
    void exemptPathsAreNeverLimited() {
        for (int i = 0; i < 3; i++) {
            Resp health = get("/health/liveness", "X-Forwarded-For", "203.0.113.14");
            assertThat(health.code()).isEqualTo(200);
            assertThat(h(health, "RateLimit")).isNull();
            Resp free = get("/t/exempt/free", "X-Forwarded-For", "203.0.113.14");
            assertThat(free.code()).isEqualTo(200);
            assertThat(h(free, "RateLimit")).isNull();
        }
        Resp limited = get("/t/exempt/limited", "X-Forwarded-For", "203.0.113.14");
        assertThat(h(limited, "RateLimit")).isEqualTo("\"exempt\";r=99;t=10");
    }

    @Test
    void shadowPolicyReportsButNeverDenies() {
        double before = counter("shadowed", "shadow_denied");
        Resp first = get("/t/shadow", "X-Forwarded-For", "203.0.113.15");
        assertThat(first.code()).isEqualTo(200);
        assertThat(h(first, "RateLimit")).isEqualTo("\"shadowed\";r=0;t=10");
        for (int i = 0; i < 3; i++) {
            Resp r = get("/t/shadow", "X-Forwarded-For", "203.0.113.15");
            assertThat(r.code()).isEqualTo(200);
            assertThat(h(r, "RateLimit")).isEqualTo("\"shadowed\";r=0;t=10");
            assertThat(h(r, "Retry-After")).isNull();
        }
        assertThat(counter("shadowed", "shadow_denied") - before).isEqualTo(3.0);
    }

    @Test
    void severalRulesMustAllAdmitAndADeniedRequestConsumesNothing() {
        String ip = "203.0.113.16";
        Resp first = get("/t/multi", "X-Forwarded-For", ip);
        assertThat(h(first, "RateLimit-Policy")).isEqualTo("\"multi-a\";q=3;w=10, \"multi-b\";q=2;w=10");
        assertThat(h(first, "RateLimit")).isEqualTo("\"multi-b\";r=1;t=10");
        assertThat(get("/t/multi", "X-Forwarded-For", ip).code()).isEqualTo(200);
        // multi-b denies: what multi-a took for this request is given back (SPEC §10), every time
        for (int i = 0; i < 3; i++) {
            Resp denied = get("/t/multi", "X-Forwarded-For", ip);
            assertThat(denied.code()).isEqualTo(429);
            assertThat(h(denied, "RateLimit")).isEqualTo("\"multi-b\";r=0;t=10");
            assertThat(h(denied, "Retry-After")).isEqualTo("10");
        }
        // the give-backs were sent before each 429 was written, so they reached the owner before this read
        Object a = hazelcast.getMap("gridlimit.multi-a").get("ip:" + ip);
        assertThat(((io.gridlimit.algorithm.ReservedState) a).inner())
                .isInstanceOfSatisfying(io.gridlimit.algorithm.FixedWindowState.class,
                        s -> assertThat(s.count()).as("the two admitted requests only").isEqualTo(2));
    }

    private long meteredTokens(String ip) {
        Object state = hazelcast.getMap("gridlimit.metered").get("ip:" + ip);
        return ((io.gridlimit.algorithm.TokenBucketState) ((io.gridlimit.algorithm.ReservedState) state).inner())
                .tokens();
    }

    @Test
    void aHandlerStatesTheActualCostByHeaderOrBean() {
        String ip = "203.0.113.19";
        // each request reserves the route's cost 10 of 100
        Resp byHeader = get("/t/metered/header/3", "X-Forwarded-For", ip);
        assertThat(byHeader.code()).isEqualTo(200);
        assertThat(h(byHeader, RateLimitCost.ACTUAL_COST_HEADER)).as("stripped").isNull();
        assertThat(h(byHeader, "RateLimit")).as("the headers report the reservation").isEqualTo(
                "\"metered\";r=90;t=36000");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> meteredTokens(ip) == 97);

        Resp byBean = get("/t/metered/bean/25", "X-Forwarded-For", ip);
        assertThat(byBean.body()).isEqualTo("metered settled");
        assertThat(meteredTokens(ip)).isEqualTo(72);

        // beyond what is left with max-debt 0: 72 - 10 reserved = 62 left, 500 asked: 62 charged, none below 0
        assertThat(get("/t/metered/bean/510", "X-Forwarded-For", ip).body()).isEqualTo("metered settled");
        assertThat(meteredTokens(ip)).isZero();
        // the current request, stated from the handler's thread without the request: once only
        assertThat(get("/t/metered/twice/4", "X-Forwarded-For", "203.0.113.21").body())
                .isEqualTo("settled once: the request's actual cost was stated already");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                meteredTokens("203.0.113.21") == 96);
        // a malformed header is stripped and settles nothing: the reservation stands
        Resp bad = get("/t/metered/header/-1", "X-Forwarded-For", "203.0.113.20");
        assertThat(h(bad, RateLimitCost.ACTUAL_COST_HEADER)).isNull();
        assertThat(meteredTokens("203.0.113.20")).isEqualTo(90);
    }

    @Test
    void rateLimitedAnnotationKeysByRouteAndClient() {
        String ip = "203.0.113.17";
        Resp r = get("/t/annotated/1", "X-Forwarded-For", ip);
        assertThat(r.code()).isEqualTo(200);
        assertThat(h(r, "RateLimit")).isEqualTo("\"annot\";r=1;t=10");
        assertThat(get("/t/annotated/2", "X-Forwarded-For", ip).code()).isEqualTo(200);
        assertThat(get("/t/annotated/3", "X-Forwarded-For", ip).code()).isEqualTo(429);
        assertThat(hazelcast.<String, Object>getMap("gridlimit.annot").keySet())
                .contains("route:/t/annotated/{id}|ip:" + ip);
    }

    @Test
    void theClockFreesCapacityExactlyAtRetryAfter() {
        String ip = "203.0.113.18";
        long t0 = clock.peekNanos();
        try {
            for (int i = 0; i < 5; i++) {
                get("/t/hello", "X-Forwarded-For", ip);
            }
            assertThat(get("/t/hello", "X-Forwarded-For", ip).code()).isEqualTo(429);
            clock.advance(Duration.ofSeconds(10));
            Resp still = get("/t/hello", "X-Forwarded-For", ip);
            assertThat(still.code()).isEqualTo(429);
            assertThat(h(still, "Retry-After")).isEqualTo("1");
            clock.advanceNanos(1);
            assertThat(get("/t/hello", "X-Forwarded-For", ip).code()).isEqualTo(200);
        } finally {
            clock.setNanos(t0);
        }
    }

    @Test
    void missingKeysAreCountedWithTheirOwnOutcomeAndSourceAndEveryFilterAnswerCarriesDate() throws Exception {
        double rejected = counter("api", "missing_key_rejected");
        double skipped = counter("skipper", "missing_key_skipped");
        Resp none = get("/t/api", "X-Forwarded-For", "203.0.113.41");
        assertThat(none.code()).isEqualTo(400);
        assertRecentDate(h(none, "Date"));
        assertThat(get("/t/skip").code()).isEqualTo(200);
        assertThat(counter("api", "missing_key_rejected")).isEqualTo(rejected + 1);
        assertThat(counter("skipper", "missing_key_skipped")).isEqualTo(skipped + 1);
        assertThat(meters.find(GridLimitMetrics.DECISIONS).tag("policy", "api")
                .tag("outcome", "missing_key_rejected").tag("mode", "none").tag("source", "filter").counter())
                .isNotNull();
        // every series of the name carries the same four tags (Prometheus refuses a name with different keys)
        assertThat(meters.find(GridLimitMetrics.DECISIONS).counters()).isNotEmpty().allSatisfy(c ->
                assertThat(c.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
                        .containsExactlyInAnyOrder("policy", "outcome", "mode", "source"));

        String ip = "203.0.113.42";
        for (int i = 0; i < 2; i++) {
            assertThat(get("/t/multi", "X-Forwarded-For", ip).code()).isEqualTo(200);
        }
        Resp denied = get("/t/multi", "X-Forwarded-For", ip);
        assertThat(denied.code()).isEqualTo(429);
        assertRecentDate(h(denied, "Date"));
    }

    @Test
    void aHeaderSectionOverTheServersLimitAnswers431WithAProblemBody() throws Exception {
        // Micronaut's default max-header-size is 8 KiB; without GridLimit it answers 413 with its own JSON
        RawHttp.Response r = RawHttp.send(server.getPort(), "GET", "/t/hello", "X-Big: " + "a".repeat(9000));
        assertThat(r.status()).isEqualTo(431);
        assertThat(r.statusLine()).startsWith("HTTP/1.1 431 ");
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(r.header("content-type")).startsWith("application/problem+json");
        assertRecentDate(r.header("date"));
        Map<String, Object> body = problem(new Resp(r.status(), null, r.body()));
        assertThat(body).containsEntry("type", "about:blank").containsEntry("status", 431)
                .containsEntry("title", "Request Header Fields Too Large");
        assertThat(r.body()).doesNotContain("aaaa");
        // a request under the limit is served as usual
        assertThat(RawHttp.send(server.getPort(), "GET", "/t/exempt/free", "X-Big: " + "a".repeat(4000)).status())
                .isEqualTo(200);
    }

    @Test
    void aRequestLineOverTheServersLimitAnswers414WithAProblemBody() throws Exception {
        // Micronaut's default max-initial-line-length is 4 KiB; without GridLimit it answers 413 with its own JSON
        RawHttp.Response r = RawHttp.send(server.getPort(), "GET", "/t/hello?q=" + "a".repeat(9000));
        assertThat(r.status()).isEqualTo(414);
        // found by a hostile review: it came back as HTTP/1.0, the version of Netty's stand-in for the request
        assertThat(r.statusLine()).startsWith("HTTP/1.1 414 ");
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(r.header("content-type")).startsWith("application/problem+json");
        Map<String, Object> body = problem(new Resp(r.status(), null, r.body()));
        assertThat(body).containsEntry("status", 414).containsEntry("title", "URI Too Long");
        assertThat(r.body()).doesNotContain("aaaa");
    }

    /** An IMF-fixdate (RFC 9110 §5.6.7) within a minute of this machine's clock. */
    static void assertRecentDate(String date) {
        assertThat(date).as("Date header").isNotNull().matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} "
                + "\\d{2}:\\d{2}:\\d{2} GMT");
        java.time.Instant sent = java.time.ZonedDateTime.parse(date,
                java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        assertThat(java.time.Duration.between(sent, java.time.Instant.now()).abs())
                .isLessThan(java.time.Duration.ofMinutes(1));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> problem(Resp r) throws java.io.IOException {
        return json.readValue(r.body(), Map.class);
    }

    private double counter(String policy, String outcome) {
        var c = meters.find(GridLimitMetrics.DECISIONS).tag("policy", policy).tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }
}
