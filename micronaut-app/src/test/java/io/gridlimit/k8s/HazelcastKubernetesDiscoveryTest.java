package io.gridlimit.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Address;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.KubernetesConfig;
import com.hazelcast.internal.config.AliasedDiscoveryConfigUtils;
import com.hazelcast.logging.Logger;
import com.hazelcast.spi.discovery.DiscoveryNode;
import com.hazelcast.spi.discovery.impl.DefaultDiscoveryServiceProvider;
import com.hazelcast.spi.discovery.integration.DiscoveryMode;
import com.hazelcast.spi.discovery.integration.DiscoveryService;
import com.hazelcast.spi.discovery.integration.DiscoveryServiceSettings;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gridlimit.k8s.RenderedManifests.Workload;
import java.net.UnknownHostException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hazelcast's Kubernetes discovery, configured exactly as the rendered manifests configure a member, finds the
 * members it should (k8s/README.md): the discovery service is built the way a starting member builds it (the
 * {@code kubernetes} join section mapped to a discovery strategy, unknown properties rejected), without forming a
 * cluster.
 *
 * <ul>
 *   <li>API mode (overlays/api-discovery) against fabric8's mock Kubernetes API serving EndpointSlices: the pods behind
 *       the headless Service are found, not-ready ones included, other services' pods not.</li>
 *   <li>DNS mode (base): the configured lookup and port are used (the Service's DNS name swapped for
 *       {@code localhost}, the only name that resolves here).</li>
 * </ul>
 * Only the test-only connection settings are added: the mock API's URL, a token, a CA certificate and the namespace
 * (in a pod these come from the ServiceAccount mount and KUBERNETES_NAMESPACE). Hazelcast builds a TLS context from
 * {@code ca-certificate} even for a plain-http API URL, so it must be a real certificate:
 * {@code src/test/resources/k8s/throwaway-ca.pem} is a self-signed one made with {@code keytool} for this test only
 * (no key kept, never used to verify anything; committed rather than generated to spare two JVM launches per run).
 */
@EnableKubernetesMockClient(crud = true, https = false)
class HazelcastKubernetesDiscoveryTest {
    private static final String NAMESPACE = "gridlimit-test";

    private static String caCertificate;

    KubernetesMockServer server;
    KubernetesClient client;

