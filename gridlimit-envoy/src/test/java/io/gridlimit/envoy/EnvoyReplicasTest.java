package io.gridlimit.envoy;

import com.hazelcast.core.HazelcastInstance;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.micronaut.support.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas of the service, each an embedded member of one cluster with its own gRPC port, share one limit
 * exactly, and the survivor of a member loss continues from the state the backups hold (SPEC §8). Both members'
 * clocks are manual and frozen at the same instant, so every decision, on whichever owner, reads the same time.
 */
class EnvoyReplicasTest {
    private Rls a;
    private Rls b;

    @BeforeEach
    void start() {
        int portA = Ports.freePort();
        int portB = Ports.freePort();
        String cluster = "envoy-replicas-" + portA;
        a = Rls.start(member(cluster, portA, portB));
        b = Rls.start(member(cluster, portB, portA));
        await().atMost(60, TimeUnit.SECONDS).until(() -> a.context.getBean(HazelcastInstance.class).getCluster()
                .getMembers().size() == 2 && b.context.getBean(HazelcastInstance.class).getCluster()
                .getMembers().size() == 2);
        await().atMost(60, TimeUnit.SECONDS).until(() -> a.context.getBean(HazelcastInstance.class)
                .getPartitionService().isClusterSafe());
    }

    private static Map<String, Object> member(String cluster, int port, int other) {
        Map<String, Object> p = Rls.properties("unused", "example2.yaml");
        p.put("gridlimit.hazelcast.port", Integer.toString(port));
        p.put("gridlimit.hazelcast.members", "127.0.0.1:" + port + ",127.0.0.1:" + other);
        p.put("gridlimit.hazelcast.cluster-name", cluster);
        p.put("gridlimit.local.expected-replicas", "2");
        return p;
    }

    @AfterEach
    void stop() {
        if (b != null) {
            b.close();
        }
        if (a != null) {
            a.close();
        }
    }

    private static String call(Rls rls, RateLimitDescriptor d) {
        return statuses(rls.call("messaging", d)).get(0);
    }

    @Test
    void twoReplicasShareOneLimitExactly() {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            for (String number : List.of("2061111111", "2062222222")) {
                seen.add(call(i % 2 == 0 ? a : b, d("message_type", "marketing", "to_number", number)));
            }
        }
        assertThat(seen).containsExactly(
                "OK 4/5 per DAY", "OK 4/5 per DAY",
                "OK 3/5 per DAY", "OK 3/5 per DAY",
                "OK 2/5 per DAY", "OK 2/5 per DAY",
                "OK 1/5 per DAY", "OK 1/5 per DAY",
                "OK 0/5 per DAY", "OK 0/5 per DAY",
                "OVER_LIMIT 0/5 per DAY", "OVER_LIMIT 0/5 per DAY",
                "OVER_LIMIT 0/5 per DAY", "OVER_LIMIT 0/5 per DAY");
    }

    @Test
    void theSurvivorOfAMemberLossContinuesFromTheBackups() {
        List<RateLimitDescriptor> keys = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            keys.add(d("message_type", "marketing", "to_number", "20600000" + i));
        }
        for (RateLimitDescriptor k : keys) {
            assertThat(call(a, k)).isEqualTo("OK 4/5 per DAY");
            assertThat(call(b, k)).isEqualTo("OK 3/5 per DAY");
            assertThat(call(a, k)).isEqualTo("OK 2/5 per DAY");
        }
        // some of the keys' states were owned by the member that is lost (their backups are on the survivor)
        HazelcastInstance lost = b.context.getBean(HazelcastInstance.class);
        long ownedByLost = keys.stream().filter(k -> lost.getPartitionService().getPartition(RlsConfig.gridKey(
                List.of("message_type", "to_number"), List.of("marketing", k.getEntries(1).getValue()))).getOwner()
                .localMember()).count();
        assertThat(ownedByLost).isPositive();
        b.context.getBean(HazelcastInstance.class).getLifecycleService().terminate();
        await().atMost(60, TimeUnit.SECONDS).until(() -> a.context.getBean(HazelcastInstance.class).getCluster()
                .getMembers().size() == 1);
        for (RateLimitDescriptor k : keys) {
            assertThat(call(a, k)).isEqualTo("OK 1/5 per DAY");
            assertThat(call(a, k)).isEqualTo("OK 0/5 per DAY");
            assertThat(call(a, k)).isEqualTo("OVER_LIMIT 0/5 per DAY");
        }
    }
}
