package io.gridlimit.micronaut.grid;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.client.config.ConnectionRetryConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import io.gridlimit.grid.GridLimitDataSerializableFactory;
import io.gridlimit.micronaut.config.HazelcastMode;
import io.gridlimit.micronaut.config.HazelcastSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Hazelcast configurations built from {@code gridlimit.hazelcast}, without starting anything. */
class GridFactoryTest {
    @Test
    void embeddedMemberFromSettings() {
        Config c = GridFactory.memberConfig(new HazelcastSettings(HazelcastMode.EMBEDDED, "shop", 5801,
                List.of("10.0.0.1", "10.0.0.2:5900"), null));
        assertThat(c.getClusterName()).isEqualTo("shop");
        assertThat(c.getNetworkConfig().getPort()).isEqualTo(5801);
        assertThat(c.getNetworkConfig().isPortAutoIncrement()).isTrue();
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertThat(join.getMulticastConfig().isEnabled()).isFalse();
        assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
        assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
        assertThat(join.getTcpIpConfig().getMembers()).containsExactly("10.0.0.1", "10.0.0.2:5900");
        assertThat(c.getProperty("hazelcast.shutdownhook.enabled")).isEqualTo("false");
    }

    @Test
    void userMemberConfigFileIsUsedAsGiven(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("hazelcast.yaml");
        Files.writeString(file, """
                hazelcast:
                  cluster-name: from-file
                  network:
                    port:
                      port: 6100
                """);
        Config c = GridFactory.memberConfig(new HazelcastSettings(HazelcastMode.EMBEDDED, "ignored", 5701,
                List.of("127.0.0.1"), file));
        assertThat(c.getClusterName()).isEqualTo("from-file");
        assertThat(c.getNetworkConfig().getPort()).isEqualTo(6100);
    }

    @Test
    void clientFromSettingsAndFromItsOwnFile(@TempDir Path dir) throws Exception {
        ClientConfig c = GridFactory.clientConfig(new HazelcastSettings(HazelcastMode.CLIENT, "shop", 5801,
                List.of("10.0.0.1", "10.0.0.2:5900"), null));
        assertThat(c.getClusterName()).isEqualTo("shop");
        assertThat(c.getNetworkConfig().getAddresses()).containsExactly("10.0.0.1:5801", "10.0.0.2:5900");
        ClientConnectionStrategyConfig strategy = c.getConnectionStrategyConfig();
        assertThat(strategy.isAsyncStart()).isTrue();
        assertThat(strategy.getReconnectMode()).isEqualTo(ClientConnectionStrategyConfig.ReconnectMode.ASYNC);
        ConnectionRetryConfig retry = strategy.getConnectionRetryConfig();
        assertThat(retry.getClusterConnectTimeoutMillis()).isEqualTo(-1);
        assertThat(retry.getInitialBackoffMillis()).isEqualTo(500);
        assertThat(retry.getMaxBackoffMillis()).isEqualTo(5_000);
        assertThat(retry.getMultiplier()).isEqualTo(2.0);
        assertThat(retry.getJitter()).isEqualTo(0.2);
        assertThat(c.getSerializationConfig().getDataSerializableFactories())
                .containsKey(GridLimitDataSerializableFactory.FACTORY_ID);

        Path file = dir.resolve("hazelcast-client.yaml");
        Files.writeString(file, """
                hazelcast-client:
                  cluster-name: client-file
                  network:
                    cluster-members:
                      - 192.0.2.10:5701
                """);
        ClientConfig fromFile = GridFactory.clientConfig(new HazelcastSettings(HazelcastMode.CLIENT, "ignored", 5701,
                List.of("127.0.0.1"), file));
        assertThat(fromFile.getClusterName()).isEqualTo("client-file");
        assertThat(fromFile.getNetworkConfig().getAddresses()).containsExactly("192.0.2.10:5701");
        // The user's file keeps its own connection strategy (Hazelcast's defaults here: synchronous start).
        assertThat(fromFile.getConnectionStrategyConfig().isAsyncStart()).isFalse();
        assertThat(fromFile.getSerializationConfig().getDataSerializableFactories())
                .containsKey(GridLimitDataSerializableFactory.FACTORY_ID);
    }
}
