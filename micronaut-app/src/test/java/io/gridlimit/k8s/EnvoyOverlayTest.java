package io.gridlimit.k8s;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsConfigReader;
import io.gridlimit.k8s.RenderedManifests.Workload;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * k8s/overlays/envoy (and its istio/ EnvoyFilter) as rendered by {@code kubectl kustomize}: the gRPC port is
 * enabled on every interface behind its NetworkPolicy, the rules ConfigMap is an envoyproxy/ratelimit configuration
 * GridLimit accepts, the Envoy and Istio configurations point at the headless Service's port and a domain the rules
 * define, and the pod's configuration starts the service, which answers Envoy's generated client exactly.
 */
class EnvoyOverlayTest {
    private static final String OVERLAY = "overlays/envoy";

    private static Workload deployment(RenderedManifests m) {
        return m.workloads().stream().filter(w -> w.resource() instanceof Deployment).findFirst().orElseThrow();
    }

    private static ContainerPort rlsPort(Workload w) {
        return w.template().getSpec().getContainers().get(0).getPorts().stream()
                .filter(p -> "envoy-rls".equals(p.getName())).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object tree, String... path) {
        Object o = tree;
        for (String p : path) {
            o = o instanceof List<?> l ? l.get(Integer.parseInt(p)) : ((Map<String, Object>) o).get(p);
            assertThat(o).as("%s in %s", p, String.join(".", path)).isNotNull();
        }
        return (T) o;
    }

    /** A generated ConfigMap, whose rendered name carries Kustomize's content hash. */
    private static ConfigMap configMap(RenderedManifests m, String name) {
        return m.all(ConfigMap.class).stream().filter(c -> c.getMetadata().getName().startsWith(name + "-"))
                .findFirst().orElseThrow(() -> new AssertionError("no ConfigMap " + name));
    }