    @BeforeAll
    static void certificate() throws IOException {
        try (InputStream in = HazelcastKubernetesDiscoveryTest.class.getResourceAsStream("/k8s/throwaway-ca.pem")) {
            assertThat(in).as("test resource k8s/throwaway-ca.pem").isNotNull();
            caCertificate = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        assertThat(caCertificate).startsWith("-----BEGIN CERTIFICATE-----");
    }

    @Test
    void apiModeFindsEveryPodBehindTheHeadlessServiceReadyOrNot() throws UnknownHostException {
        RenderedManifests manifests = RenderedManifests.of("overlays/api-discovery");
        Config config = memberConfig(manifests);
        KubernetesConfig kubernetes = config.getNetworkConfig().getJoin().getKubernetesConfig();
        String serviceName = kubernetes.getProperty("service-name");
        Service headless = manifests.get(Service.class, serviceName);
        int port = headless.getSpec().getPorts().get(0).getPort();
        createSlice(serviceName, "10.1.0.11", "10.1.0.12", "10.1.0.13");
        createSlice("some-other-service", "10.9.9.9", null, null);

        Set<Address> found = discover(config);

        assertThat(found).containsExactlyInAnyOrder(
                new Address("10.1.0.11", port), new Address("10.1.0.12", port), new Address("10.1.0.13", port));
        assertThat(port).isEqualTo(5701);
    }

    @Test
    void apiModeWithoutResolveNotReadyAddressesWouldMissTheStartingPod() throws UnknownHostException {
        RenderedManifests manifests = RenderedManifests.of("overlays/api-discovery");
        Config config = memberConfig(manifests);
        KubernetesConfig kubernetes = config.getNetworkConfig().getJoin().getKubernetesConfig();
        createSlice(kubernetes.getProperty("service-name"), "10.1.0.11", "10.1.0.12", "10.1.0.13");
        kubernetes.setProperty("resolve-not-ready-addresses", "false");

        Set<Address> found = discover(config);

        // 10.1.0.13 is not ready: without the setting a pod that has not joined yet would stay invisible, and pods
        // only become ready once joined, so the first members of a new cluster would never find each other.
        assertThat(found).containsExactlyInAnyOrder(new Address("10.1.0.11", 5701), new Address("10.1.0.12", 5701));
    }

    @Test
    void dnsModeLooksUpTheConfiguredNameOnTheConfiguredPort() throws UnknownHostException {
        RenderedManifests manifests = RenderedManifests.of("base");
        Config config = memberConfig(manifests);
        KubernetesConfig kubernetes = config.getNetworkConfig().getJoin().getKubernetesConfig();
        assertThat(kubernetes.getProperty("service-dns")).isEqualTo("gridlimit-hazelcast");
        kubernetes.setProperty("service-dns", "localhost");

        Set<Address> found = discover(config);

        assertThat(found).contains(new Address("127.0.0.1", 5701));
        assertThat(found).allSatisfy(address -> assertThat(address.getPort()).isEqualTo(5701));
    }

    /** The member configuration of the service Deployment's pods in a rendered directory. */
    private static Config memberConfig(RenderedManifests manifests) {
        Workload deployment = manifests.workloads().stream()
                .filter(w -> w.resource().getMetadata().getName().equals("gridlimit")).findFirst().orElseThrow();
        return PodConfiguration.of(manifests, deployment).hazelcastConfig(manifests);
    }

    /** Adds the test-only API connection settings, then discovers as a starting member would. */
    private Set<Address> discover(Config config) throws UnknownHostException {
        JoinConfig join = config.getNetworkConfig().getJoin();
        if (join.getKubernetesConfig().getProperty("service-dns") == null) {
            join.getKubernetesConfig()
                    .setProperty("kubernetes-master", server.url("/").replaceAll("/$", ""))
                    .setProperty("api-token", "test-token")
                    .setProperty("ca-certificate", caCertificate)
                    .setProperty("namespace", NAMESPACE);
        }
        DiscoveryService discovery = new DefaultDiscoveryServiceProvider().newDiscoveryService(
                new DiscoveryServiceSettings()
                        .setConfigClassLoader(getClass().getClassLoader())
                        .setLogger(Logger.getLogger(DiscoveryService.class))
                        .setDiscoveryMode(DiscoveryMode.Member)
                        .setDiscoveryConfig(join.getDiscoveryConfig())
                        .setAliasedDiscoveryConfigs(AliasedDiscoveryConfigUtils.createDiscoveryStrategyConfigs(join))
                        .setAutoDetectionEnabled(false));
        discovery.start();
        try {
            Set<Address> found = new HashSet<>();
            for (DiscoveryNode node : discovery.discoverNodes()) {
                found.add(node.getPrivateAddress());
            }
            return found;
        } finally {
            discovery.destroy();
        }
    }

    /** An EndpointSlice of a Service: the first two addresses ready, the third one not. */
    private void createSlice(String serviceName, String ready1, String ready2, String notReady) {
        EndpointSliceBuilder slice = new EndpointSliceBuilder()
                .withNewMetadata()
                    .withName(serviceName + "-x7k2p")
                    .withNamespace(NAMESPACE)
                    .addToLabels("kubernetes.io/service-name", serviceName)
                .endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName("hazelcast").withPort(5701).withProtocol("TCP").endPort();
        int pod = 0;
        for (String ip : new String[] {ready1, ready2, notReady}) {
            if (ip == null) {
                continue;
            }
            slice.addNewEndpoint()
                    .withAddresses(ip)
                    .withNewConditions().withReady(ip != notReady).endConditions()
                    .withNewTargetRef().withKind("Pod").withName(serviceName + "-" + pod++)
                        .withNamespace(NAMESPACE).endTargetRef()
                    .endEndpoint();
        }
        EndpointSlice created = client.discovery().v1().endpointSlices().inNamespace(NAMESPACE)
                .resource(slice.build()).create();
        assertThat(created.getEndpoints()).isNotEmpty();
    }
}
