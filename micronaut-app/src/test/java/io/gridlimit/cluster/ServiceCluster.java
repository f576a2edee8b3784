package io.gridlimit.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ContainerNetwork;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
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
 * from system properties in {@code JAVA_TOOL_OPTIONS}. Not thread-safe: the test thread drives it.
 */
final class ServiceCluster implements AutoCloseable {
    static final int HTTP_PORT = 8081; // the internal port: decision API and /health/* answer there only
    private static final String IMAGE_NAME = "gridlimit-cluster-test";
    private static volatile String image;

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
    final List<Member> members = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * @param policiesYaml the {@code gridlimit.policies} configuration, YAML
     * @param aliases every alias a member of this cluster may have (the TCP-IP member list)
     * @param systemProperties extra {@code -D} options for every member's JVM
     */
    ServiceCluster(String policiesYaml, List<String> aliases, String systemProperties) {
        this.policiesYaml = policiesYaml;
        this.aliases = List.copyOf(aliases);
        this.systemProperties = systemProperties;
    }

    /** A running member: its container and the base URL of its published HTTP port. */
    static final class Member {
        final String alias;
        final GenericContainer<?> container;
        final String baseUrl;

        Member(String alias, GenericContainer<?> container) {
            this.alias = alias;
            this.container = container;
            this.baseUrl = "http://127.0.0.1:" + container.getMappedPort(HTTP_PORT);
        }

        @Override
        public String toString() {
            return alias;
        }
    }

    /** Starts a member under {@code alias} and waits until its readiness is UP (member joined, cluster safe). */
    Member start(String alias) {
        GenericContainer<?> c = new MemberContainer(image(), cluster, alias)
                .withNetwork(access)
                .withExposedPorts(HTTP_PORT)
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
                        .withStartupTimeout(Duration.ofSeconds(120)));
        c.start();
        Member m = new Member(alias, c);
        members.add(m);
        return m;
    }

    /** SIGKILL: the process dies at once, as on a crashed machine. */
    void kill(Member m) {
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

    /** Cuts a member off the cluster network (it keeps its published port on the access network). */
    void disconnect(Member m) {
        docker().disconnectFromNetworkCmd().withContainerId(m.container.getContainerId())
                .withNetworkId(cluster.getId()).withForce(true).exec();
    }

    /** Joins a member back to the cluster network under its alias. */
    void reconnect(Member m) {
        docker().connectToNetworkCmd().withContainerId(m.container.getContainerId()).withNetworkId(cluster.getId())
                .withContainerNetwork(new ContainerNetwork().withAliases(m.alias)).exec();
    }

    /** @return the number of cluster members {@code m} sees (its readiness details), or -1 if it does not answer */
    int membersSeenBy(Member m) {
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

    /** @return true when {@code m}'s readiness is UP (joined, cluster safe) */
    boolean ready(Member m) {
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
    void dumpLogs() {
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
    String describe() {
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

    /**
     * The member image, built once per JVM from the repository's {@code Dockerfile} with the shaded jar as
     * {@code JAR_FILE} and {@code GRIDLIMIT_BASE_IMAGE} as {@code BASE_IMAGE}. Never pulls: the base image must be
     * present or pullable by the engine itself.
     */
    static synchronized String image() {
        if (image == null) {
            Path root = repoRoot();
            Path dockerfile = root.resolve("Dockerfile");
            if (!Files.isRegularFile(dockerfile)) {
                throw new IllegalStateException("no Dockerfile at " + dockerfile);
            }
            String base = Optional.ofNullable(System.getenv("GRIDLIMIT_BASE_IMAGE")).filter(s -> !s.isBlank())
                    .orElse("eclipse-temurin:17-jre");
            // a tag of its own per JVM (parallel builds on one engine), removed when the JVM exits (hook below)
            String tag = IMAGE_NAME + ":" + java.util.UUID.randomUUID().toString().substring(0, 12);
            ImageFromDockerfile built = new ImageFromDockerfile(tag, true)
                    .withFileFromPath("Dockerfile", dockerfile)
                    .withFileFromPath("gridlimit-service.jar", serviceJar())
                    .withBuildArg("BASE_IMAGE", base)
                    .withBuildArg("JAR_FILE", "gridlimit-service.jar")
                    .withBuildImageCmdModifier(cmd -> cmd.withPull(false));
            image = built.get();
            // Testcontainers removes images built with deleteOnExit through Ryuk, which is off here: remove it ourselves
            String builtImage = image;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    docker().removeImageCmd(builtImage).withForce(true).exec();
                } catch (RuntimeException e) {
                    // already gone, or the engine is: nothing to clean
                }
            }, "gridlimit-image-cleanup"));
        }
        return image;
    }

    /** The repository root: {@code gridlimit.repoRoot} (set by failsafe), else found upwards from the working dir. */
    static Path repoRoot() {
        String configured = System.getProperty("gridlimit.repoRoot");
        if (configured != null) {
            return Paths.get(configured).toAbsolutePath().normalize();
        }
        Path dir = Paths.get("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("micronaut-app/pom.xml"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the repository root above " + Paths.get("").toAbsolutePath());
        }
        return dir;
    }

    /**
     * The shaded service jar: {@code gridlimit.serviceJar} (set by failsafe to this build's jar), else the newest
     * {@code micronaut-app/target*}/{@code micronaut-app-*-all.jar}.
     */
    static Path serviceJar() {
        String configured = System.getProperty("gridlimit.serviceJar");
        if (configured != null && Files.isRegularFile(Paths.get(configured))) {
            return Paths.get(configured);
        }
        Path module = repoRoot().resolve("micronaut-app");
        try (Stream<Path> dirs = Files.list(module)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("target") && Files.isDirectory(d))
                    .flatMap(d -> {
                        try {
                            return Files.list(d).toList().stream();
                        } catch (IOException e) {
                            return Stream.empty();
                        }
                    })
                    .filter(f -> f.getFileName().toString().matches("micronaut-app-.*-all\\.jar"))
                    .max(Comparator.comparingLong(f -> f.toFile().lastModified()))
                    .orElseThrow(() -> new IllegalStateException("no micronaut-app-*-all.jar under " + module
                            + "/target*: build it with mvn -pl micronaut-app -am package -DskipTests"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + module, e);
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
