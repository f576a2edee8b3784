package io.gridlimit.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gridlimit.api.Policy;
import io.gridlimit.k8s.RenderedManifests.Workload;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The service starts from the configuration the base manifests give a pod (k8s/README.md: the ConfigMap's
 * policies start the app without errors), and the paths the manifests point at exist: the files of
 * {@code MICRONAUT_CONFIG_FILES} (policies.yml, grid.yml) are loaded as Micronaut loads config files, over the
 * jar's application.yml; grid.yml's {@code config-file} points at the rendered hazelcast.yaml, in which only the
 * join changes (Kubernetes discovery has no API server or DNS here: TCP-IP on 127.0.0.1, a free port, a unique
 * cluster name). Then every ConfigMap policy decides over the decision API with its exact first-request values
 * (SPEC §3-4), the demo route is limited, and the probe and scrape paths answer.
 */
class KubernetesConfigStartsTheServiceTest {
    private static final String KEY = "k8s-config-test";

    @Test
    void theBaseConfigMapsStartTheServiceAndEveryPolicyDecides(@TempDir Path dir) throws IOException {
        RenderedManifests manifests = RenderedManifests.of("base");
        Workload deployment = manifests.workloads().stream().filter(w -> w.resource() instanceof Deployment)
                .findFirst().orElseThrow();
        PodConfiguration pod = PodConfiguration.of(manifests, deployment);
        String configuredHazelcastPath = pod.string("gridlimit.hazelcast.config-file");
        Path hazelcastYaml = dir.resolve("hazelcast.yaml");
        Files.writeString(hazelcastYaml, onLoopback(pod.hazelcastYaml(manifests), freePort()));
        int internalPort = freePort();

        List<PropertySource> configFiles = new ArrayList<>();
        int order = 0;
        for (String file : pod.configFiles()) {
            String content = manifests.fileInContainer(deployment, pod.container(), file).orElseThrow()
                    .replace(configuredHazelcastPath, hazelcastYaml.toString());
            Map<String, Object> properties = new YamlPropertySourceLoader().read(file,
                    new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)));
            configFiles.add(PropertySource.of(file, properties, order++));
        }

        try (ApplicationContext context = ApplicationContext.builder()
                .propertySources(configFiles.toArray(PropertySource[]::new))
                .properties(Map.of("micronaut.server.port", -1, "gridlimit.decision-api.port", internalPort,
                        // exact first decisions need the grid's answer, however loaded the machine (SPEC §5)
                        "gridlimit.grid-timeout", "30s", "gridlimit.decision-api.timeout", "30s"))
                .start()) {
            EmbeddedServer server = context.getBean(EmbeddedServer.class).start();
            PolicyRegistry registry = context.getBean(PolicyRegistry.class);
            assertThat(registry.all()).extracting(Policy::name)
                    .containsExactlyInAnyOrder("demo", "api", "orders", "login");

            try (HttpClient http = HttpClient.create(server.getURL());
                 HttpClient internalHttp = HttpClient.create(new URL("http://127.0.0.1:" + internalPort))) {
                BlockingHttpClient client = http.toBlocking();
                BlockingHttpClient internal = internalHttp.toBlocking();
                assertFirstDecision(internal, "demo", 5, 4, null);
                assertFirstDecision(internal, "api", 100, 99, null);
                assertFirstDecision(internal, "orders", 20, 19, null);
                // Both bands admit; the binding band is the one with the smallest remaining (SPEC §4).
                assertFirstDecision(internal, "login", 10, 9, "per-minute");

                HttpResponse<String> hello = client.exchange(HttpRequest.GET("/demo/hello"), String.class);
                assertThat(hello.getStatus().getCode()).isEqualTo(HttpStatus.OK.getCode());
                // The log's entry frees its capacity at s + W + 1 ns (SPEC §3): 10 s + 1 ns, rounded up to 11 s.
                assertThat(hello.getHeaders().get("RateLimit")).isEqualTo("\"demo\";r=4;t=11");

                for (String path : List.of("/health/liveness", "/health/readiness", "/prometheus")) {
                    assertThat(internal.exchange(HttpRequest.GET(path), String.class).getStatus().getCode())
                            .as("GET %s on the internal port, as the probes and the scrape annotation use it", path)
                            .isEqualTo(HttpStatus.OK.getCode());
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void assertFirstDecision(BlockingHttpClient client, String policy, long limit, long remaining,
                                            String band) {
        Map<String, Object> decision = client.retrieve(HttpRequest.POST("/v1/ratelimit/check",
                Map.of("policy", policy, "key", KEY, "cost", 1)), Map.class);
        assertThat(decision).as("first decision of %s", policy)
                .containsEntry("allowed", true)
                .containsEntry("limit", (int) limit)
                .containsEntry("remaining", (int) remaining)
                .containsEntry("policy", policy);
        assertThat(decision.get("band")).as("binding band of %s", policy).isEqualTo(band);
    }

    /** The rendered hazelcast.yaml with only the join (and cluster name, port) made to work on this machine. */
    @SuppressWarnings("unchecked")
    static String onLoopback(String hazelcastYaml, int port) {
        Map<String, Object> root = PodConfiguration.load(hazelcastYaml);
        Map<String, Object> hazelcast = (Map<String, Object>) root.get("hazelcast");
        hazelcast.put("cluster-name", "k8s-config-test-" + UUID.randomUUID());
        Map<String, Object> network = (Map<String, Object>) hazelcast.get("network");
        ((Map<String, Object>) network.get("port")).put("port", port);
        Map<String, Object> join = (Map<String, Object>) network.get("join");
        assertThat((Map<String, Object>) join.get("kubernetes")).containsEntry("enabled", true);
        join.put("kubernetes", Map.of("enabled", false));
        Map<String, Object> tcpIp = new LinkedHashMap<>();
        tcpIp.put("enabled", true);
        tcpIp.put("member-list", List.of("127.0.0.1:" + port));
        join.put("tcp-ip", tcpIp);
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(root);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
