package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.json.JsonMapper;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar quotas over HTTP on a frozen clock (docs/SPEC.md §5, §14; application-gl-calendar.yml): a route limited
 * by a per-second token bucket beside a per-month calendar band in Europe/Berlin answers {@code RateLimit} with
 * {@code t} the seconds until 1 April 00:00 CEST (31 March 22:00Z), rounded up, admits exactly 5 in March and
 * starts April empty at its first instant; {@code w} is the current period's length. Each test keys by its own
 * client address ({@code X-Forwarded-For} from the trusted 127.0.0.1) and sets the clock it needs.
 */
@MicronautTest(environments = "gl-calendar")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CalendarQuotaHttpTest implements TestPropertyProvider {
    /** March in Berlin: 1 March 00:00 CET to 1 April 00:00 CEST, 31 days less an hour. */
    private static final long MARCH_SECONDS = 31 * 86_400 - 3_600;

    @Inject
    @Client("/")
    HttpClient client;

    @Inject
    ManualTimeSource clock;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        return Ports.ownMember("gl-calendar");
    }

    record Resp(int code, io.micronaut.http.HttpHeaders headers, String body) {
        String h(String name) {
            return headers.get(name);
        }
    }

    private Resp get(String path, String ip) {
        try {
            HttpResponse<String> r = client.toBlocking().exchange(HttpRequest.GET(path).header("X-Forwarded-For", ip),
                    String.class);
            return new Resp(r.code(), r.getHeaders(), r.body());
        } catch (HttpClientResponseException e) {
            return new Resp(e.getResponse().code(), e.getResponse().getHeaders(),
                    e.getResponse().getBody(String.class).orElse(null));
        }
    }

    private void at(String instant) {
        Instant i = Instant.parse(instant);
        clock.setNanos(i.getEpochSecond() * 1_000_000_000L + i.getNano());
    }

    @Test
    void aMonthlyQuotaInBerlinResetsOnTheFirstAtLocalMidnight() throws Exception {
        String ip = "203.0.113.61";
        // 15 March 10:00:00.5Z to 31 March 22:00Z: 16 d 12 h less 0.5 s, rounded up to 1 425 600 s
        at("2026-03-15T10:00:00.500Z");
        String policy = "\"api/per-second\";q=10;w=1, \"api/per-month\";q=5;w=" + MARCH_SECONDS;
        for (int i = 1; i <= 5; i++) {
            Resp r = get("/t/hello", ip);
            assertThat(r.code()).as(r.body()).isEqualTo(200);
            assertThat(r.h("RateLimit-Policy")).isEqualTo(policy);
            // the month binds: its remaining (5 - i) is below the bucket's (10 - i)
            assertThat(r.h("RateLimit")).isEqualTo("\"api/per-month\";r=" + (5 - i) + ";t=1425600");
            assertThat(r.h("X-RateLimit-Limit")).isEqualTo("5");
            assertThat(r.h("X-RateLimit-Reset")).isEqualTo("1425600");
        }
        Resp denied = get("/t/hello", ip);
        assertThat(denied.code()).isEqualTo(429);
        assertThat(denied.h("Retry-After")).isEqualTo("1425600");
        assertThat(denied.h("RateLimit")).isEqualTo("\"api/per-month\";r=0;t=1425600");
        assertThat(denied.h("RateLimit-Policy")).isEqualTo(policy);
        @SuppressWarnings("unchecked")
        Map<String, Object> body = json.readValue(denied.body(), Map.class);
        assertThat(body).containsEntry("violated-policies", List.of("api/per-month"))
                .containsEntry("detail", "Quota of policy 'api/per-month' exceeded; retry after 1425600 s.");
        // the last millisecond of March (a clock of whole milliseconds, as cluster time is) is still March
        at("2026-03-31T21:59:59.999Z");
        Resp last = get("/t/hello", ip);
        assertThat(last.code()).isEqualTo(429);
        assertThat(last.h("Retry-After")).isEqualTo("1");
        assertThat(last.h("RateLimit")).isEqualTo("\"api/per-month\";r=0;t=1");
        // April starts empty at 1 April 00:00 CEST and lasts 30 days
        at("2026-03-31T22:00:00Z");
        Resp april = get("/t/hello", ip);
        assertThat(april.code()).isEqualTo(200);
        assertThat(april.h("RateLimit")).isEqualTo("\"api/per-month\";r=4;t=2592000");
        assertThat(april.h("RateLimit-Policy")).isEqualTo("\"api/per-second\";q=10;w=1, \"api/per-month\";q=5;w=2592000");
    }

    @Test
    void aDayInSydneyIs23HoursWhenItsClocksGoForward() {
        String ip = "203.0.113.62";
        // Sydney moves from +10 to +11 on 4 October 2026 at 02:00: that day runs from 3 October 14:00Z to 13:00Z
        // on 4 October; at 4 October 00:00Z, 13 h remain and w is 23 h
        at("2026-10-04T00:00:00Z");
        Resp first = get("/t/api", ip);
        assertThat(first.code()).isEqualTo(200);
        assertThat(first.h("RateLimit-Policy")).isEqualTo("\"daily-sydney\";q=2;w=82800");
        assertThat(first.h("RateLimit")).isEqualTo("\"daily-sydney\";r=1;t=46800");
        assertThat(get("/t/api", ip).h("RateLimit")).isEqualTo("\"daily-sydney\";r=0;t=46800");
        Resp denied = get("/t/api", ip);
        assertThat(denied.code()).isEqualTo(429);
        assertThat(denied.h("Retry-After")).isEqualTo("46800");
        // 5 October: a day of 24 hours from 13:00Z
        at("2026-10-04T13:00:00Z");
        Resp next = get("/t/api", ip);
        assertThat(next.code()).isEqualTo(200);
        assertThat(next.h("RateLimit-Policy")).isEqualTo("\"daily-sydney\";q=2;w=86400");
        assertThat(next.h("RateLimit")).isEqualTo("\"daily-sydney\";r=1;t=86400");
    }
}
