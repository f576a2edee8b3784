package io.gridlimit.bench;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.grid.GridLimitHazelcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
        Config config = new Config();
        config.setClusterName("gridlimit-bench-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(freePort()).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1");
        config.getSerializationConfig().addDataSerializableFactory(NoOpProcessor.FACTORY_ID, NoOpProcessor.FACTORY);
        HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(), BUCKET4J_TYPE_ID_BASE);
        // GridLimit's serialization, the gridlimit.* map config (BINARY, 1 sync backup: none on one member) and
        // decisions reading cluster time, as in production
        return GridLimitHazelcast.configure(config);
    }

    /**
     * Starts one member from {@link #config()}.
     *
     * @return the running member, never null; shut it down in {@code @TearDown}
     */
    public static HazelcastInstance start() {
        System.setProperty("hazelcast.logging.type", "jdk");
        HAZELCAST_LOGGER.setLevel(Level.WARNING);
        return Hazelcast.newHazelcastInstance(config());
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
