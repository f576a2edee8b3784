package io.gridlimit.grid;

import static org.awaitility.Awaitility.await;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.time.ManualTimeSource;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Small loopback clusters for grid tests: multicast and auto-detection off, TCP-IP on 127.0.0.1 with free ports,
 * 31 partitions, a unique cluster name (other builds on this machine run clusters too), fast join and failure
 * detection, and a {@link ManualTimeSource} per member. Public for the grid tests of every io.gridlimit.grid package.
 */
public final class GridTestSupport {
    /** 2026-01-01T00:00:00Z plus one second, in epoch nanoseconds: aligned windows start one second before. */
    public static final long T0 = 1_767_225_601_000_000_000L;

    static {
        // slf4j-simple: keep Hazelcast's INFO chatter out of the test logs
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }

    private GridTestSupport() {
    }

    /** A cluster under test: its members (in start order), their time sources and the ports reserved for it. */
    public static final class Cluster implements AutoCloseable {
        public final String name = "gridlimit-test-" + UUID.randomUUID();
        public final int[] ports;
        public final int backupCount;
        public final List<HazelcastInstance> members = new ArrayList<>();
        public final List<ManualTimeSource> clocks = new ArrayList<>();
        public final List<HazelcastInstance> clients = new ArrayList<>();
        /** Extra map configurations added to every member, e.g. another backup count for some policies. */
        public final List<MapConfig> extraMapConfigs = new ArrayList<>();
        /** Applied to the next member's configuration after GridLimit's, e.g. to make it act as an older one. */
        public java.util.function.Consumer<Config> beforeStart = c -> { };

        public Cluster(int maxMembers, int backupCount) {
            this.ports = freePorts(maxMembers);
            this.backupCount = backupCount;
        }

        /** Starts the next member on the next reserved port, its clock at {@code nowNanos}. */
        public HazelcastInstance startMember(long nowNanos) {
            int index = members.size();
            ManualTimeSource clock = new ManualTimeSource(nowNanos);
            Config config = new Config();
            config.setClusterName(name);
            config.setInstanceName(name + "-m" + index);
            config.setProperty("hazelcast.phone.home.enabled", "false");
            config.setProperty("hazelcast.partition.count", "31");
            config.setProperty("hazelcast.wait.seconds.before.join", "0");
            config.setProperty("hazelcast.max.wait.seconds.before.join", "0");
            config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
            config.setProperty("hazelcast.max.no.heartbeat.seconds", "5");
            config.setProperty("hazelcast.socket.bind.any", "false");
            config.setProperty("hazelcast.logging.type", "none");
            config.setProperty("hazelcast.partition.migration.interval", "0");
            NetworkConfig network = config.getNetworkConfig();
            network.setPort(ports[index]).setPortAutoIncrement(false);
            network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
            JoinConfig join = network.getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getAutoDetectionConfig().setEnabled(false);
            join.getTcpIpConfig().setEnabled(true);
            for (int port : ports) {
                join.getTcpIpConfig().addMember("127.0.0.1:" + port);
            }
            config.addMapConfig(GridLimitHazelcast.mapConfig(backupCount));
            extraMapConfigs.forEach(config::addMapConfig);
            GridLimitHazelcast.configure(config, clock);
            beforeStart.accept(config);
            HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
            members.add(member);
            clocks.add(clock);
            int expected = (int) members.stream().filter(m -> m.getLifecycleService().isRunning()).count();
            awaitClusterSize(expected);
            return member;
        }

        /** Starts a client connected to every running member. */
        public HazelcastInstance startClient() {
            ClientConfig config = new ClientConfig();
            config.setClusterName(name);
            for (int i = 0; i < members.size(); i++) {
                config.getNetworkConfig().addAddress("127.0.0.1:" + ports[i]);
            }
            GridLimitHazelcast.configure(config);
            HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
            clients.add(client);
            return client;
        }