    private static Object yaml(String text) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }

    private static RlsConfig rules(RenderedManifests m, Path dir) throws IOException {
        ConfigMap rules = configMap(m, "gridlimit-ratelimit");
        List<String> files = new ArrayList<>();
        for (Map.Entry<String, String> e : rules.getData().entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), e.getValue());
            files.add(dir.resolve(e.getKey()).toString());
        }
        return RlsConfigReader.read(List.of(dir.toString()));
    }

    @Test
    void theGrpcPortIsEnabledOnEveryInterfaceWithTheRulesMounted(@TempDir Path dir) throws IOException {
        RenderedManifests m = RenderedManifests.of(OVERLAY);
        Workload w = deployment(m);
        PodConfiguration pod = PodConfiguration.of(m, w);
        assertThat(pod.string("gridlimit.envoy-rls.enabled")).isEqualTo("true");
        assertThat(pod.string("gridlimit.envoy-rls.host")).isEqualTo("0.0.0.0");
        assertThat(pod.string("gridlimit.envoy-rls.port")).isEqualTo(Integer.toString(rlsPort(w).getContainerPort()));
        assertThat(pod.string("gridlimit.envoy-rls.config-files")).isEqualTo("[/etc/gridlimit/ratelimit]");
        assertThat(m.fileInContainer(w, pod.container(), "/etc/gridlimit/ratelimit/edge.yaml")).isPresent();
        assertThat(rules(m, dir).domains()).containsOnlyKeys("edge_proxy_per_ip");

        Service svc = m.find(Service.class, "gridlimit-ratelimit").orElseThrow();
        assertThat(svc.getSpec().getClusterIP()).as("headless: Envoy balances over the pods").isEqualTo("None");
        assertThat(svc.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort()).isEqualTo(8083);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("envoy-rls");
            assertThat(p.getAppProtocol()).isEqualTo("grpc");
        });
        assertThat(RenderedManifests.selects(svc.getSpec().getSelector(), w.podLabels())).isTrue();
    }

    @Test
    void theEnvoyConfigurationCallsTheServiceForADomainTheRulesDefine(@TempDir Path dir) throws IOException {
        RenderedManifests m = RenderedManifests.of(OVERLAY);
        RlsConfig rules = rules(m, dir);
        Object envoy = yaml(configMap(m, "gridlimit-envoy-example").getData()
                .get("envoy.yaml"));
        List<Object> filters = at(envoy, "static_resources", "listeners", "0", "filter_chains", "0", "filters", "0",
                "typed_config", "http_filters");
        Map<String, Object> rl = at(filters.get(0), "typed_config");
        assertThat(at(filters.get(0), "name").toString()).isEqualTo("envoy.filters.http.ratelimit");
        assertThat(rules.domains()).containsKey((String) rl.get("domain"));
        assertThat(rl).containsEntry("failure_mode_deny", true);
        String cluster = at(rl, "rate_limit_service", "grpc_service", "envoy_grpc", "cluster_name");
        List<Map<String, Object>> clusters = at(envoy, "static_resources", "clusters");
        Map<String, Object> rls = clusters.stream().filter(c -> cluster.equals(c.get("name"))).findFirst()
                .orElseThrow();
        assertThat(rls).containsEntry("type", "STRICT_DNS");
        Map<String, Object> address = at(rls, "load_assignment", "endpoints", "0", "lb_endpoints", "0", "endpoint",
                "address", "socket_address");
        assertThat(address).containsEntry("address", "gridlimit-ratelimit").containsEntry("port_value", 8083);
        assertThat((Object) at(rls, "typed_extension_protocol_options",
                "envoy.extensions.upstreams.http.v3.HttpProtocolOptions", "explicit_http_config",
                "http2_protocol_options")).as("gRPC needs HTTP/2").isNotNull();
        assertThat((String) at(rls, "health_checks", "0", "grpc_health_check", "service_name"))
                .as("Envoy asks the RLS port's gRPC health (SPEC §12)").isEqualTo("ratelimit");
    }

    @Test
    void theIstioEnvoyFilterCallsTheServiceFromTheGatewayTheNetworkPolicyAdmits(@TempDir Path dir)
            throws IOException {
        RenderedManifests m = RenderedManifests.of(OVERLAY);
        Object filter = yaml(Kustomize.render(OVERLAY + "/istio"));
        assertThat((String) at(filter, "apiVersion")).isEqualTo("networking.istio.io/v1alpha3");
        assertThat((String) at(filter, "kind")).isEqualTo("EnvoyFilter");
        Map<String, String> gateway = at(filter, "spec", "workloadSelector", "labels");
        Map<String, Object> rl = at(filter, "spec", "configPatches", "0", "patch", "value", "typed_config");
        assertThat(rules(m, dir).domains()).containsKey((String) rl.get("domain"));
        assertThat(rl).containsEntry("failure_mode_deny", true);
        String cluster = at(rl, "rate_limit_service", "grpc_service", "envoy_grpc", "cluster_name");
        assertThat(cluster).isEqualTo("outbound|8083||gridlimit-ratelimit.gridlimit.svc.cluster.local");

        NetworkPolicy policy = m.find(NetworkPolicy.class, "gridlimit-envoy-rls").orElseThrow();
        List<NetworkPolicyPeer> from = policy.getSpec().getIngress().get(0).getFrom();
        assertThat(from.stream().filter(peer -> peer.getNamespaceSelector() != null)).singleElement().satisfies(peer -> {
            assertThat(peer.getNamespaceSelector().getMatchLabels())
                    .containsEntry("kubernetes.io/metadata.name", "istio-system");
            assertThat(peer.getPodSelector().getMatchLabels()).isEqualTo(gateway);
        });
        assertThat(policy.getSpec().getIngress().get(0).getPorts()).singleElement()
                .satisfies(p -> assertThat(p.getPort().getStrVal()).isEqualTo("envoy-rls"));
    }

    @Test
    void thePodsConfigurationStartsTheServiceAndEnvoysClientGetsExactDecisions(@TempDir Path dir)
            throws IOException {
        RenderedManifests m = RenderedManifests.of(OVERLAY);
        Workload w = deployment(m);
        PodConfiguration pod = PodConfiguration.of(m, w);
        String configuredHazelcastPath = pod.string("gridlimit.hazelcast.config-file");
        Path hazelcastYaml = dir.resolve("hazelcast.yaml");
        Files.writeString(hazelcastYaml, KubernetesConfigStartsTheServiceTest.onLoopback(pod.hazelcastYaml(m),
                KubernetesConfigStartsTheServiceTest.freePort()));
        Path rulesDir = Files.createDirectory(dir.resolve("ratelimit"));
        rules(m, rulesDir);
        int grpcPort = KubernetesConfigStartsTheServiceTest.freePort();
        List<PropertySource> sources = new ArrayList<>();
        int order = 0;
        for (String file : pod.configFiles()) {
            String content = m.fileInContainer(w, pod.container(), file).orElseThrow()
                    .replace(configuredHazelcastPath, hazelcastYaml.toString())
                    .replace("/etc/gridlimit/ratelimit", rulesDir.toString());
            sources.add(PropertySource.of(file, new YamlPropertySourceLoader().read(file,
                    new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8))), order++));
        }
        // this machine's ports over the pod's (an override of higher order than every file)
        sources.add(PropertySource.of("test", Map.of("micronaut.server.port", -1, "gridlimit.decision-api.port",
                KubernetesConfigStartsTheServiceTest.freePort(), "gridlimit.envoy-rls.port", grpcPort,
                "gridlimit.envoy-rls.host", "127.0.0.1"), 1000));
        try (ApplicationContext context = ApplicationContext.builder()
                .propertySources(sources.toArray(PropertySource[]::new))
                .start()) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
            try {
                RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = RateLimitServiceGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(10, TimeUnit.SECONDS);
                RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("edge_proxy_per_ip")
                        .addDescriptors(RateLimitDescriptor.newBuilder().addEntries(RateLimitDescriptor.Entry
                                .newBuilder().setKey("remote_address").setValue("50.0.0.5"))).build();
                // 2 per second for that address (a fixed window on the grid's wall clock): the first call of a window
                // leaves 1, the second 0, the third is OVER_LIMIT; a second boundary between calls starts afresh
                List<String> seen = new ArrayList<>();
                String previous = "none";
                for (int i = 0; i < 20 && !previous.startsWith("OVER_LIMIT"); i++) {
                    RateLimitResponse r = stub.shouldRateLimit(request);
                    String now = r.getOverallCode() + " " + r.getStatuses(0).getLimitRemaining();
                    seen.add(now);
                    assertThat(now).as("after %s", previous).isIn(previous.equals("OK 0")
                            ? List.of("OVER_LIMIT 0", "OK 1") : List.of("OK 1", "OK 0"));
                    previous = now;
                }
                assertThat(seen.get(0)).isEqualTo("OK 1");
                assertThat(seen).last().isEqualTo("OVER_LIMIT 0");
            } finally {
                channel.shutdownNow();
            }
        }
    }
}
