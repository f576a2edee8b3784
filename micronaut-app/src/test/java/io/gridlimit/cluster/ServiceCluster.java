package io.gridlimit.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.MountableFile;

/**
 * A GridLimit cluster of service containers for the reliability tests: each member runs the project's own shaded
 * service jar ({@code micronaut-app-*-all.jar}) in the image the repository's {@code Dockerfile} builds, on the base
 * image {@code GRIDLIMIT_BASE_IMAGE} (default {@code eclipse-temurin:17-jre}; {@code .ci/run} builds a local one).
 *
 * <p>Networks: every member is created on an <em>access</em> network, which carries its published HTTP port
 * (127.0.0.1 on the host), and joined before start to the <em>cluster</em> network under its alias
 * ({@code m1}, {@code m2}, ...), the only addresses Hazelcast knows (TCP-IP join by alias through
 * {@code GRIDLIMIT_HAZELCAST_MEMBERS}; Hazelcast binds to the interface that matches them). Cutting a member off the
 * cluster network splits the cluster while the test still reaches both sides (the access network's name sorts
 * first, so Docker keeps the published port on it). The policies come from one YAML file
 * mounted and named by {@code MICRONAUT_CONFIG_FILES}; Hazelcast timing (heartbeat, merge checks, 31 partitions)
 * from system properties in {@code JAVA_TOOL_OPTIONS}. With {@link Options} (the nemesis, {@code io.gridlimit.nemesis}):
 * the public port too, both published on 127.0.0.1 at ports fixed per alias (a restarted member keeps its
 * addresses), environment per alias, each member's log in a file, and libfaketime preloaded so that
 * {@link #stepClock} can move a member's wall clock. Not thread-safe: one thread drives it (the nemesis serialises
 * its faults; {@link #membersSeenBy} and {@link #ready} may be called from any thread).
 */
public final class ServiceCluster implements AutoCloseable {
    /** The internal port: the decision API, the admin API and /health/* answer there only. */
    public static final int HTTP_PORT = 8081;
    /** The public port: the routes the filter limits. */
    public static final int PUBLIC_PORT = 8080;
    /** Where libfaketime reads the clock offset from, in a member started with {@link Options#faketimeLibrary}. */
    static final String FAKETIME_FILE = "/tmp/gridlimit-faketime";
    private static final String FAKETIME_LIBRARY = "/opt/gridlimit/libfaketime.so.1";

    /**
     * What a cluster adds to the reliability scenarios' defaults.
     *
     * @param fixedPorts publish both ports on 127.0.0.1 at ports chosen once per alias (else: the internal port only,
     *     on a port Docker picks at each start)
     * @param faketimeLibrary the host's {@code libfaketime.so.1} to preload in every member (Debian's
     *     {@code libfaketime} package), or null
     * @param env extra environment per alias
     * @param logDir a directory for each member's log ({@code <alias>-<start>.log}), or null
     */
    public record Options(boolean fixedPorts, Path faketimeLibrary, Map<String, Map<String, String>> env,
                          Path logDir) {
        /** The reliability scenarios' defaults. */
        public static final Options DEFAULT = new Options(false, null, Map.of(), null);
    }

    /*
     * Docker maps published ports through the endpoint that holds the container's default gateway, which it picks by
     * network name: the access network's name sorts first, so a member cut off the cluster network keeps its port.
     */
    private final String networkPrefix = "gridlimit-it-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    private final Network access = Network.builder()
            .createNetworkCmdModifier(cmd -> cmd.withName(networkPrefix + "-a-access")).build();
    private final Network cluster = Network.builder()
            .createNetworkCmdModifier(cmd -> cmd.withName(networkPrefix + "-b-cluster")).build();
    private final String policiesYaml;
    private final List<String> aliases;
    private final String systemProperties;
    private final Options options;
    /** Per alias: the host ports of the internal and the public port, with {@link Options#fixedPorts}. */
    private final Map<String, int[]> hostPorts = new LinkedHashMap<>();
    private int starts;
    /** The running members, in start order. */
    public final List<Member> members = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param policiesYaml the {@code gridlimit.policies} configuration, YAML
     * @param aliases every alias a member of this cluster may have (the TCP-IP member list)
     * @param systemProperties extra {@code -D} options for every member's JVM
     */
    ServiceCluster(String policiesYaml, List<String> aliases, String systemProperties) {
        this(policiesYaml, aliases, systemProperties, Options.DEFAULT);
    }

