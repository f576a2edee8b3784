package io.gridlimit.app.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.grid.GridWarmup;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.app.support.SharedClock;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gridlimit.hazelcast.mode: client}: the service connects to an existing Hazelcast cluster (here one member
 * started by the test with GridLimit's configuration and a manual clock) instead of embedding a member; decisions
 * run on that member and the state lives in its {@code gridlimit.<policy>} map.
 */
class ClientModeTest {
    @Test
    void theServiceDecidesThroughAnExistingCluster() throws Exception {
        String cluster = "svc-client-" + UUID.randomUUID();
        int memberPort = Ports.freePort();
        ManualTimeSource clock = ManualTimeSource.startingAt(SharedClock.START);
        Config config = new Config().setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().setPort(memberPort).setPortAutoIncrement(false);
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1"));
        HazelcastInstance member = Hazelcast.newHazelcastInstance(GridLimitHazelcast.configure(config, clock));
        try {
            Map<String, Object> p = new HashMap<>();
            p.put("micronaut.server.port", -1);
            p.putAll(ServiceProperties.SLOW_MACHINE_TIMEOUTS);
            p.put("gridlimit.hazelcast.mode", "client");
            p.put("gridlimit.hazelcast.cluster-name", cluster);
            p.put("gridlimit.hazelcast.members", List.of("127.0.0.1:" + memberPort));
            p.put(ServiceProperties.INTERNAL_PORT, Ports.freePort());
            try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p);
                 HttpClient http = HttpClient.create(ServiceProperties.internalUrl(server.getApplicationContext()));
                 HttpClient web = HttpClient.create(server.getURL())) {
                assertThat(server.getApplicationContext().getBean(HazelcastInstance.class).getCluster()
                        .getMembers()).hasSize(1);
                HttpResponse<String> r = Http.exchange(http.toBlocking(), HttpRequest.POST("/v1/ratelimit/check",
                        "{\"policy\":\"demo\",\"key\":\"user:client\",\"cost\":2}").contentType(MediaType.APPLICATION_JSON));
                assertThat(Http.body(r)).isEqualTo("{\"allowed\":true,\"limit\":5,\"remaining\":3,"
                        + "\"resetAfterMillis\":10001,\"retryAfterMillis\":null,\"policy\":\"demo\",\"band\":null}");
                HttpResponse<String> hello = Http.exchange(web.toBlocking(), HttpRequest.GET("/demo/hello"));
                assertThat(hello.code()).isEqualTo(200);
                assertThat(hello.header("RateLimit")).isEqualTo("\"demo\";r=4;t=11");
                // The start-up warm-up left no state behind: neither in demo's map nor a map of its own.
                assertThat(member.getMap(GridLimitHazelcast.mapName("demo")).keySet())
                        .containsExactlyInAnyOrder("user:client", "ip:127.0.0.1");
                assertThat(member.getDistributedObjects()).extracting(o -> o.getName())
                        .doesNotContain(GridLimitHazelcast.mapName(GridWarmup.WARMUP_POLICY));
            }
        } finally {
            member.shutdown();
        }
    }
}
