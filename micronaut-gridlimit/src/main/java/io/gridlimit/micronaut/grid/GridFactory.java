package io.gridlimit.micronaut.grid;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.client.config.XmlClientConfigBuilder;
import com.hazelcast.client.config.YamlClientConfigBuilder;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.HazelcastMode;
import io.gridlimit.micronaut.config.HazelcastSettings;
import io.gridlimit.micronaut.config.LeaseProperties;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.exceptions.ConfigurationException;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Creates the grid beans from {@code gridlimit.hazelcast}: the {@link HazelcastInstance} (an embedded member, or a
 * client), the {@link io.gridlimit.api.RateLimiter} ({@link HazelcastRateLimiter}) and the {@link TimeSource}.
 * The limiter is created at startup ({@link GridStartup}), so the member joins before the server takes requests. On
 * context close the limiter closes first, then the instance shuts down gracefully (a member hands its partitions
 * over before leaving). Hazelcast's own shutdown hook is off: Micronaut's closes the context.
 *
 * <p>Embedded member: cluster name, {@code port} (auto-increment on), bound only to {@code interfaces} (Hazelcast
 * interfaces enabled, {@code hazelcast.socket.bind.any=false}), TCP-IP join with {@code members}, multicast
 * and auto-detection off, phone-home off; or the user's {@code config-file} as given. Client: cluster name and
 * {@code members} as addresses (a member without port gets {@code port}), started asynchronously (the application
 * boots and answers in its failure mode until the client connects), reconnecting asynchronously after it loses the
 * cluster (requests fail fast with {@code HazelcastClientOfflineException} meanwhile, which the filter and the
 * decision API answer as grid failures) and never giving up (cluster-connect timeout infinite, backoff
 * {@value #CLIENT_INITIAL_BACKOFF_MILLIS} ms doubling up to {@value #CLIENT_MAX_BACKOFF_MILLIS} ms with 20 %
 * jitter); or the user's client {@code config-file} as given (its connection strategy included). A client's
 * connection state feeds {@link GridConnection} (readiness). Either way GridLimit adds its serialization and its {@code gridlimit.*} map configuration
 * ({@link GridLimitHazelcast}); a member's decisions read its cluster time, or the {@code TimeSource} bean when a
 * test or user replaced it.
 */
@Factory
public class GridFactory {
    /** Cluster-connect timeout of a client without a config file: -1, never give up (Hazelcast's infinite). */
    public static final long CLIENT_CONNECT_TIMEOUT_MILLIS = -1;
    /** First wait between a client's connection attempts, in milliseconds. */
    public static final int CLIENT_INITIAL_BACKOFF_MILLIS = 500;
    /** Longest wait between a client's connection attempts, in milliseconds. */
    public static final int CLIENT_MAX_BACKOFF_MILLIS = 5_000;

    private static final Logger LOG = LoggerFactory.getLogger(GridFactory.class);

    /**
     * The default clock: the grid's cluster time.
     *
     * @param instance the Hazelcast instance, resolved on first reading
     * @return the time source
     */
    @Singleton
    public TimeSource timeSource(BeanProvider<HazelcastInstance> instance) {
        return new GridTimeSource(instance);
    }

    /**
     * Starts the Hazelcast member or client.
     *
     * @param config the checked configuration
     * @param timeSource the clock for an embedded member's decisions (ignored unless replaced)
     * @param connection receives a client's connection events (unused by a member)
     * @return the running instance (a client may still be connecting)
     * @throws ConfigurationException if the user's config file cannot be read
     */
    @Singleton
    @Bean(preDestroy = "shutdown")
    public HazelcastInstance hazelcastInstance(GridLimitConfig config, TimeSource timeSource,
                                               GridConnection connection) {
        HazelcastSettings s = config.hazelcast();
        if (s.mode() == HazelcastMode.CLIENT) {
            ClientConfig client = clientConfig(s);
            client.addListenerConfig(new ListenerConfig(connection));
            connection.track();
            LOG.info("connecting to Hazelcast cluster '{}' as a client", client.getClusterName());
            return HazelcastClient.newHazelcastClient(client);
        }
        Config member = memberConfig(s);
        if (timeSource instanceof GridTimeSource) {
            GridLimitHazelcast.configure(member);
        } else {
            GridLimitHazelcast.configure(member, timeSource);
        }
        LOG.info("starting embedded Hazelcast member of cluster '{}'", member.getClusterName());
        return Hazelcast.newHazelcastInstance(member);
    }

    /**
     * The rate limiter of the application, on the Hazelcast instance.
     *
     * @param instance the running Hazelcast instance
     * @param metrics counts the give-backs of late admissions ({@value GridLimitMetrics#GIVE_BACKS},
     *     {@code reason=late}); resolved at the first one (the meter binders depend on the limiter)
     * @param leases {@code gridlimit.leases} (docs/SPEC.md §13)
     * @return the limiter; closed when the context closes
     */
    @Singleton
    @Bean(preDestroy = "close")
    public HazelcastRateLimiter rateLimiter(HazelcastInstance instance, BeanProvider<GridLimitMetrics> metrics,
                                            LeaseProperties leases) {
        HazelcastRateLimiter.Builder builder = HazelcastRateLimiter.builder(instance).giveBackListener(
                (policy, settlement, failure) ->
                        metrics.get().giveBack(policy, GridLimitMetrics.GiveBackReason.LATE, settlement));
        io.gridlimit.grid.lease.LeaseSettings settings = leases.settings();
        if (settings != null) {
            LOG.info("quota leases on: life {}, window {}, at least {} units, at most 1/{} of capacity",
                    leases.maxLife(), leases.window(), leases.minUnits(), leases.capacityShare());
            builder.leases(settings);
        }
        return builder.build();
    }

    /**
     * The member configuration for the settings: GridLimit's {@code gridlimit.*} map configuration bounded at
     * {@code max-keys-per-member} keys per member (unless a config file has its own {@code gridlimit.*} map
     * configuration, kept as written) and, when {@code min-cluster-size} is 2 or more, split-brain protection on
     * every {@code gridlimit.*} map (docs: grid-core/docs/reliability.md). Serialization is added by
     * {@code GridLimitHazelcast.configure}.
     *
     * @param s the grid settings
     * @return a new member configuration
     * @throws ConfigurationException if the config file cannot be read
     */
    static Config memberConfig(HazelcastSettings s) {
        Config c;
        if (s.configFile() != null) {
            try {
                c = Config.loadFromFile(s.configFile().toFile(), new Properties());
            } catch (IOException | RuntimeException e) {
                throw new ConfigurationException("gridlimit.hazelcast.config-file: cannot read '" + s.configFile()
                        + "' as a Hazelcast member configuration: " + e.getMessage(), e);
            }
        } else {
            c = new Config();
            c.setClusterName(s.clusterName());
            NetworkConfig network = c.getNetworkConfig();
            network.setPort(s.port()).setPortAutoIncrement(true);
            // bind only to the configured interfaces (default loopback), never to every address
            network.getInterfaces().setEnabled(true).setInterfaces(new ArrayList<>(s.interfaces()));
            c.setProperty("hazelcast.socket.bind.any", "false");
            JoinConfig join = network.getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getAutoDetectionConfig().setEnabled(false);
            join.getTcpIpConfig().setEnabled(true).setMembers(new ArrayList<>(s.members()));
        }
        setIfAbsent(c.getProperties(), "hazelcast.phone.home.enabled", "false");
        setIfAbsent(c.getProperties(), "hazelcast.shutdownhook.enabled", "false");
        setIfAbsent(c.getProperties(), "hazelcast.logging.type", "slf4j");
        // GridLimit's policy-map configuration, bounded at max-keys-per-member; a config file's own gridlimit.*
        // map configuration is kept as written
        if (!c.getMapConfigs().containsKey(GridLimitHazelcast.MAP_CONFIG_NAME)) {
            c.addMapConfig(GridLimitHazelcast.mapConfig(GridLimitHazelcast.DEFAULT_BACKUP_COUNT,
                    s.maxKeysPerMember()));
        }
        if (s.minClusterSize() >= 2) {
            GridLimitHazelcast.requireMinimumClusterSize(c, s.minClusterSize());
        }
        return c;
    }

    /**
     * The client configuration for the settings, with GridLimit's serialization.
     *
     * @param s the grid settings
     * @return a new client configuration
     * @throws ConfigurationException if the config file cannot be read
     */
    static ClientConfig clientConfig(HazelcastSettings s) {
        ClientConfig c;
        if (s.configFile() != null) {
            try {
                String file = s.configFile().toString();
                c = file.endsWith(".xml") ? new XmlClientConfigBuilder(file).build()
                        : new YamlClientConfigBuilder(file).build();
            } catch (IOException | RuntimeException e) {
                throw new ConfigurationException("gridlimit.hazelcast.config-file: cannot read '" + s.configFile()
                        + "' as a Hazelcast client configuration: " + e.getMessage(), e);
            }
        } else {
            c = new ClientConfig();
            c.setClusterName(s.clusterName());
            List<String> addresses = new ArrayList<>();
            for (String m : s.members()) {
                addresses.add(m.indexOf(':') < 0 ? m + ":" + s.port() : m);
            }
            c.getNetworkConfig().setAddresses(addresses);
            ClientConnectionStrategyConfig strategy = c.getConnectionStrategyConfig()
                    .setAsyncStart(true)
                    .setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ASYNC);
            strategy.getConnectionRetryConfig()
                    .setClusterConnectTimeoutMillis(CLIENT_CONNECT_TIMEOUT_MILLIS)
                    .setInitialBackoffMillis(CLIENT_INITIAL_BACKOFF_MILLIS)
                    .setMaxBackoffMillis(CLIENT_MAX_BACKOFF_MILLIS)
                    .setMultiplier(2)
                    .setJitter(0.2);
        }
        setIfAbsent(c.getProperties(), "hazelcast.shutdownhook.enabled", "false");
        setIfAbsent(c.getProperties(), "hazelcast.logging.type", "slf4j");
        return GridLimitHazelcast.configure(c);
    }

    private static void setIfAbsent(Properties properties, String name, String value) {
        if (properties.getProperty(name) == null && System.getProperty(name) == null) {
            properties.setProperty(name, value);
        }
    }
}
