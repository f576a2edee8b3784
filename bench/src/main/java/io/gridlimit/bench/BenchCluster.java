package io.gridlimit.bench;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.gridlimit.grid.GridLimitHazelcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;

/**
 * A three-member Hazelcast cluster for one benchmark trial, its members in separate JVMs
 * ({@link BenchClusterMember}), and the benchmark's own view of it:
 * <ul>
 *   <li>{@code members-3}: 2 child JVMs, and the benchmark JVM is the third member (an embedded member that
 *       owns about a third of the partitions: about two decisions in three cross the loopback network);</li>
 *   <li>{@code client-3}: 3 child JVMs, and the benchmark JVM is a smart client ({@link RoutingMode#ALL_MEMBERS}:
 *       it sends each operation straight to the key's owner); every decision crosses the loopback network.</li>
 * </ul>
 * Every member is configured by {@link BenchMember#clusterConfig} with the same unique cluster name, the same
 * free loopback ports (TCP-IP join on 127.0.0.1) and the same {@link BackupMode}; the client registers the same
 * serializers (GridLimit's, Bucket4j's, the no-op floor's).
 *
 * <p>Child JVMs: the running JVM's {@code java}, {@value #CHILD_HEAP}, Hazelcast's {@code --add-opens} flags
 * ({@link BenchMember#jvmFlags()}), the running class path. Their output (Hazelcast at INFO) goes to
 * {@code <BenchOutput.dir()>/cluster-logs/<label>-member-<n>.log}, never to JMH's output. {@link #start} waits,
 * by polling, until the cluster has 3 members and every partition has an owner among them (a member also waits
 * until the cluster is safe: no migration pending), within {@link #FORM_TIMEOUT}, else fails with an
 * {@link IllegalStateException} naming what it saw and the log files. Children are always destroyed: by
 * {@link #close()} (the trial's teardown), by a failed {@link #start} itself, and by a JVM shutdown hook for
 * every child still alive; a child also stops by itself when its standard input, a pipe from this JVM, closes.
 *
 * <p>Three member JVMs plus the load driver on a 2-core machine oversubscribe the CPU: figures measured on such a
 * cluster compare only with each other.
 *
 * <p>Not thread-safe: start and close from JMH {@code @Setup}/{@code @TearDown} only; {@link #instance()} may be
 * used by any thread.
 */
