package io.gridlimit.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two replicas of the service in one cluster (docs/SPEC.md §11): a policy changed through one replica's admin API
 * reaches the other (Awaitility, never a timed assertion), the key's count is kept across the change, and a
 * rollback is a new, higher version.
 */
class CatalogReplicasTest {
    @Test
    void aChangeOnOneReplicaReachesTheOtherAndKeepsTheKeysState() throws Exception {
        String id = UUID.randomUUID().toString();
        int portA = Ports.freePort();
        int portB = Ports.freePort();
        Map<String, Object> a = ServiceProperties.member("svc-catalog-" + id, id, portA, portA, portB);
        Map<String, Object> b = ServiceProperties.member("svc-catalog-" + id, id, portB, portA, portB);
        try (EmbeddedServer serverA = ApplicationContext.run(EmbeddedServer.class, a);
             EmbeddedServer serverB = ApplicationContext.run(EmbeddedServer.class, b);
             HttpClient httpA = HttpClient.create(serverA.getURL());
             HttpClient httpB = HttpClient.create(serverB.getURL());
             HttpClient internalA = HttpClient.create(ServiceProperties.internalUrl(serverA.getApplicationContext()))) {
            BlockingHttpClient clientA = httpA.toBlocking();
            BlockingHttpClient clientB = httpB.toBlocking();
            com.hazelcast.core.HazelcastInstance memberA = serverA.getApplicationContext()
                    .getBean(com.hazelcast.core.HazelcastInstance.class);
            com.hazelcast.core.HazelcastInstance memberB = serverB.getApplicationContext()
                    .getBean(com.hazelcast.core.HazelcastInstance.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> memberA.getCluster().getMembers().size() == 2
                    && memberB.getCluster().getMembers().size() == 2);
            HttpResponse<String> first = Http.exchange(clientB, HttpRequest.GET("/demo/hello"));
            assertThat(first.header("RateLimit-Policy")).isEqualTo("\"demo\";q=5;w=10");
            assertThat(first.header("X-RateLimit-Remaining")).isEqualTo("4");
            assertThat(Http.exchange(clientA, HttpRequest.GET("/demo/hello")).header("X-RateLimit-Remaining"))
                    .isEqualTo("3");

            String bigger = "{\"algorithm\":\"sliding-window-log\",\"limit\":8,\"window\":\"10s\"}";
            HttpResponse<String> put = Http.exchange(internalA.toBlocking(), HttpRequest.PUT("/v1/policies/demo",
                    bigger).contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"1\""));
            assertThat(put.code()).isEqualTo(200);
            assertThat(put.header("ETag")).isEqualTo("\"2\"");
            // B's copy follows; the 2 taken are kept against the new limit of 8
            await().atMost(Duration.ofSeconds(10)).until(() -> serverB.getApplicationContext()
                    .getBean(io.gridlimit.grid.catalog.PolicyCatalog.class).record("demo")
                    .map(r -> r.version() == 2).orElse(false));
            HttpResponse<String> onB = Http.exchange(clientB, HttpRequest.GET("/demo/hello"));
            assertThat(onB.header("RateLimit-Policy")).isEqualTo("\"demo\";q=8;w=10");
            assertThat(onB.header("X-RateLimit-Remaining")).isEqualTo("5");

            String configured = "{\"algorithm\":\"sliding-window-log\",\"limit\":5,\"window\":\"10s\"}";
            HttpResponse<String> rollback = Http.exchange(internalA.toBlocking(), HttpRequest.PUT("/v1/policies/demo",
                    configured).contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"2\""));
            assertThat(rollback.header("ETag")).isEqualTo("\"3\"");
            await().atMost(Duration.ofSeconds(10)).until(() -> serverB.getApplicationContext()
                    .getBean(io.gridlimit.grid.catalog.PolicyCatalog.class).record("demo")
                    .map(r -> r.version() == 3).orElse(false));
            HttpResponse<String> back = Http.exchange(clientB, HttpRequest.GET("/demo/hello"));
            assertThat(back.header("RateLimit-Policy")).isEqualTo("\"demo\";q=5;w=10");
            assertThat(back.header("X-RateLimit-Remaining")).as("4 taken of 5").isEqualTo("1");
        }
    }
}
