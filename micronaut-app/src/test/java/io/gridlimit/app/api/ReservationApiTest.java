package io.gridlimit.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Reservation;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.json.JsonMapper;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Reservations over the decision API (docs/SPEC.md §10), over real HTTP with an embedded member and a manual
 * clock: {@code "reserve": true}, {@code POST /v1/ratelimit/settle} with the strictness of {@code check}, and
 * atomic batches.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReservationApiTest implements TestPropertyProvider {
    private static final String CHECK = "/v1/ratelimit/check";
    private static final String BATCH = "/v1/ratelimit/check/batch";
    private static final String SETTLE = "/v1/ratelimit/settle";
    private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

    @Inject
    @Client(ServiceProperties.INTERNAL_CLIENT)
    HttpClient httpClient;

    @Inject
    ManualTimeSource clock;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = new HashMap<>();
        ServiceProperties.standalone().forEach((k, v) -> p.put(k, String.valueOf(v).replace("[", "")
                .replace("]", "")));
        p.put("gridlimit.policies.llm.algorithm", "token-bucket");
        p.put("gridlimit.policies.llm.capacity", "1000");
        p.put("gridlimit.policies.llm.refill-tokens", "1000");
        p.put("gridlimit.policies.llm.refill-period", "1m");
        p.put("gridlimit.policies.llm.max-debt", "500");
        p.put("gridlimit.policies.pair.algorithm", "fixed-window");
        p.put("gridlimit.policies.pair.limit", "2");
        p.put("gridlimit.policies.pair.window", "1h");
        return p;
    }

    @BeforeEach
    void nextHour() {
        clock.setNanos((Math.floorDiv(clock.peekNanos(), HOUR_NANOS) + 1) * HOUR_NANOS);
    }

    private HttpResponse<String> post(String path, String body) {
        return Http.exchange(httpClient.toBlocking(), HttpRequest.POST(path, body)
                .contentType(MediaType.APPLICATION_JSON));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> map(HttpResponse<String> r) throws IOException {
        return json.readValue(Http.body(r), Map.class);
    }

    private String reserve(String key, long cost) throws IOException {
        HttpResponse<String> r = post(CHECK, "{\"policy\":\"llm\",\"key\":\"" + key + "\",\"cost\":" + cost
                + ",\"reserve\":true}");
        assertThat(r.code()).isEqualTo(200);
        Object token = map(r).get("reservation");
        assertThat(token).isInstanceOf(String.class);
        return (String) token;
    }

    private HttpResponse<String> settle(String token, String actual) {
        return post(SETTLE, "{\"reservation\":\"" + token + "\",\"actual\":" + actual + "}");
    }

    private long remaining(String key) throws IOException {
        return ((Number) map(post(CHECK, "{\"policy\":\"llm\",\"key\":\"" + key + "\",\"cost\":1}"))
                .get("remaining")).longValue() + 1;
    }

    @Test
    void reserveThenSettleChargesTheActualCostOnce() throws IOException {
        String token = reserve("u1", 300);
        assertThat(Reservation.parse(token).cost()).isEqualTo(300);
        HttpResponse<String> settled = settle(token, "120");
        assertThat(settled.code()).isEqualTo(200);
        assertThat(Http.body(settled)).isEqualTo(
                "{\"status\":\"settled\",\"actual\":120,\"excess\":0,\"debt\":false,\"policy\":\"llm\"}");
        // a retry, with another actual, changes nothing
        assertThat(Http.body(settle(token, "999"))).isEqualTo(
                "{\"status\":\"already-settled\",\"actual\":120,\"excess\":0,\"debt\":false,\"policy\":\"llm\"}");
        assertThat(remaining("u1")).isEqualTo(880);
    }

    @Test
    void aChargeBeyondTheReservationIsADebtUpToTheMaximum() throws IOException {
        String token = reserve("u2", 100);
        // 900 left; 1500 more asked: the balance stops at -500 (max-debt 500), 100 reported
        assertThat(Http.body(settle(token, "1600"))).isEqualTo(
                "{\"status\":\"settled\",\"actual\":1600,\"excess\":100,\"debt\":true,\"policy\":\"llm\"}");
        HttpResponse<String> denied = post(CHECK, "{\"policy\":\"llm\",\"key\":\"u2\",\"cost\":1}");
        Map<String, Object> d = map(denied);
        assertThat(d.get("allowed")).isEqualTo(false);
        assertThat(d.get("remaining")).isEqualTo(0);
        // 501 tokens to refill at 1000 per minute: 30.06 s
        assertThat(d.get("retryAfterMillis")).isEqualTo(30_060);
        assertThat(d.get("resetAfterMillis")).isEqualTo(90_000);
    }

    @Test
    void aSettleIsAsStrictAsACheck() throws IOException {
        String token = reserve("u3", 10);
        assertProblem(post(SETTLE, "{\"actual\":1}"), 400, "reservation is required");
        assertProblem(post(SETTLE, "{\"reservation\":7,\"actual\":1}"), 400,
                "reservation must be a string, got a number");
        assertProblem(settle("nope!", "1"), 400,
                "reservation is not a reservation token: a reservation token is URL-safe base64 without padding");
        assertProblem(post(SETTLE, "{\"reservation\":\"" + token + "\"}"), 400, "actual is required");
        assertProblem(settle(token, "1.0"), 400,
                "actual must be an integer in [0, 1000000000000000] written as a JSON integer, got 1.0");
        assertProblem(settle(token, "-1"), 400, "actual must be an integer in [0, 1000000000000000], got -1");
        assertProblem(settle(token, "\"5\""), 400,
                "actual must be an integer in [0, 1000000000000000], got a string");
        assertProblem(settle(token, "1000000000000001"), 400,
                "actual must be an integer in [0, 1000000000000000], got 1000000000000001");
        Reservation r = Reservation.parse(token);
        byte[] mac = r.mac();
        mac[3] ^= 0x40;
        assertProblem(settle(r.withMac(mac).token(), "0"), 400,
                "reservation's signature does not match its key's state: it was not issued for this key, or was"
                        + " altered");
        Reservation otherPolicy = new Reservation("nosuch", r.key(), r.stateId(), r.id(), r.reservedAtNanos(),
                r.expiresAtNanos(), r.cost(), r.bands(), r.mac());
        assertProblem(settle(otherPolicy.token(), "0"), 404,
                "reservation names policy 'nosuch', which is not a configured policy");
        Reservation lost = new Reservation("llm", "never-used", r.stateId(), r.id(), r.reservedAtNanos(),
                r.expiresAtNanos(), r.cost(), r.bands(), r.mac());
        assertProblem(settle(lost.token(), "0"), 404, "reservation is unknown to its key's state (the state expired"
                + " or was lost, or its settle records were closed): the reserved cost stands");
        // the reservation holds capacity·P/R = 1 min
        clock.advance(Duration.ofMinutes(1));
        assertProblem(settle(token, "0"), 410, "reservation has expired (its window has ended): the reserved cost"
                + " stands");
        assertProblem(post(CHECK, "{\"policy\":\"llm\",\"key\":\"u3\",\"reserve\":\"yes\"}"), 400,
                "reserve must be a boolean, got a string");
    }

    private void assertProblem(HttpResponse<String> r, int status, String detail) throws IOException {
        assertThat(r.code()).isEqualTo(status);
        assertThat(r.getContentType().map(MediaType::toString)).contains("application/problem+json");
        assertThat(map(r).get("detail")).isEqualTo(detail);
    }

    @Test
    void anAtomicBatchWithADenialGivesEveryCheckBack() throws IOException {
        // pair allows 2 per hour: a, a admitted, a denied -> every check given back
        HttpResponse<String> r = post(BATCH, "{\"atomic\":true,\"checks\":[{\"policy\":\"pair\",\"key\":\"a\"},"
                + "{\"policy\":\"pair\",\"key\":\"a\",\"reserve\":true},{\"policy\":\"pair\",\"key\":\"a\"},"
                + "{\"policy\":\"llm\",\"key\":\"u4\",\"cost\":5}]}");
        assertThat(r.code()).isEqualTo(200);
        String body = Http.body(r);
        assertThat(body).contains("\"allowed\":true,\"limit\":2,\"remaining\":1,\"resetAfterMillis\":3600000,"
                + "\"retryAfterMillis\":null,\"policy\":\"pair\",\"band\":null,\"givenBack\":true}");
        assertThat(body).contains("\"allowed\":false,\"limit\":2,\"remaining\":0,\"resetAfterMillis\":3600000,"
                + "\"retryAfterMillis\":3600000,\"policy\":\"pair\",\"band\":null,\"givenBack\":false}");
        assertThat(body).doesNotContain("reservation");
        // nothing stands: a and u4 are as before (the give-backs are in flight; they land before these checks,
        // which queue behind them on the same partition)
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(Http.body(post(BATCH, "{\"atomic\":true,\"checks\":[{\"policy\":\"pair\",\"key\":\"a\","
                        + "\"cost\":2},{\"policy\":\"llm\",\"key\":\"u4\",\"cost\":1000}]}")))
                        .doesNotContain("\"allowed\":false"));

        HttpResponse<String> ok = post(BATCH, "{\"atomic\":true,\"checks\":[{\"policy\":\"pair\",\"key\":\"b\","
                + "\"reserve\":true}]}");
        assertThat(Http.body(ok)).contains("\"givenBack\":false").contains("\"reservation\":\"");
        assertProblem(post(BATCH, "{\"atomic\":1,\"checks\":[{\"policy\":\"pair\",\"key\":\"b\"}]}"), 400,
                "atomic must be a boolean, got a number");
    }
}
