package io.gridlimit.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.gridlimit.k8s.RenderedManifests.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The rendered NetworkPolicies give every port of every pod exactly its intended sources: the member port only
 * the application's own pods (plus Management Center in its overlay, plus the clients in client-server), the
 * public HTTP port anyone, the internal port (decision API, health, metrics) only the monitoring namespace's
 * Prometheus and the decision-API callers named by label. A port no rule opens is closed (a selected pod accepts
 * only what some policy allows), so every declared container port must be opened by some rule, and no rule may
 * name a port the pods do not have. Each directory is checked as rendered, after all its patches.
 */
class NetworkPolicyTest {
    @SuppressWarnings("unused") // the parameter source
    static final List<String> DIRECTORIES = Kustomize.DIRECTORIES;

    /** The monitoring peer: Prometheus pods in namespace {@code monitoring}. */
    private static final String MONITORING =
            "namespace{kubernetes.io/metadata.name=monitoring} pods{app.kubernetes.io/name=prometheus}";
    /** Decision-API callers: pods of this namespace with the caller label. */
    private static final String CALLERS = "pods{gridlimit.io/decision-api-client=true}";
    /** A rule without {@code from}: every source. */
    private static final String ANYWHERE = "anywhere";

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void everyContainerPortIsOpenedBySomeRuleAndEveryRuleNamesARealPort(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        List<NetworkPolicy> policies = manifests.all(NetworkPolicy.class);
        List<Workload> workloads = manifests.workloads();
        for (Workload workload : workloads) {
            assertThat(policiesSelecting(policies, workload)).as("%s is selected by a NetworkPolicy",
                    workload.name()).isNotEmpty();
            for (ContainerPort port : ports(workload)) {
                assertThat(sources(policies, workload, port)).as("%s port %s (%s) is opened by some ingress rule",
                        workload.name(), port.getName(), port.getContainerPort()).isNotEmpty();
            }
        }
        for (NetworkPolicy policy : policies) {
            String name = policy.getMetadata().getName();
            assertThat(policy.getSpec().getPolicyTypes()).as("NetworkPolicy/%s isolates ingress", name)
                    .contains("Ingress");
            List<Workload> selected = workloads.stream()
                    .filter(w -> selects(policy.getSpec().getPodSelector(), w.podLabels())).toList();
            assertThat(selected).as("NetworkPolicy/%s selects some pods", name).isNotEmpty();
            for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
                assertThat(rule.getPorts()).as("NetworkPolicy/%s: every rule names its ports (none = all)", name)
                        .isNotEmpty();
                for (NetworkPolicyPort port : rule.getPorts()) {
                    assertThat(port.getProtocol()).isEqualTo("TCP");
                    for (Workload w : selected) {
                        assertThat(ports(w).stream().anyMatch(p -> matches(port, p)))
                                .as("NetworkPolicy/%s port %s is a port of %s", name, port.getPort(), w.name())
                                .isTrue();
                    }
                }
                for (NetworkPolicyPeer peer : Optional.ofNullable(rule.getFrom()).orElse(List.of())) {
                    assertThat(peer.getIpBlock()).as("NetworkPolicy/%s: no address blocks", name).isNull();
                    if (peer.getNamespaceSelector() != null) {
                        assertThat(peer.getPodSelector()).as("NetworkPolicy/%s: a namespace peer names its pods"
                                + " (never a whole namespace)", name).isNotNull();
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void theServicePodsPortsHaveExactlyTheirIntendedSources(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        List<NetworkPolicy> policies = manifests.all(NetworkPolicy.class);
        Workload service = workload(manifests, "Deployment/gridlimit");

        assertThat(sources(policies, service, port(service, "http"))).as("public port").containsExactly(ANYWHERE);
        assertThat(sources(policies, service, port(service, "internal"))).as("internal port")
                .containsExactlyInAnyOrder(MONITORING, CALLERS);
        Optional<ContainerPort> rls = findPort(service, "envoy-rls");
        assertThat(rls.isPresent()).as("the gRPC port only in overlays/envoy").isEqualTo(directory.equals(
                "overlays/envoy"));
        rls.ifPresent(p -> assertThat(sources(policies, service, p)).as("Envoy's rate limit service port")
                .containsExactlyInAnyOrder("pods{gridlimit.io/envoy-rls-client=true}",
                        "namespace{kubernetes.io/metadata.name=istio-system} pods{istio=ingressgateway}"));
        Optional<ContainerPort> member = findPort(service, "hazelcast");
        if (directory.equals("overlays/client-server")) {
            assertThat(member).as("clients have no member port").isEmpty();
            return;
        }
        Set<String> expected = new TreeSet<>(Set.of("Deployment/gridlimit"));
        if (directory.equals("overlays/management-center")) {
            expected.add("Deployment/gridlimit-management-center");
        }
        assertThat(sourceWorkloads(manifests, policies, service, member.orElseThrow()))
                .as("the member port only from the application's own pods (and MC in its overlay)")
                .isEqualTo(expected);
    }

    @Test
    void theGridMembersOfClientServerHaveTheirOwnPolicies() {
        RenderedManifests manifests = RenderedManifests.of("overlays/client-server");
        List<NetworkPolicy> policies = manifests.all(NetworkPolicy.class);
        Workload grid = workload(manifests, "StatefulSet/gridlimit-grid");
        assertThat(policiesSelecting(policies, grid)).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("gridlimit-grid-hazelcast", "gridlimit-grid-internal");
        assertThat(ports(grid)).extracting(ContainerPort::getName).as("no public port on a grid member")
                .containsExactlyInAnyOrder("internal", "hazelcast");
        assertThat(sourceWorkloads(manifests, policies, grid, port(grid, "hazelcast")))
                .as("the member port from the members and their clients, the service pods")
                .containsExactlyInAnyOrder("StatefulSet/gridlimit-grid", "Deployment/gridlimit");
        assertThat(sources(policies, grid, port(grid, "internal"))).containsExactly(MONITORING);
        assertThat(manifests.find(NetworkPolicy.class, "gridlimit-hazelcast"))
                .as("the service pods' member-port policy goes with their member port").isEmpty();
    }

    @Test
    void managementCentersUiIsOpenOnlyToLabelledPods() {
        RenderedManifests manifests = RenderedManifests.of("overlays/management-center");
        Workload mc = workload(manifests, "Deployment/gridlimit-management-center");
        assertThat(sources(manifests.all(NetworkPolicy.class), mc, port(mc, "http")))
                .containsExactly("pods{gridlimit.io/management-center-client=true}");
    }

    /** The sources allowed to one port of a workload, over every policy selecting it, as readable strings. */
    private static List<String> sources(List<NetworkPolicy> policies, Workload workload, ContainerPort port) {
        List<String> found = new ArrayList<>();
        for (NetworkPolicy policy : policiesSelecting(policies, workload)) {
            for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
                if (rule.getPorts() != null && !rule.getPorts().isEmpty()
                        && rule.getPorts().stream().noneMatch(p -> matches(p, port))) {
                    continue;
                }
                if (rule.getFrom() == null || rule.getFrom().isEmpty()) {
                    found.add(ANYWHERE);
                    continue;
                }
                for (NetworkPolicyPeer peer : rule.getFrom()) {
                    found.add(describe(peer));
                }
            }
        }
        return found;
    }

    /** The workloads whose pods some same-namespace pod peer of a port's sources selects. */
    private static Set<String> sourceWorkloads(RenderedManifests manifests, List<NetworkPolicy> policies,
                                               Workload workload, ContainerPort port) {
        Set<String> found = new TreeSet<>();
        for (NetworkPolicy policy : policiesSelecting(policies, workload)) {
            for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
                if (rule.getPorts().stream().noneMatch(p -> matches(p, port))) {
                    continue;
                }
                assertThat(rule.getFrom()).as("%s port %s: never from anywhere", workload.name(), port.getName())
                        .isNotEmpty();
                for (NetworkPolicyPeer peer : rule.getFrom()) {
                    assertThat(peer.getNamespaceSelector()).as("same namespace only").isNull();
                    assertThat(peer.getPodSelector().getMatchLabels()).as("a pod peer selects by labels")
                            .isNotEmpty();
                    List<String> selected = manifests.workloads().stream()
                            .filter(w -> selects(peer.getPodSelector(), w.podLabels())).map(Workload::name)
                            .toList();
                    assertThat(selected).as("peer %s selects some workload", describe(peer)).isNotEmpty();
                    found.addAll(selected);
                }
            }
        }
        return found;
    }

    private static String describe(NetworkPolicyPeer peer) {
        String pods = peer.getPodSelector() == null ? "" : "pods" + labels(peer.getPodSelector());
        return peer.getNamespaceSelector() == null ? pods
                : ("namespace" + labels(peer.getNamespaceSelector()) + " " + pods).trim();
    }

    private static String labels(LabelSelector selector) {
        assertThat(selector.getMatchExpressions()).as("selectors use matchLabels only").isNullOrEmpty();
        return Optional.ofNullable(selector.getMatchLabels()).orElse(Map.of()).entrySet().stream()
                .sorted(Map.Entry.comparingByKey()).map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static List<NetworkPolicy> policiesSelecting(List<NetworkPolicy> policies, Workload workload) {
        return policies.stream().filter(p -> selects(p.getSpec().getPodSelector(), workload.podLabels())).toList();
    }

    private static boolean selects(LabelSelector selector, Map<String, String> labels) {
        assertThat(selector.getMatchExpressions()).isNullOrEmpty();
        return RenderedManifests.selects(selector.getMatchLabels(), labels);
    }

    private static boolean matches(NetworkPolicyPort rule, ContainerPort port) {
        IntOrString p = rule.getPort();
        assertThat(rule.getEndPort()).as("no port ranges").isNull();
        return p.getStrVal() != null ? p.getStrVal().equals(port.getName())
                : p.getIntVal().equals(port.getContainerPort());
    }

    private static List<ContainerPort> ports(Workload workload) {
        return workload.template().getSpec().getContainers().stream()
                .flatMap(c -> Optional.ofNullable(c.getPorts()).orElse(List.of()).stream()).toList();
    }

    private static Optional<ContainerPort> findPort(Workload workload, String name) {
        return ports(workload).stream().filter(p -> name.equals(p.getName())).findFirst();
    }

    private static ContainerPort port(Workload workload, String name) {
        return findPort(workload, name).orElseThrow(() -> new AssertionError(workload.name() + " has no port "
                + name));
    }

    private static Workload workload(RenderedManifests manifests, String name) {
        return manifests.workloads().stream().filter(w -> w.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(manifests.source() + " has no " + name));
    }
}