public final class BenchCluster implements AutoCloseable {
    /** Members of every benchmark cluster. */
    public static final int MEMBERS = 3;
    /** Heap of each child member JVM. */
    public static final String CHILD_HEAP = "-Xmx512m";
    /** One line per log record with a millisecond timestamp, in the child members' log files. */
    static final String LOG_FORMAT =
            "-Djava.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n";
    /** How long {@link #start} waits for the cluster to form. */
    public static final Duration FORM_TIMEOUT = Duration.ofSeconds(120);
    /** How long {@link #close()} waits for a child to exit after its input closed, before killing it. */
    static final Duration CHILD_EXIT_WAIT = Duration.ofSeconds(10);

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(BenchCluster::destroyAll, "bench-cluster-reaper"));
    }

    private final String topology;
    private final List<Process> children = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final long createdNanos = System.nanoTime();
    private Path harnessLog;
    private HazelcastInstance instance;

    private BenchCluster(String topology) {
        this.topology = topology;
    }

    /**
     * Starts the child members and the benchmark's own member or client, and waits for the cluster.
     *
     * @param label a file-name-safe label of the trial, used in log file names
     * @param topology {@code members-3} or {@code client-3}
     * @param backups the backup mode of every member
     * @return the running cluster, never null; close it in the trial's teardown
     * @throws IllegalArgumentException if {@code topology} is neither value
     * @throws IllegalStateException if the cluster does not form within {@link #FORM_TIMEOUT} or a child exits
     * @throws UncheckedIOException if a child cannot be started or its log not created
     */
    public static BenchCluster start(String label, String topology, BackupMode backups) {
        boolean client = switch (topology) {
            case "members-3" -> false;
            case "client-3" -> true;
            default -> throw new IllegalArgumentException(
                    "topology must be members-3 or client-3, got '" + topology + "'");
        };
        BenchCluster cluster = new BenchCluster(topology);
        try {
            cluster.launch(label, client, backups);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** @return the benchmark's member ({@code members-3}) or client ({@code client-3}), never null once started */
    public HazelcastInstance instance() {
        return instance;
    }

    /** @return the child members' log files */
    public List<Path> logs() {
        return List.copyOf(logs);
    }

    private void launch(String label, boolean client, BackupMode backups) {
        String clusterName = "gridlimit-bench-" + topology + "-" + UUID.randomUUID();
        List<Integer> ports = freePorts(MEMBERS);
        int childCount = client ? MEMBERS : MEMBERS - 1;
        Path logDir = BenchOutput.dir().resolve("cluster-logs");
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + logDir, e);
        }
        harnessLog = logDir.resolve(label + "-harness.log");
        String portList = String.join(",", ports.stream().map(String::valueOf).toList());
        note("cluster " + clusterName + ", topology " + topology + ", backups " + backups.label() + ", ports "
                + portList);
        for (int i = 0; i < childCount; i++) {
            Path log = logDir.resolve(label + "-member-" + (i + 1) + ".log");
            logs.add(log);
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add(CHILD_HEAP);
            command.add(LOG_FORMAT);
            command.addAll(BenchMember.jvmFlags());
            command.add("-cp");
            command.add(classPath());
            command.add(BenchClusterMember.class.getName());
            command.add(clusterName);
            command.add(String.valueOf(ports.get(i)));
            command.add(portList);
            command.add(backups.label());
            try {
                Process process = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
                LIVE.add(process);
                children.add(process);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start child member " + command, e);
            }
        }
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        BenchMember.logHazelcastAt(Level.WARNING);
        if (client) {
            instance = HazelcastClient.newHazelcastClient(clientConfig(clusterName, ports));
        } else {
            instance = Hazelcast.newHazelcastInstance(
                    BenchMember.clusterConfig(clusterName, ports.get(MEMBERS - 1), ports, backups));
        }
        await(deadline, "3 members", () -> instance.getCluster().getMembers().size() == MEMBERS);
        await(deadline, "every partition owned by one of the 3 members", this::partitionsOwned);
        if (!client) {
            await(deadline, "a safe cluster (no migration pending)",
                    () -> instance.getPartitionService().isClusterSafe());
        }
        note("formed: " + instance.getCluster().getMembers());
    }

    /** Appends a line, with the milliseconds since this cluster's creation, to the trial's harness log. */
    private void note(String line) {
        if (harnessLog == null) {
            return;
        }
        String text = String.format(java.util.Locale.ROOT, "%8d ms  %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - createdNanos), line);
        try {
            Files.writeString(harnessLog, text, java.nio.charset.StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            // diagnostics only: the trial goes on without its harness log
        }
    }

    /** Every partition has an owner and the owners are the 3 members (the client's view of the table). */
    private boolean partitionsOwned() {
        Set<Member> owners = new HashSet<>();
        for (Partition partition : instance.getPartitionService().getPartitions()) {
            Member owner = partition.getOwner();
            if (owner == null) {
                return false;
            }
            owners.add(owner);
        }
        return owners.size() == MEMBERS;
    }

    private void await(long deadlineNanos, String what, BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            for (int i = 0; i < children.size(); i++) {
                Process child = children.get(i);
                if (!child.isAlive()) {
                    throw new IllegalStateException(topology + ": child member " + (i + 1) + " exited with code "
                            + child.exitValue() + " while waiting for " + what + "; see " + logs.get(i));
                }
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                throw new IllegalStateException(topology + ": no " + what + " within " + FORM_TIMEOUT.toSeconds()
                        + " s (members seen: " + instance.getCluster().getMembers().size() + "); child logs: "
                        + logs);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(topology + ": interrupted while waiting for " + what, e);
            }
        }
    }

    private static ClientConfig clientConfig(String clusterName, List<Integer> ports) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        for (int port : ports) {
            config.getNetworkConfig().addAddress("127.0.0.1:" + port);
        }
        config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
        config.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(FORM_TIMEOUT.toMillis())
                .setInitialBackoffMillis(200)
                .setMaxBackoffMillis(1000);
        config.getSerializationConfig().addDataSerializableFactory(NoOpProcessor.FACTORY_ID, NoOpProcessor.FACTORY);
        HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(),
                BenchMember.BUCKET4J_TYPE_ID_BASE);
        return GridLimitHazelcast.configure(config);
    }

    /**
     * Stops the benchmark's member or client first (so no member-loss warning reaches JMH's output; the fork's
     * Hazelcast logging is raised to SEVERE for it), then every
     * child: its input is closed (it terminates its member and exits), and after {@link #CHILD_EXIT_WAIT} it is
     * killed. Safe to call twice and after a failed start.
     */
    @Override
    public void close() {
        if (instance != null) {
            // a member's terminate() logs a WARNING, and the fork's output is JMH's
            BenchMember.logHazelcastAt(Level.SEVERE);
            try {
                instance.getLifecycleService().terminate();
            } catch (RuntimeException e) {
                // the children are stopped below either way
            }
            instance = null;
        }
        note("closing: the benchmark's " + (topology.equals("client-3") ? "client" : "member") + " is down");
        for (Process child : children) {
            stop(child);
        }
        if (!children.isEmpty()) {
            note("closed: every child exited");
        }
        children.clear();
    }

    private static void stop(Process child) {
        try {
            child.getOutputStream().close();
        } catch (IOException e) {
            // the pipe is already gone: the child sees end of input either way
        }
        try {
            if (!child.waitFor(CHILD_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly().waitFor(CHILD_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        LIVE.remove(child);
    }

    /** The shutdown hook: kills every child still alive, without waiting for a clean exit. */
    private static void destroyAll() {
        for (Process child : LIVE) {
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly();
        }
    }

    private static String classPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                entries.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    /** Distinct free loopback ports: all sockets are held open together, so no port is returned twice. */
    private static List<Integer> freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports.add(socket.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // the port is released either way
                }
            }
        }
    }
}
