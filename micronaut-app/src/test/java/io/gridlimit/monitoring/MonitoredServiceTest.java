package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gridlimit.micronaut.metrics.GridStatusMetrics;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The service as the {@code overlays/management-center} manifests configure a pod (its ConfigMaps' policies.yml,
 * grid.yml and hazelcast.yaml, with only the Kubernetes join moved to TCP-IP on 127.0.0.1), under a manual clock,
 * serves a scripted day in one run; the tests then check what monitoring sees of it (k8s/README.md).
 *
 * <p>The script (once, before the tests): client {@code 203.0.113.1} sends 6 {@code GET /demo/hello} (policy
 * {@code demo}, 5 per 10 s per client IP: 5 admitted, the 6th denied) and {@code /prometheus} is scraped; clients
 * {@code 203.0.113.2..11} do the same and it is scraped again; JMX is read once the member's metrics collection has
 * run; then the member is terminated and client {@code 203.0.113.12} is admitted by failure-mode local (the default:
 * its share of {@code demo} is floor(5/3) = 1), and a
 * last scrape is taken. Client addresses come through {@code X-Forwarded-For} from the trusted loopback peer, so
 * each client is its own key ({@code ip:203.0.113.<n>}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MonitoredServiceTest {
    private static final String OVERLAY = "overlays/management-center";
    private static final String CLIENT_PREFIX = "203.0.113.";
    private static final int CLIENTS = 11;
    /** Families that describe the member, not a policy: no {@code policy} label. */
    private static final Set<String> MEMBER_LEVEL_FAMILIES = Set.of("gridlimit_state_lost", "gridlimit_grid_members",
            "gridlimit_local_expected_replicas",
            "gridlimit_grid_member_safe", "gridlimit_grid_cluster_safe",
            // connections cut off by the header deadline: an HTTP-edge count, before any policy is known
            "gridlimit_http_header_timeouts");

    private ApplicationContext context;
    private HttpClient http;
    private URI base;
    /** The internal port (gridlimit.decision-api.port): /prometheus answers there only. */
    private URI internal;
    private final List<Integer> statuses = new ArrayList<>();
    private PrometheusText afterOneClient;
    private PrometheusText afterAllClients;
    private PrometheusText afterGridLoss;
    private Config memberConfig;
    private Map<String, Object> demoMapMBean;

    @BeforeAll
    void serveAScriptedDay(@TempDir Path dir) throws Exception {
        context = startFromOverlay(dir);
        EmbeddedServer server = context.getBean(EmbeddedServer.class);
        base = server.getURI();
        internal = URI.create("http://127.0.0.1:" + context.getRequiredProperty("gridlimit.decision-api.port",
                Integer.class));
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HazelcastInstance member = context.getBean(HazelcastInstance.class);
        memberConfig = member.getConfig();
        assertThat(context.getBean(TimeSource.class)).as("decisions read the frozen clock")
                .isInstanceOf(ManualTimeSource.class);

        // the member and safety gauges are refreshed off the scrape on a timer: read them now for exact values
        GridStatusMetrics gridStatus = context.getBean(GridStatusMetrics.class);
        helloFromClients(1, 1);
        gridStatus.refresh();
        afterOneClient = scrape();
        helloFromClients(2, CLIENTS);
        gridStatus.refresh();
        afterAllClients = scrape();
        demoMapMBean = awaitMapMBean(member, "gridlimit.demo", CLIENTS, 5L * CLIENTS);

        member.getLifecycleService().terminate();
        statuses.add(hello(CLIENT_PREFIX + (CLIENTS + 1)).statusCode());
        gridStatus.refresh();
        afterGridLoss = scrape();
    }

    @AfterAll
    void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void theScriptGotTheExpectedAnswers() {
        List<Integer> expected = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            expected.addAll(List.of(200, 200, 200, 200, 200, 429));
        }
        expected.add(200); // grid gone, failure-mode local: a fresh key's local share admits one
        assertThat(statuses).isEqualTo(expected);
    }

    @Test
    void everyMetricTheDashboardQueriesIsExportedWithTheLabelsItUses() {
        GrafanaDashboard dashboard = GrafanaDashboard.load();

        assertThat(DashboardCheck.problems(dashboard, afterGridLoss))
                .as("dashboard queries against the scrape:\n%s", afterGridLoss.text()).isEmpty();
        // The panels the issue asks for, in the names the service exports today.
        assertThat(DashboardCheck.queriedMetrics(dashboard)).contains("gridlimit_decisions_total",
                "gridlimit_decision_latency_seconds_sum", "gridlimit_decision_latency_seconds_count",
                "gridlimit_decision_latency_seconds_max", "gridlimit_grid_errors_total", "gridlimit_active_keys",
                "gridlimit_decision_latency_seconds_bucket", "gridlimit_state_lost_total", "gridlimit_grid_members",
                "gridlimit_grid_member_safe", "gridlimit_grid_cluster_safe");
    }

    @Test
    void theMetersCountExactly() {
        assertThat(value(afterOneClient, "gridlimit_decisions_total", "policy", "demo", "outcome", "allowed"))
                .isEqualTo(5.0);
        assertThat(value(afterOneClient, "gridlimit_decisions_total", "policy", "demo", "outcome", "denied"))
                .isEqualTo(1.0);
        assertThat(value(afterOneClient, "gridlimit_active_keys", "policy", "demo")).isEqualTo(1.0);
        assertThat(value(afterOneClient, "gridlimit_decisions_total", "policy", "demo", "outcome", "allowed",
                "mode", "grid")).isEqualTo(5.0);
        assertThat(value(afterOneClient, "gridlimit_decisions_total", "policy", "demo", "outcome", "allowed",
                "mode", "grid", "source", "filter")).isEqualTo(5.0);
        assertThat(afterOneClient.samples("gridlimit_decisions_total")).as("only the filter decided here")
                .isNotEmpty().allSatisfy(s -> assertThat(s.labels()).containsEntry("source", "filter"));
        // the latency histogram: every decision lands in the +Inf bucket, buckets from 100 us up to 1 s
        assertThat(value(afterOneClient, "gridlimit_decision_latency_seconds_bucket", "policy", "demo", "le",
                "+Inf")).isEqualTo(6.0);
        Set<Double> bounds = afterOneClient.samples("gridlimit_decision_latency_seconds_bucket").stream()
                .filter(b -> "demo".equals(b.labels().get("policy")) && !"+Inf".equals(b.labels().get("le")))
                .map(b -> Double.parseDouble(b.labels().get("le"))).collect(Collectors.toCollection(TreeSet::new));
        assertThat(bounds).isNotEmpty().allMatch(le -> le >= 0.0001 && le <= 1.0);
        assertThat(bounds).hasSizeGreaterThan(10);
        // grid status of the single member, and no state lost
        assertThat(value(afterOneClient, "gridlimit_grid_members")).isEqualTo(1.0);
        assertThat(value(afterOneClient, "gridlimit_grid_member_safe")).isEqualTo(1.0);
        assertThat(value(afterOneClient, "gridlimit_grid_cluster_safe")).isEqualTo(1.0);
        assertThat(value(afterOneClient, "gridlimit_state_lost_total", "reason", "evicted")).isEqualTo(0.0);
        assertThat(value(afterOneClient, "gridlimit_state_lost_total", "reason", "partition_lost")).isEqualTo(0.0);

        assertThat(value(afterAllClients, "gridlimit_decisions_total", "policy", "demo", "outcome", "allowed"))
                .isEqualTo(5.0 * CLIENTS);
        assertThat(value(afterAllClients, "gridlimit_decisions_total", "policy", "demo", "outcome", "denied"))
                .isEqualTo(1.0 * CLIENTS);
        assertThat(value(afterAllClients, "gridlimit_decision_latency_seconds_count", "policy", "demo"))
                .isEqualTo(6.0 * CLIENTS);
        assertThat(value(afterAllClients, "gridlimit_active_keys", "policy", "demo")).isEqualTo(1.0 * CLIENTS);
        for (String untouched : List.of("api", "orders", "login")) {
            assertThat(value(afterAllClients, "gridlimit_active_keys", "policy", untouched)).as(untouched)
                    .isEqualTo(0.0);
        }
        assertThat(afterAllClients.samples("gridlimit_grid_errors_total")).as("no grid error yet").isEmpty();

        assertThat(value(afterGridLoss, "gridlimit_decisions_total", "policy", "demo", "outcome", "fallback"))
                .isEqualTo(1.0);
        assertThat(value(afterGridLoss, "gridlimit_decisions_total", "policy", "demo", "outcome", "fallback",
                "mode", "local")).isEqualTo(1.0);
        // the member is gone: no members, not safe (the refresh ran after the termination)
        assertThat(value(afterGridLoss, "gridlimit_grid_members")).isEqualTo(0.0);
        assertThat(value(afterGridLoss, "gridlimit_grid_member_safe")).isEqualTo(0.0);
        assertThat(value(afterGridLoss, "gridlimit_grid_cluster_safe")).isEqualTo(0.0);
        assertThat(value(afterGridLoss, "gridlimit_grid_errors_total", "policy", "demo", "reason", "failure"))
                .isEqualTo(1.0);
        assertThat(value(afterGridLoss, "gridlimit_decision_latency_seconds_count", "policy", "demo"))
                .isEqualTo(6.0 * CLIENTS + 1);
        // A member that is gone owns nothing it can count: NaN, which the dashboard's `>= 0` leaves out of its sums.
        assertThat(value(afterGridLoss, "gridlimit_active_keys", "policy", "demo")).isNaN();
    }

    @Test
    void noRawKeyAppearsInAnyGridLimitLabelAndSeriesDoNotGrowWithKeys() {
        for (PrometheusText scrape : List.of(afterOneClient, afterAllClients, afterGridLoss)) {
            for (PrometheusText.Sample s : scrape.samples()) {
                if (!s.name().startsWith("gridlimit_")) {
                    continue;
                }
                for (Map.Entry<String, String> label : s.labels().entrySet()) {
                    assertThat(label.getValue()).as("%s label %s", s.name(), label.getKey())
                            .doesNotContain(CLIENT_PREFIX).doesNotContain("ip:").doesNotContain("127.0.0.1")
                            .doesNotContain("0:0:0:0:0:0:0:1");
                }
            }
        }
        // One client or eleven: the same series (labels are policy and a fixed outcome, never the key).
        assertThat(gridLimitSeries(afterAllClients)).isEqualTo(gridLimitSeries(afterOneClient));
        // Nothing of the raw keys anywhere in the scrape (Micronaut's HTTP metrics tag the route template only).
        assertThat(afterGridLoss.text()).doesNotContain(CLIENT_PREFIX);
    }

    private static Set<String> gridLimitSeries(PrometheusText scrape) {
        return scrape.samples().stream().filter(s -> s.name().startsWith("gridlimit_"))
                .map(PrometheusText.Sample::series).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void gridLimitMetricsFollowPrometheusAndMicrometerConventions() {
        Map<String, String> families = afterGridLoss.types().entrySet().stream()
                .filter(e -> e.getKey().startsWith("gridlimit_"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(families).isNotEmpty();
        for (Map.Entry<String, String> family : families.entrySet()) {
            String name = family.getKey();
            assertThat(name).as("family name").matches("gridlimit_[a-z0-9]+(_[a-z0-9]+)*");
            assertThat(name).as("base unit: seconds, not ms or ns").doesNotContainPattern(
                    "_(milli|micro|nano)seconds|_ms$|_ns$");
            assertThat(afterGridLoss.help(name)).as("HELP of %s", name).isNotBlank();
        }
        for (PrometheusText.Sample s : afterGridLoss.samples()) {
            if (!s.name().startsWith("gridlimit_")) {
                continue;
            }
            String family = afterGridLoss.family(s.name());
            assertThat(family).as("# TYPE family of %s", s.name()).isNotNull();
            if ("counter".equals(afterGridLoss.type(family))) {
                assertThat(s.name()).as("a counter's sample").endsWith("_total");
            }
            assertThat(s.labels().keySet()).as("label names of %s", s.name())
                    .allMatch(l -> l.matches("[a-z][a-z0-9_]*"));
            if (!MEMBER_LEVEL_FAMILIES.contains(family)
                    && MEMBER_LEVEL_FAMILIES.stream().noneMatch(f -> s.name().equals(f + "_total"))) {
                assertThat(s.labels().keySet()).as("label names of %s", s.name()).contains("policy");
            }
        }
    }

    @Test
    void theMemberPublishesItsMetricsToManagementCenterAndJmx() {
        assertThat(memberConfig.getMetricsConfig().isEnabled()).as("metrics").isTrue();
        assertThat(memberConfig.getMetricsConfig().getManagementCenterConfig().isEnabled())
                .as("metrics sent to Management Center").isTrue();
        assertThat(memberConfig.getMetricsConfig().getJmxConfig().isEnabled()).as("metrics as JMX MBeans").isTrue();
        assertThat(memberConfig.getManagementCenterConfig().isDataAccessEnabled())
                .as("MC must not browse entries: keys are client identities").isFalse();
        // One map per policy: MC's map page of gridlimit.demo reads these statistics. Entries = the policy's active
        // keys; each admitted decision writes its key's state once (one EntryProcessor), counted as a put; a denied
        // decision writes nothing (SPEC §3) and is counted as no operation at all: denials are not visible in MC.
        assertThat(demoMapMBean).containsEntry("ownedEntryCount", (long) CLIENTS)
                .containsEntry("putCount", 5L * CLIENTS)
                .containsEntry("getCount", 0L)
                .containsEntry("setCount", 0L)
                .containsEntry("numberOfOtherOperations", 0L)
                .containsEntry("backupCount", 1L);
    }

    private static double value(PrometheusText scrape, String name, String... labelPairs) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < labelPairs.length; i += 2) {
            wanted.put(labelPairs[i], labelPairs[i + 1]);
        }
        List<PrometheusText.Sample> matching = scrape.samples(name).stream()
                .filter(s -> s.labels().entrySet().containsAll(wanted.entrySet())).collect(Collectors.toList());
        assertThat(matching).as("%s%s in:\n%s", name, wanted, scrape.text()).hasSize(1);
        return matching.get(0).value();
    }

    // ---- the script's steps ----

    private void helloFromClients(int first, int last) throws IOException, InterruptedException {
        for (int c = first; c <= last; c++) {
            for (int i = 0; i < 6; i++) {
                statuses.add(hello(CLIENT_PREFIX + c).statusCode());
            }
        }
    }

    private HttpResponse<String> hello(String client) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve("/demo/hello")).header("X-Forwarded-For", client)
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private PrometheusText scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(internal.resolve("/prometheus"))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET /prometheus").isEqualTo(200);
        return PrometheusText.parse(response.body());
    }

    /**
     * Waits for the member's metrics collection (every {@code collection-frequency-seconds}) to publish the map's
     * statistics over JMX with the expected entry count, and returns that MBean's attributes.
     */
    /**
     * Waits for a snapshot of the map's statistics (Hazelcast collects them on a timer, so a snapshot may be taken
     * while the script's last client is mid-way) that holds {@code entries} entries and at least {@code puts} puts:
     * a snapshot with fewer puts is one taken too early and a later one is awaited (at most 60 s); more puts than
     * {@code puts} are kept, for the test's exact assertion to fail on.
     */
    private static Map<String, Object> awaitMapMBean(HazelcastInstance member, String map, long entries, long puts) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Object> attributes = new LinkedHashMap<>();
        Awaitility.await("JMX statistics of " + map).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    attributes.clear();
                    attributes.putAll(mapMBean(server, member.getName(), map));
                    return Long.valueOf(entries).equals(attributes.get("ownedEntryCount"))
                            && attributes.get("putCount") instanceof Long p && p >= puts;
                });
        return attributes;
    }

    /** Attributes of Hazelcast's metrics MBean {@code com.hazelcast:type=Metrics,instance=..,prefix=map,tag0="name=<map>"}. */
    private static Map<String, Object> mapMBean(MBeanServer server, String instance, String map) throws Exception {
        Map<String, Object> attributes = new LinkedHashMap<>();
        for (ObjectName name : server.queryNames(new ObjectName("com.hazelcast:type=Metrics,prefix=map,*"), null)) {
            if (unquoted(name.getKeyProperty("instance")).equals(instance)
                    && unquoted(name.getKeyProperty("tag0")).equals("name=" + map)) {
                for (var info : server.getMBeanInfo(name).getAttributes()) {
                    attributes.put(info.getName(), server.getAttribute(name, info.getName()));
                }
            }
        }
        return attributes;
    }

    private static String unquoted(String value) {
        return value == null ? "" : value.startsWith("\"") ? ObjectName.unquote(value) : value;
    }

    // ---- starting the service from the overlay ----

    private static ApplicationContext startFromOverlay(Path dir) throws IOException {
        RenderedOverlay overlay = RenderedOverlay.of(OVERLAY);
        Deployment deployment = overlay.get(Deployment.class, "gridlimit");
        String files = RenderedOverlay.env(deployment, "gridlimit", "MICRONAUT_CONFIG_FILES").orElseThrow();
        List<PropertySource> sources = new ArrayList<>();
        String hazelcastPath = null;
        Map<String, String> contents = new LinkedHashMap<>();
        for (String file : files.split(",")) {
            String content = overlay.fileInContainer(deployment, "gridlimit", file.trim());
            contents.put(file.trim(), content);
            Object configured = child(child(new Yaml().load(content), "gridlimit"), "hazelcast").get("config-file");
            if (configured != null) {
                hazelcastPath = configured.toString();
            }
        }
        assertThat(hazelcastPath).as("gridlimit.hazelcast.config-file in " + files).isNotNull();
        Path hazelcastYaml = dir.resolve("hazelcast.yaml");
        Files.writeString(hazelcastYaml, onLoopback(overlay.fileInContainer(deployment, "gridlimit", hazelcastPath),
                freePort()));
        int order = 0;
        for (Map.Entry<String, String> file : contents.entrySet()) {
            String content = file.getValue().replace(hazelcastPath, hazelcastYaml.toString());
            sources.add(PropertySource.of(file.getKey(), new YamlPropertySourceLoader().read(file.getKey(),
                    new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8))), order++));
        }
        ApplicationContext context = ApplicationContext.builder()
                .propertySources(sources.toArray(PropertySource[]::new))
                .properties(Map.of(
                        "micronaut.server.port", -1,
                        "gridlimit.decision-api.port", freePort(),
                        // decisions read a frozen clock: exact counts
                        FrozenClock.PROPERTY, true,
                        // a loaded machine can take longer than the overlay's 100 ms to answer a decision, which
                        // the filter would decide on this replica's share (SPEC §5): exact counts need the grid's
                        // answer. The member's loss below fails decisions at once, so the local share still answers.
                        "gridlimit.grid-timeout", "30s",
                        "gridlimit.client-ip.trusted-proxies", List.of("127.0.0.1/32", "::1/128")))
                .start();
        context.getBean(EmbeddedServer.class).start();
        return context;
    }

    private static Map<?, ?> child(Object node, String key) {
        Object value = node instanceof Map<?, ?> map ? map.get(key) : null;
        return value instanceof Map<?, ?> child ? child : Map.of();
    }

    /** The overlay's hazelcast.yaml with only the join, the cluster name and the port made to work here. */
    @SuppressWarnings("unchecked")
    private static String onLoopback(String hazelcastYaml, int port) {
        Map<String, Object> root = new Yaml().load(hazelcastYaml);
        Map<String, Object> hazelcast = (Map<String, Object>) root.get("hazelcast");
        hazelcast.put("cluster-name", "monitoring-test-" + UUID.randomUUID());
        Map<String, Object> network = (Map<String, Object>) hazelcast.get("network");
        ((Map<String, Object>) network.get("port")).put("port", port);
        Map<String, Object> join = (Map<String, Object>) network.get("join");
        assertThat((Map<String, Object>) join.get("kubernetes")).containsEntry("enabled", true);
        join.put("kubernetes", Map.of("enabled", false));
        join.put("tcp-ip", Map.of("enabled", true, "member-list", List.of("127.0.0.1:" + port)));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(root);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
