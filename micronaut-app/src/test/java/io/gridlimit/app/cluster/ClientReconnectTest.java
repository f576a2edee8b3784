package io.gridlimit.app.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.app.support.SharedClock;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Client mode when the cluster goes away: the service boots without a reachable cluster, answers in its failure
 * mode while disconnected (never a 500), reports readiness DOWN from the client's lifecycle events (not from its
 * stale member list) and returns to grid decisions once a member is back on the same address.
 */
class ClientReconnectTest {
    private static final String CHECK = "{\"policy\":\"demo\",\"key\":\"user:reconnect\"}";
    private static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    @Test
    void theClientSurvivesTheClusterGoingAwayAndComingBack() {
        String cluster = "svc-reconnect-" + UUID.randomUUID();
        int memberPort = Ports.freePort();
        HazelcastInstance first = member(cluster, memberPort);
        HazelcastInstance second = null;
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                clientProperties(cluster, memberPort, "closed"));
             HttpClient http = HttpClient.create(ServiceProperties.internalUrl(server.getApplicationContext()));
             HttpClient web = HttpClient.create(server.getURL())) {
            BlockingHttpClient client = http.toBlocking();
            awaitReadiness(client, 200, Duration.ofSeconds(30));
            HttpResponse<String> decided = check(client);
            assertThat(decided.code()).isEqualTo(200);
            assertThat(Http.body(decided)).startsWith("{\"allowed\":true,\"limit\":5,\"remaining\":4,");

            first.shutdown();
            // From the client's lifecycle events: well before its member list would forget the member (~30 s).
            awaitReadiness(client, 503, Duration.ofSeconds(10));
            assertThat(Http.exchange(client, HttpRequest.GET("/health/liveness")).code()).isEqualTo(200);
            HttpResponse<String> api = check(client);
            assertThat(api.code()).isEqualTo(503);
            assertThat(api.header("Retry-After")).isEqualTo("1");
            assertThat(Http.body(api)).contains(TEMPORARY_REDUCED_CAPACITY);
            HttpResponse<String> filtered = Http.exchange(web.toBlocking(), HttpRequest.GET("/demo/hello"));
            assertThat(filtered.code()).isEqualTo(503);
            assertThat(filtered.header("Retry-After")).isEqualTo("1");
            assertThat(Http.body(filtered)).contains(TEMPORARY_REDUCED_CAPACITY);

            second = member(cluster, memberPort);
            awaitReadiness(client, 200, Duration.ofSeconds(30));
            HttpResponse<String> back = check(client);
            assertThat(back.code()).isEqualTo(200);
            // The new member holds fresh state: the decision ran there.
            assertThat(Http.body(back)).startsWith("{\"allowed\":true,\"limit\":5,\"remaining\":4,");
            assertThat(second.getMap(GridLimitHazelcast.mapName("demo")).keySet()).contains("user:reconnect");
            HttpResponse<String> hello = Http.exchange(web.toBlocking(), HttpRequest.GET("/demo/hello"));
            assertThat(hello.code()).isEqualTo(200);
            assertThat(hello.header("RateLimit")).isEqualTo("\"demo\";r=4;t=11");
        } finally {
            first.shutdown();
            if (second != null) {
                second.shutdown();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"open", "closed", "local"})
    void theServiceBootsAndAnswersInItsFailureModeWhileTheClusterIsUnreachable(String failureMode) {
        int nobody = Ports.freePort();
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                clientProperties("svc-unreachable-" + UUID.randomUUID(), nobody, failureMode));
             HttpClient http = HttpClient.create(ServiceProperties.internalUrl(server.getApplicationContext()));
             HttpClient web = HttpClient.create(server.getURL())) {
            BlockingHttpClient client = http.toBlocking();
            assertThat(Http.exchange(client, HttpRequest.GET("/health/readiness")).code()).isEqualTo(503);
            assertThat(Http.exchange(client, HttpRequest.GET("/health/liveness")).code()).isEqualTo(200);

            HttpResponse<String> api = check(client);
            assertThat(api.code()).isEqualTo(503);
            assertThat(api.header("Retry-After")).isEqualTo("1");
            assertThat(Http.body(api)).contains(TEMPORARY_REDUCED_CAPACITY);

            HttpResponse<String> hello = Http.exchange(web.toBlocking(), HttpRequest.GET("/demo/hello"));
            switch (failureMode) {
                case "open" -> {
                    assertThat(hello.code()).isEqualTo(200);
                    assertThat(hello.header("RateLimit")).isNull();
                }
                case "closed" -> {
                    assertThat(hello.code()).isEqualTo(503);
                    assertThat(hello.header("Retry-After")).isEqualTo("1");
                }
                default -> {
                    // local: demo (5 per 10 s) divided by 3 expected replicas, rounded down = 1 (SPEC §5); spent.
                    assertThat(hello.code()).isEqualTo(200);
                    assertThat(hello.header("RateLimit-Policy")).isEqualTo("\"demo\";q=1;w=10");
                    assertThat(hello.header("RateLimit")).startsWith("\"demo\";r=0;t=");
                }
            }
        }
    }

    private static Map<String, Object> clientProperties(String cluster, int memberPort, String failureMode) {
        Map<String, Object> p = new HashMap<>();
        p.put("micronaut.server.port", -1);
        p.putAll(ServiceProperties.SLOW_MACHINE_TIMEOUTS);
        p.put("gridlimit.failure-mode", failureMode);
        p.put("gridlimit.hazelcast.mode", "client");
        p.put("gridlimit.hazelcast.cluster-name", cluster);
        p.put("gridlimit.hazelcast.members", List.of("127.0.0.1:" + memberPort));
        p.put(ServiceProperties.INTERNAL_PORT, Ports.freePort());
        return p;
    }

    private static HazelcastInstance member(String cluster, int port) {
        Config config = new Config().setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.partition.count", "31");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1"));
        ManualTimeSource clock = ManualTimeSource.startingAt(SharedClock.START);
        return Hazelcast.newHazelcastInstance(GridLimitHazelcast.configure(config, clock));
    }

    private static HttpResponse<String> check(BlockingHttpClient client) {
        return Http.exchange(client, HttpRequest.POST("/v1/ratelimit/check", CHECK)
                .contentType(MediaType.APPLICATION_JSON));
    }

    private static void awaitReadiness(BlockingHttpClient client, int status, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                assertThat(Http.exchange(client, HttpRequest.GET("/health/readiness")).code()).isEqualTo(status));
    }
}
