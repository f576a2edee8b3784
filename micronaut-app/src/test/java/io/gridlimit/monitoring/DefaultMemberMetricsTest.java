package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.micronaut.context.ApplicationContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without a Hazelcast configuration file (the jar's defaults, as outside Kubernetes), the service's embedded member
 * exposes its metrics to Management Center and as JMX MBeans: Hazelcast's defaults, which GridFactory keeps. The
 * Kubernetes base turns the Management Center part off in its hazelcast.yaml, and overlays/management-center turns
 * it back on ({@link MonitoredServiceTest} checks that member).
 */
class DefaultMemberMetricsTest {
    @Test
    void theDefaultEmbeddedMemberPublishesMetricsToManagementCenterAndJmx() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of(
                "gridlimit.hazelcast.port", port,
                "gridlimit.hazelcast.members", "127.0.0.1:" + port,
                "gridlimit.hazelcast.cluster-name", "monitoring-default-" + port))) {
            HazelcastInstance member = context.getBean(HazelcastInstance.class);
            Config config = member.getConfig();

            assertThat(config.getMetricsConfig().isEnabled()).as("metrics").isTrue();
            assertThat(config.getMetricsConfig().getManagementCenterConfig().isEnabled())
                    .as("metrics sent to Management Center").isTrue();
            assertThat(config.getMetricsConfig().getJmxConfig().isEnabled()).as("metrics as JMX MBeans").isTrue();
            assertThat(member.getCluster().getLocalMember().isLiteMember()).isFalse();
        }
    }
}
