package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.micronaut.support.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Plans, overrides and live policy changes through the filter, over HTTP with a real member
 * (application-gl-catalog.yml, docs/SPEC.md §11). The client connects from 127.0.0.1, a trusted proxy here, so each
 * test picks its own client address with {@code X-Forwarded-For} and starts from fresh state.
 */
@MicronautTest(environments = "gl-catalog")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CatalogFilterTest implements TestPropertyProvider {
    @Inject
    @Client("/")
    HttpClient client;

    @Inject
    PolicyCatalog catalog;

    @Inject
    MeterRegistry meters;

    @Override
    public Map<String, String> getProperties() {
        return Ports.ownMember("gl-catalog");
    }

    private HttpResponse<?> get(String path, String... headers) {
        MutableHttpRequest<?> request = HttpRequest.GET(path);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            return client.toBlocking().exchange(request, String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }

    private static String policyHeader(HttpResponse<?> r) {
        return r.getHeaders().get("RateLimit-Policy");
    }

    private double planDefaults(String plan, String reason) {
        var c = meters.find("gridlimit.plan.defaults").tag("plan", plan).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void configurationSeedsTheCatalog() {
        assertThat(catalog.record("free")).hasValueSatisfying(r -> {
            assertThat(r.version()).isEqualTo(1);
            assertThat(r.policy().bands().get(0).limit()).isEqualTo(2);
        });
        assertThat(meters.find("gridlimit.policy.version").tag("policy", "gold").gauge().value()).isEqualTo(1.0);
        assertThat(catalog.referencesTo("free")).hasSize(3);
        assertThat(catalog.referencesTo("annot")).singleElement().asString()
                .startsWith("@RateLimited on TestController#annotated on replica ");
        assertThat(catalog.referencesTo("gold")).singleElement().asString()
                .startsWith("gridlimit.routes[0] (plan tiers) on replica ");
    }

    @Test
    void aTrustedProxysPlanHeaderChoosesThePolicy() {
        HttpResponse<?> gold = get("/t/hello", "X-Forwarded-For", "203.0.113.1", "X-Plan", "gold");
        assertThat(gold.code()).isEqualTo(200);
        assertThat(policyHeader(gold)).startsWith("\"gold\";q=5");
        assertThat(gold.getHeaders().get("RateLimit")).startsWith("\"gold\";r=4");
        // one state per key under the route's policy: the request the gold plan admitted counts under free too
        HttpResponse<?> free = get("/t/hello", "X-Forwarded-For", "203.0.113.1");
        assertThat(policyHeader(free)).startsWith("\"free\";q=2");
        assertThat(free.getHeaders().get("RateLimit")).startsWith("\"free\";r=0");
    }

    @Test
    void aPlanValueSwitchingOnEveryRequestNeverAdmitsBeyondTheLargerPlan() {
        // gold (5 per hour) and free (2 per hour) alternate for one client: before, each plan had its own state and
        // the client got 5 + 2 = 7 in the hour; now the count is one (fixed window, SPEC §4: the count is kept)
        int admitted = 0;
        StringBuilder codes = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            HttpResponse<?> r = i % 2 == 0 ? get("/t/hello", "X-Forwarded-For", "203.0.113.7", "X-Plan", "gold")
                    : get("/t/hello", "X-Forwarded-For", "203.0.113.7");
            codes.append(r.code()).append(' ');
            admitted += r.code() == 200 ? 1 : 0;
        }
        // gold 1, free 2 (count 1 < 2), gold 3, free refused (3 >= 2), gold 4, refused, gold 5, then all refused
        assertThat(codes.toString().trim()).isEqualTo("200 200 200 429 200 429 200 429 429 429 429 429");
        assertThat(admitted).isEqualTo(5);
    }

    @Test
    void anOverrideSetOrRemovedInTheWindowNeverAdmitsBeyondTheOldOrNewLimit() {
        String ip = "203.0.113.8";
        String key = "ip:" + ip;
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(200);
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(200);
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(429);
        // a bigger quota for this key: it continues from its 2 used, so 3 more (5 in the hour), never 5 fresh
        assertThat(catalog.putOverride("free", key, "gold", "")).isEqualTo(PolicyCatalog.OverrideStatus.APPLIED);
        HttpResponse<?> first = get("/t/skip", "X-Forwarded-For", ip);
        assertThat(first.code()).isEqualTo(200);
        assertThat(first.getHeaders().get("RateLimit")).startsWith("\"gold\";r=2");
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(200);
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(200);
        assertThat(get("/t/skip", "X-Forwarded-For", ip).code()).isEqualTo(429);
        // removed mid-window: the key keeps its 5 used against free's 2, it does not get free's quota back fresh
        assertThat(catalog.removeOverride("free", key, null)).isEqualTo(PolicyCatalog.OverrideStatus.APPLIED);
        HttpResponse<?> back = get("/t/skip", "X-Forwarded-For", ip);
        assertThat(back.code()).isEqualTo(429);
        assertThat(policyHeader(back)).startsWith("\"free\";q=2");
    }

    @Test
    void anUnknownOrAmbiguousPlanValueTakesTheDefaultAndIsCounted() {
        double unknown = planDefaults("tiers", "unknown");
        double absent = planDefaults("tiers", "absent");
        assertThat(policyHeader(get("/t/hello", "X-Forwarded-For", "203.0.113.2", "X-Plan", "platinum")))
                .startsWith("\"free\";q=2");
        assertThat(planDefaults("tiers", "unknown")).isEqualTo(unknown + 1);
        // two values are no believable value: the default, never an error
        MutableHttpRequest<?> twice = HttpRequest.GET("/t/hello").header("X-Forwarded-For", "203.0.113.2");
        twice.getHeaders().add("X-Plan", "gold");
        twice.getHeaders().add("X-Plan", "free");
        HttpResponse<String> r = client.toBlocking().exchange(twice, String.class);
        assertThat(policyHeader(r)).startsWith("\"free\";q=2");
        assertThat(planDefaults("tiers", "absent")).isEqualTo(absent + 1);
    }

    @Test
    void theApplicationsSelectorChoosesThePolicy() {
        HttpResponse<?> big = get("/t/api", "X-Forwarded-For", "203.0.113.3", "X-Tenant", "big");
        assertThat(policyHeader(big)).startsWith("\"team\";q=4");
        assertThat(big.getHeaders().get("RateLimit")).startsWith("\"team\";r=3");
        assertThat(policyHeader(get("/t/api", "X-Forwarded-For", "203.0.113.3", "X-Tenant", "small")))
                .startsWith("\"free\";q=2");
    }

    @Test
    void anOverrideDecidesOneKeyByAnotherPolicysParametersOnTheKeysState() {
        assertThat(catalog.putOverride("free", "ip:203.0.113.4", "gold", ""))
                .isEqualTo(PolicyCatalog.OverrideStatus.APPLIED);
        HttpResponse<?> overridden = get("/t/skip", "X-Forwarded-For", "203.0.113.4");
        assertThat(policyHeader(overridden)).startsWith("\"gold\";q=5");
        assertThat(overridden.getHeaders().get("RateLimit")).startsWith("\"gold\";r=4");
        assertThat(policyHeader(get("/t/skip", "X-Forwarded-For", "203.0.113.5"))).startsWith("\"free\";q=2");
        assertThat(catalog.removeOverride("free", "ip:203.0.113.4", null))
                .isEqualTo(PolicyCatalog.OverrideStatus.APPLIED);
        HttpResponse<?> back = get("/t/skip", "X-Forwarded-For", "203.0.113.4");
        assertThat(policyHeader(back)).startsWith("\"free\";q=2");
        assertThat(back.getHeaders().get("RateLimit")).startsWith("\"free\";r=0");
    }

    @Test
    void aChangeInTheCatalogAppliesWithoutARestartAndKeepsTheState() {
        String ip = "203.0.113.6";
        assertThat(get("/t/tiered", "X-Forwarded-For", ip).getHeaders().get("RateLimit")).startsWith("\"live\";r=1");
        Policy bigger = Policy.builder("live").fixedWindow(4, Duration.ofHours(1)).build();
        long version = catalog.record("live").orElseThrow().version();
        assertThat(catalog.put(bigger, version, "test").status()).isEqualTo(PolicyCatalog.Status.APPLIED);
        HttpResponse<?> after = get("/t/tiered", "X-Forwarded-For", ip);
        // the count of 1 is kept against the new limit of 4: 2 left after this request
        assertThat(policyHeader(after)).startsWith("\"live\";q=4");
        assertThat(after.getHeaders().get("RateLimit")).startsWith("\"live\";r=2");
        await().atMost(Duration.ofSeconds(10)).until(() ->
                meters.find("gridlimit.policy.version").tag("policy", "live").gauge().value() == version + 1);
        // back to the configured policy: a new, higher version
        Policy configured = Policy.builder("live").fixedWindow(2, Duration.ofHours(1)).build();
        assertThat(catalog.put(configured, version + 1, "test").after().version()).isEqualTo(version + 2);
        HttpResponse<?> rolledBack = get("/t/tiered", "X-Forwarded-For", ip);
        assertThat(rolledBack.code()).as("2 taken of a limit of 2 again").isEqualTo(429);
    }
}