        /** Sets every member's clock. */
        public void setNanos(long nanos) {
            clocks.forEach(c -> c.setNanos(nanos));
        }

        /** Moves every member's clock. */
        public void advance(Duration d) {
            clocks.forEach(c -> c.advance(d));
        }

        public long totalReads() {
            return clocks.stream().mapToLong(ManualTimeSource::reads).sum();
        }

        public void resetReads() {
            clocks.forEach(ManualTimeSource::resetReads);
        }

        public List<HazelcastInstance> running() {
            return members.stream().filter(m -> m.getLifecycleService().isRunning()).toList();
        }

        public void awaitClusterSize(int size) {
            await().atMost(Duration.ofSeconds(60)).until(() -> running().stream()
                    .allMatch(m -> m.getCluster().getMembers().size() == size));
        }

        /** Waits until no migration is pending and every backup is in sync. */
        public void awaitSafe() {
            await().atMost(Duration.ofSeconds(60)).until(() -> running().stream()
                    .allMatch(m -> m.getPartitionService().isClusterSafe()));
        }

        /** @return the member owning the key's partition, among those this cluster started */
        public HazelcastInstance ownerOf(String key) {
            HazelcastInstance any = running().get(0);
            Partition partition = any.getPartitionService().getPartition(key);
            for (HazelcastInstance m : running()) {
                if (m.getCluster().getLocalMember().equals(partition.getOwner())) {
                    return m;
                }
            }
            throw new IllegalStateException("no running owner for partition " + partition.getPartitionId());
        }

        /** @return the clock of a member */
        public ManualTimeSource clockOf(HazelcastInstance member) {
            return clocks.get(members.indexOf(member));
        }

        /** @return {@code count} keys with the given prefix whose owner is {@code owner} */
        public List<String> keysOwnedBy(HazelcastInstance owner, String prefix, int count) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; keys.size() < count; i++) {
                String key = prefix + i;
                if (ownerOf(key) == owner) {
                    keys.add(key);
                }
            }
            return keys;
        }

        @Override
        public void close() {
            clients.forEach(c -> c.getLifecycleService().terminate());
            members.forEach(m -> m.getLifecycleService().terminate());
        }
    }

    public static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                s.setReuseAddress(true);
                sockets.add(s);
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new IllegalStateException("no free ports", e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
        }
    }

    /**
     * One single-band policy per algorithm plus a composite, all with long periods (1 h) so that Hazelcast's
     * wall-clock expiry never removes state while a test runs; {@code quota} is every band's limit or capacity.
     */
    public static List<Policy> policies(String prefix, long quota) {
        Duration hour = Duration.ofHours(1);
        return List.of(
                Policy.builder(prefix + "tb").tokenBucket(quota, 1, hour).build(),
                Policy.builder(prefix + "gcra").gcra(quota, 1, hour).build(),
                Policy.builder(prefix + "fw").fixedWindow(quota, hour).build(),
                Policy.builder(prefix + "swl").slidingWindowLog(quota, hour).build(),
                Policy.builder(prefix + "swc").slidingWindowCounter(quota, hour).build(),
                Policy.builder(prefix + "comp")
                        .band(Band.tokenBucket("burst", quota + 10, 1, hour))
                        .band(Band.slidingWindowLog("hourly", quota, hour))
                        .build(),
                // docs/SPEC.md §14: days of Berlin (T0 is 01:00:01 CET), alone and beside a burst
                Policy.builder(prefix + "cal").calendar(quota, io.gridlimit.calendar.CalendarPeriods.daily(
                        java.time.ZoneId.of("Europe/Berlin"))).build(),
                Policy.builder(prefix + "calcomp")
                        .band(Band.tokenBucket("burst", quota + 10, 1, hour))
                        .band(Band.calendar("monthly", quota, io.gridlimit.calendar.CalendarPeriods.monthly(
                                java.time.ZoneId.of("America/St_Johns"), 31)))
                        .build());
    }
}
