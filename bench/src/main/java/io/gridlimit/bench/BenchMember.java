package io.gridlimit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.grid.GridLimitHazelcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the one embedded Hazelcast member all grid benchmarks share the configuration of: multicast and
 * auto-detection off, TCP-IP join on 127.0.0.1 at a free port, phone-home off, default partition count (271),
 * a fresh cluster name per start so two forks never join each other, Hazelcast logging at WARNING.
 *
 * <p>Its serialization config registers every peer's serializers on the same member: the bench module's
 * {@link NoOpProcessor#FACTORY}, Bucket4j's custom serializers (type ids from {@value #BUCKET4J_TYPE_ID_BASE}, as
 * Bucket4j's Hazelcast integration requires), and GridLimit's own through {@link GridLimitHazelcast#configure(Config)},
 * which also sets the {@code gridlimit.*} map config the floor shares and leaves decisions on cluster time. Each
 * JMH fork starts its own member from this one configuration, so every benchmark of a run meets an identical
 * member.
 *
 * <p>Not thread-safe; call from JMH {@code @Setup} only.
 */
public final class BenchMember {
    /** First Hazelcast serializer type id of Bucket4j's serializers (they take a handful of ids from here). */
    public static final int BUCKET4J_TYPE_ID_BASE = 10_000;

    /** Hazelcast's recommended module flags (its start-up warning lists them), given to every grid fork. */
    public static final String ADD_MODULES = "--add-modules=java.se";
    /** See {@link #ADD_MODULES}. */
    public static final String EXPORT_REF = "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED";
    /** See {@link #ADD_MODULES}. */
    public static final String OPEN_LANG = "--add-opens=java.base/java.lang=ALL-UNNAMED";
    /** See {@link #ADD_MODULES}. */
    public static final String OPEN_NIO = "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";
    /** See {@link #ADD_MODULES}. */
    public static final String OPEN_MANAGEMENT = "--add-opens=java.management/sun.management=ALL-UNNAMED";
    /** See {@link #ADD_MODULES}. */
    public static final String OPEN_MANAGEMENT_INTERNAL =
            "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED";
    /**
     * Gives the common ForkJoin pool 2 threads. Only the benchmarks whose names end in {@code CommonPool2} get it:
     * they show what Hazelcast's plain async futures (and Bucket4j's, built on them) do once a user has set this
     * flag on a machine with 2 CPUs or fewer, where the pool otherwise has parallelism 1 and Hazelcast falls back
     * to a new thread per callback.
     */
    public static final String COMMON_POOL_2 = "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2";

    /** The map configuration name covering Bucket4j's maps ({@link Bucket4jBenchmark#MAP}) in cluster configs. */
    public static final String BUCKET4J_MAPS = "bucket4j.*";

    /** Held so the level set on it is not lost when the JUL logger is collected. */
    private static final Logger HAZELCAST_LOGGER = Logger.getLogger("com.hazelcast");

    private BenchMember() {
    }

    /**
     * Builds the member configuration.
     *
     * @return a new configuration listening on a free loopback port, never null
     * @throws UncheckedIOException if no free port can be found
     */
    public static Config config() {
        Config config = base("gridlimit-bench-" + UUID.randomUUID(), freePort());
        config.getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1");
        // GridLimit's serialization, the gridlimit.* map config (BINARY, 1 sync backup: none on one member) and
        // decisions reading cluster time, as in production
        return GridLimitHazelcast.configure(config);
    }

    /**
     * Builds the configuration of one member of a multi-member benchmark cluster ({@link BenchCluster}): the
     * same serialization, properties and network settings as {@link #config()}, a TCP-IP member list of exactly
     * the given loopback ports, and the backup mode set on GridLimit's {@code gridlimit.*} maps (through
     * {@link BackupMode#gridLimitMapConfig()}, so merge policy, eviction bound and state-loss listener stay
     * GridLimit's) and on Bucket4j's {@value #BUCKET4J_MAPS}. Every member of one cluster must be built with the
     * same cluster name, ports and mode.
     *
     * @param clusterName the cluster name, unique per trial
     * @param port this member's port, one of {@code memberPorts}
     * @param memberPorts the loopback ports of all members
     * @param backups the backup mode of every benchmark map
     * @return a new configuration, never null
     * @throws IllegalArgumentException if {@code port} is not among {@code memberPorts} or a port is outside
     *     [1, 65535]
     */
    public static Config clusterConfig(String clusterName, int port, List<Integer> memberPorts, BackupMode backups) {
        if (!memberPorts.contains(port)) {
            throw new IllegalArgumentException("port " + port + " is not among the member ports " + memberPorts);
        }
        Config config = base(clusterName, port);
        // members start together: the master waits 1 s (default 5 s) for more join requests, 2 s at most (default
        // 20 s); a member that misses the window joins the formed cluster a moment later
        config.setProperty("hazelcast.wait.seconds.before.join", "1");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "2");
        for (int memberPort : memberPorts) {
            if (memberPort < 1 || memberPort > 65_535) {
                throw new IllegalArgumentException("member port must be in [1, 65535], got " + memberPort);
            }
            config.getNetworkConfig().getJoin().getTcpIpConfig().addMember("127.0.0.1:" + memberPort);
        }
        config.addMapConfig(backups.gridLimitMapConfig());
        config.addMapConfig(backups.applyTo(new MapConfig(BUCKET4J_MAPS)));
        // keeps the gridlimit.* map config above (configure adds its default only when none is present)
        return GridLimitHazelcast.configure(config);
    }

    /**
     * The JVM flags every grid JVM gets ({@link #ADD_MODULES} and the {@code --add-exports/--add-opens} after it).
     *
     * @return an immutable list, never null
     */
    public static List<String> jvmFlags() {
        return List.of(ADD_MODULES, EXPORT_REF, OPEN_LANG, OPEN_NIO, OPEN_MANAGEMENT, OPEN_MANAGEMENT_INTERNAL);
    }

    /** Cluster name, properties, loopback network with TCP-IP join (no members yet) and the peers' serializers. */
    private static Config base(String clusterName, int port) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        config.getSerializationConfig().addDataSerializableFactory(NoOpProcessor.FACTORY_ID, NoOpProcessor.FACTORY);
        HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(), BUCKET4J_TYPE_ID_BASE);
        return config;
    }

    /**
     * Starts one member from {@link #config()}.
     *
     * @return the running member, never null; shut it down in {@code @TearDown}
     */
    public static HazelcastInstance start() {
        logHazelcastAt(Level.WARNING);
        return Hazelcast.newHazelcastInstance(config());
    }

    /**
     * Sends Hazelcast's logging through JUL at the given level (WARNING in a JMH fork, whose output is JMH's).
     *
     * @param level the lowest level logged
     */
    public static void logHazelcastAt(Level level) {
        System.setProperty("hazelcast.logging.type", "jdk");
        HAZELCAST_LOGGER.setLevel(level);
    }

    /**
     * Returns a loopback port that was free a moment ago (another process may take it before it is bound).
     *
     * @return a port in [1, 65535]
     * @throws UncheckedIOException if no free port can be found
     */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
