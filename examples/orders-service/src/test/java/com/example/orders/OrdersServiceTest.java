package com.example.orders;

import com.hazelcast.instance.BuildInfoProvider;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The orders service as its users see it, over real HTTP: started with its own application.properties, only the
 * Hazelcast member port moved to a free one so that the test runs beside anything else on the machine, and the wait
 * for a decision raised from 100 ms to 5 s: a first decision on a loaded 2-core CI machine can take longer than
 * 100 ms, and the exact counts below are about the limit, not about the failure mode. Decisions read the frozen
 * {@link FrozenClock}, so the minute's window cannot end between the requests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrdersServiceTest {
    private EmbeddedServer server;
    private HttpClient client;

    @BeforeAll
    void start() throws IOException {
        int memberPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            memberPort = s.getLocalPort();
        }
        server = ApplicationContext.run(EmbeddedServer.class, Map.of(
                "micronaut.server.port", "-1",
                "gridlimit.hazelcast.port", Integer.toString(memberPort),
                "gridlimit.hazelcast.members", "127.0.0.1:" + memberPort,
                "gridlimit.grid-timeout", "5s"));
        client = HttpClient.create(server.getURL());
    }

    @AfterAll
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void theOrdersRouteIsLimitedToThreePerMinuteWithItsHeaders() {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> ok = client.toBlocking().exchange(HttpRequest.GET("/orders/" + i), String.class);
            assertEquals(200, ok.code());
            assertEquals("order " + i, ok.body());
            assertEquals("3", ok.header("X-RateLimit-Limit"));
            assertEquals(Integer.toString(3 - i), ok.header("X-RateLimit-Remaining"));
            assertEquals("\"orders\";q=3;w=60", ok.header("RateLimit-Policy"));
        }
        HttpClientResponseException denied = assertThrowsDenied("/orders/4");
        assertEquals(429, denied.getStatus().getCode());
        assertEquals("0", denied.getResponse().header("X-RateLimit-Remaining"));
        assertEquals("application/problem+json", denied.getResponse().header("Content-Type"));
        assertEquals("60", denied.getResponse().header("Retry-After"), "the clock is frozen at the minute's start");
    }

    @Test
    void anotherRouteIsNotLimited() {
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = client.toBlocking().exchange(HttpRequest.GET("/catalog"), String.class);
            assertEquals(200, r.code());
            assertNull(r.header("RateLimit"));
            assertNull(r.header("X-RateLimit-Limit"));
        }
    }

    @Test
    void theGridLimitServiceRoutesAreNotHere() {
        assertEquals(404, assertThrowsDenied("/demo/hello").getStatus().getCode());
        HttpClientResponseException api = assertThrows(() -> client.toBlocking().exchange(
                HttpRequest.POST("/v1/ratelimit/check", "{\"policy\":\"orders\",\"key\":\"ip:127.0.0.1\"}")
                        .contentType("application/json"), String.class));
        assertEquals(404, api.getStatus().getCode());
    }

    @Test
    void theApplicationNameAndTheLoggingAreItsOwn() throws IOException {
        assertEquals("orders-service",
                server.getApplicationContext().getProperty("micronaut.application.name", String.class).orElseThrow());
        assertFalse(server.getApplicationContext().containsProperty("gridlimit.service.enabled"));
        List<URL> logbackFiles = Collections.list(getClass().getClassLoader().getResources("logback.xml"));
        assertEquals(1, logbackFiles.size(), logbackFiles.toString());
        assertEquals(java.nio.file.Path.of("target/classes/logback.xml").toAbsolutePath().toUri().toURL(),
                logbackFiles.get(0));
        assertEquals(List.of(), Collections.list(getClass().getClassLoader().getResources("application.yml")));
        assertEquals("DEBUG", ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("com.example.orders"))
                .getLevel().toString());
    }

    @Test
    void hazelcastIsTheTestedVersion() {
        assertTrue(BuildInfoProvider.getBuildInfo().getVersion().startsWith("5.7."),
                BuildInfoProvider.getBuildInfo().getVersion());
    }

    private HttpClientResponseException assertThrowsDenied(String path) {
        return assertThrows(() -> client.toBlocking().exchange(HttpRequest.GET(path), String.class));
    }

    private static HttpClientResponseException assertThrows(org.junit.jupiter.api.function.Executable call) {
        return org.junit.jupiter.api.Assertions.assertThrows(HttpClientResponseException.class, call);
    }
}