    /**
     * @param config the service configuration every member reads (policies, routes, settings), YAML
     * @param aliases every alias a member of this cluster may have (the TCP-IP member list)
     * @param systemProperties extra {@code -D} options for every member's JVM
     * @param options what to add to the defaults
     * @throws UncheckedIOException if no free port can be found for {@link Options#fixedPorts}
     */
    public ServiceCluster(String config, List<String> aliases, String systemProperties, Options options) {
        this.policiesYaml = config;
        this.aliases = List.copyOf(aliases);
        this.systemProperties = systemProperties;
        this.options = options;
        if (options.fixedPorts()) {
            for (String alias : aliases) {
                hostPorts.put(alias, new int[] {freePort(), freePort()});
            }
        }
    }

    /** A running member: its container and the base URLs of its published ports. */
    public static final class Member {
        /** Its alias on the cluster network. */
        public final String alias;
        final GenericContainer<?> container;
        /** The internal port's base URL, {@code http://127.0.0.1:<port>}. */
        public final String baseUrl;
        /** The public port's base URL with {@link Options#fixedPorts}, else null. */
        public final String publicUrl;

        Member(String alias, GenericContainer<?> container, boolean publicPort) {
            this.alias = alias;
            this.container = container;
            this.baseUrl = "http://127.0.0.1:" + container.getMappedPort(HTTP_PORT);
            this.publicUrl = publicPort ? "http://127.0.0.1:" + container.getMappedPort(PUBLIC_PORT) : null;
        }

        @Override
        public String toString() {
            return alias;
        }
    }

    /**
     * Hazelcast timing for a test cluster: heartbeats every second, a member is dropped after
     * {@code noHeartbeatSeconds} without one, and split-brain merge checks run after 5 s, then every 3 s. The timeout
     * must stay well above the longest pause a loaded machine gives a JVM: a run with 6 s on a 2-core machine at load
     * 12 saw members suspect each other mid-restart, an accidental split in which both sides admitted (what
     * split-brain protection, {@code GridLimitHazelcast.requireMinimumClusterSize}, prevents).
     *
     * @param noHeartbeatSeconds {@code hazelcast.max.no.heartbeat.seconds}
     * @return the {@code -D} options
     */
    public static String hazelcastTiming(int noHeartbeatSeconds) {
        return "-Dhazelcast.heartbeat.interval.seconds=1"
                + " -Dhazelcast.max.no.heartbeat.seconds=" + noHeartbeatSeconds
                + " -Dhazelcast.merge.first.run.delay.seconds=5"
                + " -Dhazelcast.merge.next.run.delay.seconds=3";
    }

    /**
     * The host ports of an alias, with {@link Options#fixedPorts}.
     *
     * @param alias an alias of this cluster
     * @return {internal, public}
     */
    public int[] hostPorts(String alias) {
        return hostPorts.get(alias).clone();
    }

