package io.gridlimit.micronaut.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.micronaut.support.Ports;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The attack: a client sends the plan header itself. 127.0.0.1 is not a trusted proxy here, so its {@code X-Plan}
 * is never read (docs/SPEC.md §11): the request gets the route's default policy, and the default is counted as
 * absent (no believable value).
 */
@MicronautTest(environments = "gl-catalog")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UntrustedPlanHeaderTest implements TestPropertyProvider {
    @Inject
    @Client("/")
    HttpClient client;

    @Inject
    MeterRegistry meters;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = Ports.ownMember("gl-untrusted");
        p.put("gridlimit.client-ip.trusted-proxies", "10.0.0.0/8");
        return p;
    }

    @Test
    void aClientCannotChooseItsOwnPlan() {
        HttpResponse<String> r = client.toBlocking().exchange(HttpRequest.GET("/t/hello").header("X-Plan", "gold"),
                String.class);
        assertThat(r.getHeaders().get("RateLimit-Policy")).startsWith("\"free\";q=2");
        assertThat(r.getHeaders().get("RateLimit")).startsWith("\"free\";r=1");
        assertThat(meters.find("gridlimit.plan.defaults").tag("plan", "tiers").tag("reason", "absent").counter()
                .count()).isEqualTo(1.0);
    }
}
