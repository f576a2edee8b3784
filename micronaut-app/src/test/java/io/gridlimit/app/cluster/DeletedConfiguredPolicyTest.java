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
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Found by a hostile review: a configured policy deleted through the admin API while no live route named it, then a
 * replica joins whose route names it. That replica decides the policy with its configuration (docs/SPEC.md §11, "Not
 * atomic across records"), in its filter and in its decision API alike, so both share one quota per key: the route's
 * two requests leave nothing for the decision API (before the fix, the filter decided with the configuration and the
 * decision API answered 404 "not a configured policy").
 */
class DeletedConfiguredPolicyTest {
    @Test
    void theDecisionApiAndTheFilterAgreeOnAConfiguredPolicyTheCatalogDeleted() throws Exception {
        String id = UUID.randomUUID().toString();
        int portA = Ports.freePort();
        int portB = Ports.freePort();
        Map<String, Object> a = ServiceProperties.member("svc-deleted-" + id, id, portA, portA, portB);
        a.put("gridlimit.policies.zz.algorithm", "fixed-window");
        a.put("gridlimit.policies.zz.limit", 2);
        a.put("gridlimit.policies.zz.window", "1h");
        Map<String, Object> b = ServiceProperties.member("svc-deleted-" + id, id, portB, portA, portB);
        b.put("gridlimit.policies.zz.algorithm", "fixed-window");
        b.put("gridlimit.policies.zz.limit", 2);
        b.put("gridlimit.policies.zz.window", "1h");
        // a route is written whole: routes[0] here replaces the jar's list, it does not edit the jar's routes[0]
        b.put("gridlimit.routes[0].pattern", "/demo/hello");
        b.put("gridlimit.routes[0].policy", "zz");
        try (EmbeddedServer serverA = ApplicationContext.run(EmbeddedServer.class, a);
             HttpClient internalA = HttpClient.create(ServiceProperties.internalUrl(serverA.getApplicationContext()))) {
            HttpResponse<String> deleted = Http.exchange(internalA.toBlocking(),
                    HttpRequest.DELETE("/v1/policies/zz"));
            assertThat(deleted.code()).isEqualTo(204);
            try (EmbeddedServer serverB = ApplicationContext.run(EmbeddedServer.class, b);
                 HttpClient httpB = HttpClient.create(serverB.getURL());
                 HttpClient internalB = HttpClient.create(
                         ServiceProperties.internalUrl(serverB.getApplicationContext()))) {
                com.hazelcast.core.HazelcastInstance memberB = serverB.getApplicationContext()
                        .getBean(com.hazelcast.core.HazelcastInstance.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> memberB.getCluster().getMembers().size() == 2);
                HttpResponse<String> viaFilter = Http.exchange(httpB.toBlocking(), HttpRequest.GET("/demo/hello"));
                assertThat(viaFilter.header("RateLimit-Policy")).as("the filter decides zz with configuration")
                        .isEqualTo("\"zz\";q=2;w=3600");
                HttpResponse<String> viaApi = Http.exchange(internalB.toBlocking(),
                        HttpRequest.POST("/v1/ratelimit/check", "{\"policy\":\"zz\",\"key\":\"ip:127.0.0.1\"}")
                                .contentType(MediaType.APPLICATION_JSON));
                assertThat(viaApi.code()).as(Http.body(viaApi)).isEqualTo(200);
                assertThat(Http.body(viaApi)).contains("\"remaining\":0");
            }
        }
    }
}
