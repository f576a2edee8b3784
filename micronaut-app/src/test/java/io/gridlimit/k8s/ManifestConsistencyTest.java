package io.gridlimit.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.KubernetesConfig;
import com.hazelcast.internal.config.AliasedDiscoveryConfigUtils;
import com.hazelcast.logging.Logger;
import com.hazelcast.spi.discovery.impl.DefaultDiscoveryServiceProvider;
import com.hazelcast.spi.discovery.integration.DiscoveryMode;
import com.hazelcast.spi.discovery.integration.DiscoveryService;
import com.hazelcast.spi.discovery.integration.DiscoveryServiceSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HPAScalingRules;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.gridlimit.app.api.DecisionApiSettings;
import io.gridlimit.k8s.RenderedManifests.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Names, ports, labels and paths of the rendered manifests agree with each other and with the application
 * (k8s/README.md): every selector selects the pods it is meant for, every named port exists, probes use the
 * service's health paths (SPEC §9) on its internal port, the Hazelcast discovery settings name the headless Service and
 * its port, the member's graceful shutdown fits in the pod's grace period, the heap follows the memory limit, and the
 * HPA scales down one member at a time. Each overlay is checked as rendered, after all its patches.
 */
class ManifestConsistencyTest {
    @SuppressWarnings("unused") // the parameter source
    static final List<String> DIRECTORIES = Kustomize.DIRECTORIES;