    /**
     * Starts a member under {@code alias} and waits until its readiness is UP (member joined, cluster safe).
     *
     * @param alias one of this cluster's aliases
     * @return the running member
     */
    public Member start(String alias) {
        GenericContainer<?> c = new MemberContainer(MemberImage.get(), cluster, alias)
                .withNetwork(access)
                .withCopyToContainer(MountableFile.forHostPath(writePolicies(), 0644), "/etc/gridlimit/policies.yml")
                .withEnv("MICRONAUT_CONFIG_FILES", "/etc/gridlimit/policies.yml")
                .withEnv("GRIDLIMIT_DECISION_API_HOST", "0.0.0.0")
                .withEnv("GRIDLIMIT_HAZELCAST_MEMBERS", String.join(",", aliases))
                .withEnv("GRIDLIMIT_HAZELCAST_PORT", "5701")
                // The members join over the containers' bridge network, not loopback: bind to it explicitly
                // (gridlimit.hazelcast.interfaces, default 127.0.0.1; private address ranges Docker allocates from).
                .withEnv("GRIDLIMIT_HAZELCAST_INTERFACES", "172.*.*.*,192.168.*.*,10.*.*.*")
                .withEnv("GRIDLIMIT_HAZELCAST_CLUSTER_NAME", "gridlimit-it")
                .withEnv("JAVA_TOOL_OPTIONS", "-Xms128m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "
                        + "-Dhazelcast.partition.count=31 " + systemProperties)
                .waitingFor(Wait.forHttp("/health/readiness").forPort(HTTP_PORT).forStatusCode(200)
                        .withStartupTimeout(Duration.ofSeconds(180)));
        options.env().getOrDefault(alias, Map.of()).forEach(c::withEnv);
        if (options.fixedPorts()) {
            int[] ports = hostPorts.get(alias);
            c.withExposedPorts(HTTP_PORT, PUBLIC_PORT).withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                    .withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", ports[0]),
                                    ExposedPort.tcp(HTTP_PORT)),
                            new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", ports[1]),
                                    ExposedPort.tcp(PUBLIC_PORT))));
        } else {
            c.withExposedPorts(HTTP_PORT);
        }
        if (options.faketimeLibrary() != null) {
            // libfaketime (Debian's libfaketime): the wall clock reads the offset in FAKETIME_FILE, re-read at most
            // once a second; the monotonic clock is left alone so that the JVM's timed waits keep working. Its
            // "monotonic fix" for pthread_cond_timedwait, enabled by default on Debian 12's glibc, makes timed waits
            // return early: the JVM's own threads then spin and a member took 150 s instead of 26 s to be ready.
            c.withCopyToContainer(MountableFile.forHostPath(options.faketimeLibrary(), 0755), FAKETIME_LIBRARY)
                    .withCopyToContainer(Transferable.of("+0\n", 0666), FAKETIME_FILE)
                    .withEnv("LD_PRELOAD", FAKETIME_LIBRARY)
                    .withEnv("FAKETIME_TIMESTAMP_FILE", FAKETIME_FILE)
                    .withEnv("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                    .withEnv("FAKETIME_CACHE_DURATION", "1")
                    .withEnv("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        }
        if (options.logDir() != null) {
            Path log = options.logDir().resolve(alias + "-" + (++starts) + ".log");
            c.withLogConsumer(frame -> {
                try {
                    Files.writeString(log, frame.getUtf8String(), java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                } catch (IOException e) {
                    // the log is for reading after a failure; losing a line must not fail the run
                }
            });
        }
        c.start();
        Member m = new Member(alias, c, options.fixedPorts());
        members.add(m);
        return m;
    }

    /**
     * Freezes every process of a member (the cgroup freezer, {@code docker pause}), as a stop-the-world pause does.
     *
     * @param m a running member
     */
    public void pause(Member m) {
        docker().pauseContainerCmd(m.container.getContainerId()).exec();
    }

    /**
     * Thaws a member {@link #pause}d.
     *
     * @param m a paused member
     */
    public void unpause(Member m) {
        docker().unpauseContainerCmd(m.container.getContainerId()).exec();
    }

    /**
     * Sets a member's wall-clock offset (libfaketime, {@link Options#faketimeLibrary}); the member sees it within a
     * second. The monotonic clock is not moved.
     *
     * @param m a running member started with libfaketime
     * @param offsetSeconds the offset from the host's clock, seconds (0: none)
     * @throws IllegalStateException if the member was started without libfaketime or the offset cannot be written
     */
    public void stepClock(Member m, long offsetSeconds) {
        if (options.faketimeLibrary() == null) {
            throw new IllegalStateException("members were started without libfaketime: no clock can be stepped");
        }
        try {
            var r = m.container.execInContainer("sh", "-c", "echo " + (offsetSeconds >= 0 ? "+" : "")
                    + offsetSeconds + " > " + FAKETIME_FILE);
            if (r.getExitCode() != 0) {
                throw new IllegalStateException("cannot step " + m.alias + "'s clock: " + r.getStderr());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    /**
     * SIGKILL: the process dies at once, as on a crashed machine; the container is removed.
     *
     * @param m a running member
     */
    public void kill(Member m) {
        members.remove(m);
        docker().killContainerCmd(m.container.getContainerId()).withSignal("KILL").exec();
        m.container.stop();
    }

    /** SIGTERM and wait: Micronaut stops HTTP, then Hazelcast shuts down gracefully (partitions migrate first). */
    void stopGracefully(Member m) {
        members.remove(m);
        docker().stopContainerCmd(m.container.getContainerId()).withTimeout(60).exec();
        m.container.stop();
    }

    /**
     * Cuts a member off the cluster network (it keeps its published port on the access network).
     *
     * @param m a running member
     */
    public void disconnect(Member m) {
        docker().disconnectFromNetworkCmd().withContainerId(m.container.getContainerId())
                .withNetworkId(cluster.getId()).withForce(true).exec();
    }

    /**
     * Joins a member back to the cluster network under its alias.
     *
     * @param m a member {@link #disconnect}ed
     */
    public void reconnect(Member m) {
        docker().connectToNetworkCmd().withContainerId(m.container.getContainerId()).withNetworkId(cluster.getId())
                .withContainerNetwork(new ContainerNetwork().withAliases(m.alias)).exec();
    }

    /**
     * @param m a member
     * @return the number of cluster members {@code m} sees (its readiness details), or -1 if it does not answer
     */
    public int membersSeenBy(Member m) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(m.baseUrl + "/health/readiness"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            Matcher matcher = Pattern.compile("\"members\":(\\d+)").matcher(r.body());
            return matcher.find() ? Integer.parseInt(matcher.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * @param m a member
     * @return true when {@code m}'s readiness is UP (joined, cluster safe)
     */
    public boolean ready(Member m) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(m.baseUrl + "/health/readiness"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Prints the last lines of every member's log (for a failed scenario), and of members already stopped. */
    public void dumpLogs() {
        for (Member m : new ArrayList<>(members)) {
            String logs;
            try {
                logs = m.container.getLogs();
            } catch (RuntimeException e) {
                logs = "(no logs: " + e + ")";
            }
            String[] lines = logs.split("\n");
            System.out.println("----- last log lines of " + m.alias + " -----");
            for (int i = Math.max(0, lines.length - 60); i < lines.length; i++) {
                System.out.println(lines[i].length() > 300 ? lines[i].substring(0, 300) : lines[i]);
            }
        }
    }

    /** @return one line describing what every member sees, for progress output and failure messages */
    public String describe() {
        StringBuilder b = new StringBuilder();
        for (Member m : members) {
            b.append(m.alias).append(": members=").append(membersSeenBy(m)).append(" ready=").append(ready(m))
                    .append("; ");
        }
        return b.toString();
    }

    private Path writePolicies() {
        try {
            Path file = Files.createTempFile("gridlimit-policies", ".yml");
            Files.writeString(file, policiesYaml);
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the policies file", e);
        }
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    @Override
    public void close() {
        for (Member m : new ArrayList<>(members)) {
            try {
                m.container.stop();
            } catch (RuntimeException e) {
                // already gone
            }
        }
        members.clear();
        for (Network n : List.of(cluster, access)) {
            try {
                n.close();
            } catch (RuntimeException e) {
                // a container still attached: Docker removes the network with the last container
            }
        }
    }

    /** A member container that joins the cluster network under its alias after creation, before start. */
    private static final class MemberContainer extends GenericContainer<MemberContainer> {
        private final Network cluster;
        private final String alias;

        MemberContainer(String image, Network cluster, String alias) {
            super(image);
            this.cluster = cluster;
            this.alias = alias;
            withImagePullPolicy(name -> false);
        }

        @Override
        protected void containerIsCreated(String containerId) {
            getDockerClient().connectToNetworkCmd().withContainerId(containerId).withNetworkId(cluster.getId())
                    .withContainerNetwork(new ContainerNetwork().withAliases(alias)).exec();
        }
    }
}
