package io.gridlimit.app.cluster;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the service on one machine (two HTTP ports, two Hazelcast ports, each listing both as TCP-IP
 * members on 127.0.0.1) form one cluster and enforce one limit: the demo route's 5 per 10 s per client IP is
 * shared, whichever instance a request reaches, and the decision API sees the filter's keys.
 */
class TwoInstancesTest {
    @Test
    void twoInstancesShareTheDemoLimit() throws Exception {
        String id = UUID.randomUUID().toString();
        int portA = Ports.freePort();
        int portB = Ports.freePort();
        Map<String, Object> a = ServiceProperties.member("svc-pair-" + id, id, portA, portA, portB);
        Map<String, Object> b = ServiceProperties.member("svc-pair-" + id, id, portB, portA, portB);
        try (EmbeddedServer serverA = ApplicationContext.run(EmbeddedServer.class, a);
             EmbeddedServer serverB = ApplicationContext.run(EmbeddedServer.class, b);
             HttpClient httpA = HttpClient.create(serverA.getURL());
             HttpClient httpB = HttpClient.create(serverB.getURL());
             HttpClient internalA = HttpClient.create(ServiceProperties.internalUrl(serverA.getApplicationContext()));
             HttpClient internalB = HttpClient.create(ServiceProperties.internalUrl(serverB.getApplicationContext()))) {
            HazelcastInstance memberA = serverA.getApplicationContext().getBean(HazelcastInstance.class);
            HazelcastInstance memberB = serverB.getApplicationContext().getBean(HazelcastInstance.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> memberA.getCluster().getMembers().size() == 2
                    && memberB.getCluster().getMembers().size() == 2);
            assertThat(memberB.getConfig().getNetworkConfig().getPort()).isEqualTo(portB);

            BlockingHttpClient clientA = httpA.toBlocking();
            BlockingHttpClient clientB = httpB.toBlocking();
            String[] remaining = {"4", "3", "2", "1", "0"};
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = Http.exchange(i % 2 == 0 ? clientA : clientB, HttpRequest.GET("/demo/hello"));
                assertThat(r.code()).as("request %d", i + 1).isEqualTo(200);
                assertThat(r.header("X-RateLimit-Remaining")).as("request %d", i + 1).isEqualTo(remaining[i]);
            }
            assertThat(Http.exchange(clientA, HttpRequest.GET("/demo/hello")).code()).isEqualTo(429);
            assertThat(Http.exchange(clientB, HttpRequest.GET("/demo/hello")).code()).isEqualTo(429);

            // The filter keyed the client as ip:127.0.0.1; the decision API sees the same state from either side.
            String check = "{\"policy\":\"demo\",\"key\":\"ip:127.0.0.1\"}";
            for (BlockingHttpClient c : new BlockingHttpClient[]{internalA.toBlocking(), internalB.toBlocking()}) {
                HttpResponse<String> r = Http.exchange(c, HttpRequest.POST("/v1/ratelimit/check", check)
                        .contentType(MediaType.APPLICATION_JSON));
                assertThat(Http.body(r)).isEqualTo("{\"allowed\":false,\"limit\":5,\"remaining\":0,"
                        + "\"resetAfterMillis\":10001,\"retryAfterMillis\":10001,\"policy\":\"demo\",\"band\":null}");
            }
            assertThat(Http.exchange(internalB.toBlocking(), HttpRequest.GET("/health/readiness")).code())
                    .isEqualTo(200);
        }
    }
}