    private static final Pattern PRE_STOP_SLEEP = Pattern.compile("\\d+");
    private static final Pattern MAX_RAM = Pattern.compile("-XX:MaxRAMPercentage=(\\d+(?:\\.\\d+)?)");

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void everySelectorSelectsExactlyTheIntendedPods(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        List<Workload> workloads = manifests.workloads();
        assertThat(workloads).isNotEmpty();

        for (Workload workload : workloads) {
            assertThat(RenderedManifests.selects(workload.selector(), workload.podLabels()))
                    .as("%s selector %s selects its own pod labels %s", workload.name(), workload.selector(),
                            workload.podLabels()).isTrue();
            for (TopologySpreadConstraint spread : Optional.ofNullable(workload.template().getSpec()
                    .getTopologySpreadConstraints()).orElse(List.of())) {
                assertThat(selected(workloads, spread.getLabelSelector().getMatchLabels()))
                        .as("%s topology spread selector", workload.name()).containsExactly(workload.name());
            }
        }
        for (Workload a : workloads) {
            for (Workload b : workloads) {
                if (a != b) {
                    assertThat(RenderedManifests.selects(a.selector(), b.podLabels()))
                            .as("%s selector must not adopt %s's pods", a.name(), b.name()).isFalse();
                }
            }
        }
        for (Service service : manifests.all(Service.class)) {
            List<String> targets = selected(workloads, service.getSpec().getSelector());
            assertThat(targets).as("Service/%s selects exactly one workload", service.getMetadata().getName())
                    .hasSize(1);
            Workload target = workload(workloads, targets.get(0));
            for (ServicePort port : service.getSpec().getPorts()) {
                assertThat(containerPort(target, port.getTargetPort()))
                        .as("Service/%s port %s targets a port of %s", service.getMetadata().getName(),
                                port.getName(), target.name()).isPresent();
            }
        }
        for (PodDisruptionBudget pdb : manifests.all(PodDisruptionBudget.class)) {
            assertThat(selected(workloads, pdb.getSpec().getSelector().getMatchLabels()))
                    .as("PDB/%s selects exactly one workload", pdb.getMetadata().getName()).hasSize(1);
            assertThat(pdb.getSpec().getMaxUnavailable()).as("PDB/%s maxUnavailable", pdb.getMetadata().getName())
                    .isEqualTo(new IntOrString(1));
            assertThat(pdb.getSpec().getMinAvailable()).isNull();
        }
        for (HorizontalPodAutoscaler hpa : manifests.all(HorizontalPodAutoscaler.class)) {
            assertThat(hpa.getSpec().getScaleTargetRef().getKind()).isEqualTo("Deployment");
            assertThat(manifests.find(Deployment.class, hpa.getSpec().getScaleTargetRef().getName()))
                    .as("HPA/%s target", hpa.getMetadata().getName()).isPresent();
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void gridLimitContainersProbeAndAreScrapedOnTheInternalPort(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        int serverPort = ((Number) PodConfiguration.load(PodConfiguration.applicationYml()).entrySet().stream()
                .filter(e -> e.getKey().equals("micronaut")).map(e -> (Map<?, ?>) e.getValue())
                .map(m -> (Map<?, ?>) m.get("server")).findFirst().orElseThrow().get("port")).intValue();
        List<Workload> gridLimit = gridLimitWorkloads(manifests);
        assertThat(gridLimit).isNotEmpty();

        for (Workload workload : gridLimit) {
            PodConfiguration pod = PodConfiguration.of(manifests, workload);
            Container container = pod.container();
            int internalPort = pod.value(DecisionApiSettings.PORT_PROPERTY).map(p -> ((Number) p).intValue())
                    .orElse(DecisionApiSettings.DEFAULT_PORT);
            ContainerPort internal = containerPort(workload, new IntOrString("internal")).orElseThrow(
                    () -> new AssertionError(workload.name() + " has no port named internal"));
            assertThat(internal.getContainerPort()).as("%s internal port = gridlimit.decision-api.port",
                    workload.name()).isEqualTo(internalPort);
            Optional<ContainerPort> http = containerPort(workload, new IntOrString("http"));
            if (workload.resource() instanceof Deployment) {
                assertThat(http).as("%s serves the public port", workload.name()).isPresent();
            }
            http.ifPresent(port -> assertThat(port.getContainerPort())
                    .as("%s http port = micronaut.server.port", workload.name()).isEqualTo(serverPort));
            // The kubelet and Prometheus reach the pod's IP, not its loopback: the internal port binds every
            // interface, behind the NetworkPolicies (NetworkPolicyTest).
            assertThat(workload.env(container, "GRIDLIMIT_DECISION_API_HOST")).as("%s internal host",
                    workload.name()).contains("0.0.0.0");
            EnvVar token = container.getEnv().stream()
                    .filter(e -> e.getName().equals("GRIDLIMIT_DECISION_API_TOKEN")).findFirst()
                    .orElseThrow(() -> new AssertionError(workload.name() + " has no GRIDLIMIT_DECISION_API_TOKEN"));
            assertThat(token.getValue()).as("the token never in a manifest").isNull();
            SecretKeySelector secret = token.getValueFrom().getSecretKeyRef();
            assertThat(secret.getName()).isEqualTo("gridlimit-decision-api");
            assertThat(secret.getKey()).isEqualTo("token");
            assertThat(secret.getOptional()).as("the Secret is optional").isTrue();

            assertHttpProbe(workload, "readiness", container.getReadinessProbe(), "/health/readiness");
            Optional<ContainerPort> rls = containerPort(workload, new IntOrString("envoy-rls"));
            if (rls.isPresent()) {
                // the Envoy overlay: liveness is the RLS port's gRPC health (SPEC §12), on its port by number
                Probe live = container.getLivenessProbe();
                assertThat(live.getHttpGet()).as("%s liveness has one handler", workload.name()).isNull();
                assertThat(live.getGrpc().getPort()).as("%s gRPC liveness port", workload.name())
                        .isEqualTo(rls.get().getContainerPort());
                assertThat(live.getGrpc().getService()).isEqualTo("ratelimit");
            } else {
                assertHttpProbe(workload, "liveness", container.getLivenessProbe(), "/health/liveness");
            }
            assertHttpProbe(workload, "startup", container.getStartupProbe(), "/health/liveness");
            assertThat(workload.template().getMetadata().getAnnotations())
                    .as("%s Prometheus scrape annotations", workload.name())
                    .containsEntry("prometheus.io/scrape", "true")
                    .containsEntry("prometheus.io/path", "/prometheus")
                    .containsEntry("prometheus.io/port", String.valueOf(internalPort));
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void everyGridLimitContainerRunsTheSameTaggedImage(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        List<String> images = gridLimitWorkloads(manifests).stream()
                .map(w -> PodConfiguration.gridLimitContainer(w).orElseThrow().getImage())
                .collect(Collectors.toList());
        assertThat(images).isNotEmpty().allSatisfy(image -> assertThat(image)
                .as("an explicit tag (kustomize images:), the same for every GridLimit container")
                .isEqualTo(images.get(0)).matches("gridlimit:[A-Za-z0-9._-]+"));
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void theHeapFollowsTheMemoryLimit(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        for (Workload workload : gridLimitWorkloads(manifests)) {
            Container container = PodConfiguration.gridLimitContainer(workload).orElseThrow();
            Quantity request = container.getResources().getRequests().get("memory");
            Quantity limit = container.getResources().getLimits().get("memory");
            assertThat(limit).as("%s memory limit", workload.name()).isNotNull();
            assertThat(Quantity.getAmountInBytes(request)).as("%s memory request = limit (no overcommit of a"
                    + " member's heap)", workload.name()).isEqualTo(Quantity.getAmountInBytes(limit));
            assertThat(container.getResources().getRequests().get("cpu")).as("%s cpu request (the HPA needs it)",
                    workload.name()).isNotNull();
            String options = workload.env(container, "JAVA_TOOL_OPTIONS").orElse("");
            Matcher maxRam = MAX_RAM.matcher(options);
            assertThat(maxRam.find()).as("%s JAVA_TOOL_OPTIONS %s sets -XX:MaxRAMPercentage", workload.name(),
                    options).isTrue();
            assertThat(Double.parseDouble(maxRam.group(1))).as("heap share of the limit").isBetween(25.0, 75.0);
            assertThat(options).doesNotContain("-Xmx");
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void everyEmbeddedMemberDiscoversItsOwnPodsThroughAHeadlessServiceThatPublishesNotReadyPods(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        int members = 0;
        for (Workload workload : gridLimitWorkloads(manifests)) {
            PodConfiguration pod = PodConfiguration.of(manifests, workload);
            if (!pod.string("gridlimit.hazelcast.mode").equals("embedded")) {
                continue;
            }
            members++;
            Config config = pod.hazelcastConfig(manifests);
            JoinConfig join = config.getNetworkConfig().getJoin();
            KubernetesConfig kubernetes = join.getKubernetesConfig();
            assertThat(kubernetes.isEnabled()).as("%s kubernetes join", workload.name()).isTrue();
            assertThat(join.getMulticastConfig().isEnabled()).isFalse();
            assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
            assertThat(join.isAutoDetectionEnabled()).isFalse();

            String dns = kubernetes.getProperty("service-dns");
            String serviceName = dns != null ? dns : kubernetes.getProperty("service-name");
            assertThat(serviceName).as("%s: service-dns or service-name", workload.name()).isNotBlank();
            Service headless = manifests.get(Service.class, serviceName);
            assertThat(headless.getSpec().getClusterIP()).as("Service/%s is headless", serviceName)
                    .isEqualTo("None");
            assertThat(headless.getSpec().getPublishNotReadyAddresses())
                    .as("Service/%s publishes not-ready pods (readiness waits for the cluster)", serviceName)
                    .isTrue();
            assertThat(selected(gridLimitWorkloads(manifests), headless.getSpec().getSelector()))
                    .as("Service/%s selects the members' own pods", serviceName).containsExactly(workload.name());
            ServicePort servicePort = headless.getSpec().getPorts().get(0);
            int memberPort = config.getNetworkConfig().getPort();
            assertThat(Integer.parseInt(kubernetes.getProperty("service-port")))
                    .as("service-port = the headless Service's port").isEqualTo(servicePort.getPort());
            assertThat(containerPort(workload, servicePort.getTargetPort()).orElseThrow().getContainerPort())
                    .as("the Service's target port = the member's network port").isEqualTo(memberPort);
            assertThat(config.getNetworkConfig().isPortAutoIncrement()).isFalse();
            if (dns == null) {
                assertThat(kubernetes.getProperty("resolve-not-ready-addresses"))
                        .as("API mode must list pods before they are ready").isEqualTo("true");
            }

            assertThat(config.getClusterName()).as("hazelcast.yaml cluster-name = gridlimit.hazelcast.cluster-name")
                    .isEqualTo(pod.string("gridlimit.hazelcast.cluster-name"));
            pod.value("gridlimit.hazelcast.port").ifPresent(port ->
                    assertThat(memberPort).as("hazelcast.yaml port = gridlimit.hazelcast.port")
                            .isEqualTo(((Number) port).intValue()));
            assertThat(config.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");

            if (dns != null) {
                // API mode cannot be built without an API server; HazelcastKubernetesDiscoveryTest covers it.
                assertDiscoveryServiceAcceptsTheProperties(join);
            }
        }
        if (!directory.equals("overlays/client-server")) {
            assertThat(members).as("embedded member workloads").isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void gracefulShutdownFitsInTheGracePeriod(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        for (Workload workload : gridLimitWorkloads(manifests)) {
            PodConfiguration pod = PodConfiguration.of(manifests, workload);
            Container container = pod.container();
            long grace = workload.template().getSpec().getTerminationGracePeriodSeconds();
            long preStop = preStopSleepSeconds(workload, container);
            assertThat(preStop).as("%s preStop delay", workload.name()).isPositive();
            if (pod.string("gridlimit.hazelcast.mode").equals("embedded")) {
                Config config = pod.hazelcastConfig(manifests);
                // Micronaut's shutdown hook shuts the member down (HazelcastInstance.shutdown() is graceful) after
                // the HTTP server stops; Hazelcast's own hook must not race it, and would be graceful if enabled.
                assertThat(config.getProperty("hazelcast.shutdownhook.enabled")).isEqualTo("false");
                assertThat(config.getProperty("hazelcast.shutdownhook.policy")).isEqualTo("GRACEFUL");
                long migrationWait = Long.parseLong(config.getProperty("hazelcast.graceful.shutdown.max.wait"));
                assertThat(preStop + migrationWait).as("%s preStop + graceful shutdown wait < grace period %s s",
                        workload.name(), grace).isLessThan(grace);
            } else {
                assertThat(preStop).as("%s preStop < grace period", workload.name()).isLessThan(grace);
            }
        }
    }

    @ParameterizedTest(name = "k8s/{0}")
    @FieldSource("DIRECTORIES")
    void rollingChangesTakeOneMemberAtATime(String directory) {
        RenderedManifests manifests = RenderedManifests.of(directory);
        Deployment service = manifests.get(Deployment.class, "gridlimit");
        // The HPA owns the replica count (minimum 3); a replicas field would make each `kubectl apply` scale a
        // scaled-out Deployment down at once, several members together.
        assertThat(service.getSpec().getReplicas()).as("spec.replicas of an HPA-scaled Deployment").isNull();
        assertThat(service.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
                .isEqualTo(new IntOrString(0));
        assertThat(service.getSpec().getStrategy().getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString(1));

        HorizontalPodAutoscaler hpa = manifests.get(HorizontalPodAutoscaler.class, "gridlimit");
        assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(3);
        assertThat(hpa.getSpec().getMetrics()).singleElement().satisfies(metric -> {
            assertThat(metric.getResource().getName()).isEqualTo("cpu");
            assertThat(metric.getResource().getTarget().getType()).isEqualTo("Utilization");
        });
        HPAScalingRules down = hpa.getSpec().getBehavior().getScaleDown();
        assertThat(down.getStabilizationWindowSeconds()).as("scale-down stabilisation window").isGreaterThan(0);
        assertThat(down.getPolicies()).isNotEmpty().allSatisfy(policy -> {
            assertThat(policy.getType()).isEqualTo("Pods");
            assertThat(policy.getValue()).as("pods removed per period").isEqualTo(1);
            assertThat(policy.getPeriodSeconds()).as("period >= graceful shutdown window").isGreaterThanOrEqualTo(60);
        });
        for (StatefulSet grid : manifests.all(StatefulSet.class)) {
            assertThat(grid.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
            assertThat(grid.getSpec().getUpdateStrategy().getRollingUpdate()).as("one pod at a time (default)")
                    .isNull();
        }
    }

    @Test
    void apiDiscoveryGrantsTheMembersServiceAccountReadAccessToEndpointSlices() {
        RenderedManifests manifests = RenderedManifests.of("overlays/api-discovery");
        Deployment deployment = manifests.get(Deployment.class, "gridlimit");
        String account = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
        assertThat(account).isNotBlank();
        assertThat(manifests.get(ServiceAccount.class, account)).isNotNull();
        assertThat(deployment.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isTrue();

        List<RoleBinding> bindings = manifests.all(RoleBinding.class).stream()
                .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getKind().equals("ServiceAccount")
                        && s.getName().equals(account)))
                .collect(Collectors.toList());
        assertThat(bindings).hasSize(1);
        assertThat(bindings.get(0).getRoleRef().getKind()).isEqualTo("Role");
        Role role = manifests.get(Role.class, bindings.get(0).getRoleRef().getName());

        assertThat(allows(role, "discovery.k8s.io", "endpointslices", "list")).isTrue();
        assertThat(allows(role, "", "endpoints", "list")).isTrue();
        assertThat(allows(role, "", "pods", "get")).isTrue();
        assertThat(role.getRules()).allSatisfy(rule -> assertThat(rule.getVerbs())
                .as("read-only").isSubsetOf("get", "list", "watch"));
    }

    @Test
    void managementCenterConnectsToTheMembersAndTheyPublishMetrics() {
        RenderedManifests manifests = RenderedManifests.of("overlays/management-center");
        Deployment mc = manifests.get(Deployment.class, "gridlimit-management-center");
        Workload mcWorkload = manifests.workloads().stream().filter(w -> w.resource() == mc).findFirst().orElseThrow();
        Container container = mc.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getImage()).startsWith("hazelcast/management-center:5.7.");

        Workload members = manifests.workloads().stream()
                .filter(w -> w.resource().getMetadata().getName().equals("gridlimit")).findFirst().orElseThrow();
        PodConfiguration pod = PodConfiguration.of(manifests, members);
        Config config = pod.hazelcastConfig(manifests);
        assertThat(mcWorkload.env(container, "MC_DEFAULT_CLUSTER")).contains(config.getClusterName());
        String memberAddress = mcWorkload.env(container, "MC_DEFAULT_CLUSTER_MEMBERS").orElseThrow();
        assertThat(memberAddress).isEqualTo(config.getNetworkConfig().getJoin().getKubernetesConfig()
                .getProperty("service-dns"));
        assertThat(manifests.get(Service.class, memberAddress).getSpec().getPorts().get(0).getPort())
                .as("MC's member address uses Hazelcast's default port").isEqualTo(5701);
        assertThat(manifests.get(Service.class, "gridlimit-management-center")).isNotNull();

        assertThat(config.getMetricsConfig().isEnabled()).isTrue();
        assertThat(config.getMetricsConfig().getManagementCenterConfig().isEnabled()).isTrue();
        assertThat(config.getMetricsConfig().getJmxConfig().isEnabled()).isTrue();
        assertThat(config.getManagementCenterConfig().isDataAccessEnabled())
                .as("MC must not browse raw keys").isFalse();
        assertThat(config.getManagementCenterConfig().isScriptingEnabled()).isFalse();
        assertThat(config.getManagementCenterConfig().isConsoleEnabled()).isFalse();

        Config base = PodConfiguration.of(RenderedManifests.of("base"), RenderedManifests.of("base").workloads()
                .get(0)).hazelcastConfig(RenderedManifests.of("base"));
        assertThat(base.getMetricsConfig().getManagementCenterConfig().isEnabled())
                .as("the base does not send metrics to an MC it does not deploy").isFalse();
    }

    @Test
    void clientServerAppPodsAreClientsOfEveryGridMember() {
        RenderedManifests manifests = RenderedManifests.of("overlays/client-server");
        Workload app = gridLimitWorkloads(manifests).stream()
                .filter(w -> w.resource() instanceof Deployment).findFirst().orElseThrow();
        Workload grid = gridLimitWorkloads(manifests).stream()
                .filter(w -> w.resource() instanceof StatefulSet).findFirst().orElseThrow();
        PodConfiguration client = PodConfiguration.of(manifests, app);
        PodConfiguration member = PodConfiguration.of(manifests, grid);
        StatefulSet statefulSet = (StatefulSet) grid.resource();

        assertThat(client.string("gridlimit.hazelcast.mode")).isEqualTo("client");
        assertThat(client.value("gridlimit.hazelcast.config-file")).as("no member configuration for a client")
                .isEmpty();
        assertThat(member.string("gridlimit.hazelcast.mode")).isEqualTo("embedded");
        Config memberConfig = member.hazelcastConfig(manifests);
        assertThat(client.string("gridlimit.hazelcast.cluster-name")).isEqualTo(memberConfig.getClusterName());

        String headless = statefulSet.getSpec().getServiceName();
        assertThat(manifests.get(Service.class, headless).getSpec().getClusterIP()).isEqualTo("None");
        List<String> expected = new ArrayList<>();
        for (int ordinal = 0; ordinal < statefulSet.getSpec().getReplicas(); ordinal++) {
            expected.add(statefulSet.getMetadata().getName() + "-" + ordinal + "." + headless + ":"
                    + memberConfig.getNetworkConfig().getPort());
        }
        assertThat(client.value("gridlimit.hazelcast.members").orElseThrow())
                .as("the client lists every grid member by its stable name").isEqualTo(expected);

        assertThat(manifests.find(Service.class, "gridlimit-hazelcast")).as("no member discovery for clients")
                .isEmpty();
        assertThat(client.container().getPorts()).extracting(ContainerPort::getContainerPort)
                .as("a client listens on no member port").containsExactly(8080, 8081);
        assertThat(app.template().getSpec().getVolumes()).extracting(v -> v.getName())
                .doesNotContain("hazelcast");
        assertThat(grid.template().getSpec().getContainers().get(0).getImage())
                .as("grid members run the image that carries grid-core's classes")
                .isEqualTo(client.container().getImage());
    }

    private static void assertHttpProbe(Workload workload, String kind, Probe probe, String path) {
        assertThat(probe).as("%s %s probe", workload.name(), kind).isNotNull();
        HTTPGetAction get = probe.getHttpGet();
        assertThat(get).as("%s %s probe is an HTTP GET", workload.name(), kind).isNotNull();
        assertThat(get.getPath()).as("%s %s probe path", workload.name(), kind).isEqualTo(path);
        assertThat(get.getPort()).as("%s %s probe port: /health/* answers on the internal port only",
                workload.name(), kind).isEqualTo(new IntOrString("internal"));
    }

    private static void assertDiscoveryServiceAcceptsTheProperties(JoinConfig join) {
        DiscoveryService discovery = new DefaultDiscoveryServiceProvider().newDiscoveryService(
                new DiscoveryServiceSettings()
                        .setConfigClassLoader(ManifestConsistencyTest.class.getClassLoader())
                        .setLogger(Logger.getLogger(DiscoveryService.class))
                        .setDiscoveryMode(DiscoveryMode.Member)
                        .setDiscoveryConfig(join.getDiscoveryConfig())
                        .setAliasedDiscoveryConfigs(AliasedDiscoveryConfigUtils.createDiscoveryStrategyConfigs(join))
                        .setAutoDetectionEnabled(false));
        assertThat(discovery.getClass().getSimpleName()).isEqualTo("DefaultDiscoveryService");
        discovery.destroy();
    }

    private static long preStopSleepSeconds(Workload workload, Container container) {
        assertThat(container.getLifecycle()).as("%s lifecycle", workload.name()).isNotNull();
        List<String> command = container.getLifecycle().getPreStop().getExec().getCommand();
        assertThat(command).as("%s preStop", workload.name()).hasSize(2).first().isEqualTo("sleep");
        assertThat(PRE_STOP_SLEEP.matcher(command.get(1)).matches()).isTrue();
        return Long.parseLong(command.get(1));
    }

    private static boolean allows(Role role, String apiGroup, String resource, String verb) {
        for (PolicyRule rule : role.getRules()) {
            if (rule.getApiGroups().contains(apiGroup) && rule.getResources().contains(resource)
                    && rule.getVerbs().contains(verb)) {
                return true;
            }
        }
        return false;
    }

    private static List<Workload> gridLimitWorkloads(RenderedManifests manifests) {
        return manifests.workloads().stream().filter(w -> PodConfiguration.gridLimitContainer(w).isPresent())
                .collect(Collectors.toList());
    }

    private static List<String> selected(List<Workload> workloads, Map<String, String> selector) {
        return workloads.stream().filter(w -> RenderedManifests.selects(selector, w.podLabels()))
                .map(Workload::name).collect(Collectors.toList());
    }

    private static Workload workload(List<Workload> workloads, String name) {
        return workloads.stream().filter(w -> w.name().equals(name)).findFirst().orElseThrow();
    }

    private static Optional<ContainerPort> containerPort(Workload workload, IntOrString port) {
        return workload.template().getSpec().getContainers().stream()
                .flatMap(c -> Optional.ofNullable(c.getPorts()).orElse(List.of()).stream())
                .filter(p -> port.getStrVal() != null ? port.getStrVal().equals(p.getName())
                        : port.getIntVal().equals(p.getContainerPort()))
                .findFirst();
    }
}
