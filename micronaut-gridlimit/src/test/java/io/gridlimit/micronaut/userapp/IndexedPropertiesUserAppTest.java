package io.gridlimit.micronaut.userapp;

import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's service configured in {@code application.properties} the way Micronaut documents lists, entry by entry
 * ({@code application-gl-indexed.properties}: {@code gridlimit.routes[0].key[0]=header:X-User},
 * {@code gridlimit.routes[0].methods[0]=GET}). Issue 21: this did not boot ("unknown property; did you mean
 * gridlimit.routes[0].key?"), and with the check relaxed the key and methods were dropped (every method limited,
 * keyed by client IP, so two users shared one quota). Over real HTTP, each user gets exactly their limit, and the
 * route limits GET only. The manual clock keeps the hour's window from ending between requests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexedPropertiesUserAppTest {
    private EmbeddedServer server;
    private HttpClient client;

    @BeforeAll
    void start() {
        Map<String, Object> props = new HashMap<>(Ports.ownMember("indexed"));
        props.put("micronaut.server.port", "-1");
        props.put("gridlimit-test.manual-clock", "true");
        props.put("gridlimit.grid-timeout", "5s"); // exact counts, not the failure mode
        server = ApplicationContext.run(EmbeddedServer.class, props, "gl-indexed");
        client = HttpClient.create(server.getURL());
    }

    @AfterAll
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void eachUserGetsExactlyTheirLimitOnTheIndexedRoute() {
        for (String user : new String[] {"alice", "bob"}) {
            for (int i = 1; i <= 2; i++) {
                HttpResponse<?> ok = send(HttpRequest.GET("/orders/" + i).header("X-User", user));
                assertThat(ok.code()).as(user + " request " + i).isEqualTo(200);
                assertThat(ok.getHeaders().get("X-RateLimit-Remaining")).isEqualTo(Integer.toString(2 - i));
            }
            HttpResponse<?> denied = send(HttpRequest.GET("/orders/3").header("X-User", user));
            assertThat(denied.code()).as(user + " request 3").isEqualTo(429);
            assertThat(denied.getHeaders().get("Retry-After")).isEqualTo("3600");
        }
        // methods[0]=GET: the route does not limit POST (only the method's own @RateLimited, 100 an hour)
        for (int i = 0; i < 3; i++) {
            HttpResponse<?> placed = send(HttpRequest.POST("/orders", "{}").contentType(MediaType.APPLICATION_JSON)
                    .header("X-User", "alice"));
            assertThat(placed.code()).isEqualTo(201);
            assertThat(placed.getHeaders().get("RateLimit-Policy")).isEqualTo("\"orders-write\";q=100;w=3600");
        }
        // key[0]=header:X-User: a request without the header has no key and is refused (on-missing-key: reject)
        assertThat(send(HttpRequest.GET("/orders/1")).code()).isEqualTo(400);
    }

    private HttpResponse<?> send(MutableHttpRequest<?> request) {
        try {
            return client.toBlocking().exchange(request, String.class);
        } catch (HttpClientResponseException e) {
            return e.getResponse();
        }
    }
}
