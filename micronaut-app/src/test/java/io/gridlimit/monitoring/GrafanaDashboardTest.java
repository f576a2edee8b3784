package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The dashboard file is a Grafana dashboard model Grafana can provision as is, and the manifests deliver exactly
 * this file to Grafana's dashboard sidecar (k8s/README.md). Whether its queries fit the running service's
 * metrics is {@link MonitoredServiceTest}'s part.
 */
class GrafanaDashboardTest {
    private static final String CONFIG_MAP = "gridlimit-grafana-dashboard";
    private static final String KEY = "gridlimit-dashboard.json";
    /** Metrics that describe the member, not a policy (no {@code policy} label to filter on). */
    private static final Set<String> MEMBER_LEVEL_METRICS = Set.of("gridlimit_state_lost_total",
            "gridlimit_grid_members", "gridlimit_grid_member_safe", "gridlimit_grid_cluster_safe");

    @Test
    void theModelIsProvisionableAndEveryPanelQueriesTheSelectedPrometheus() {
        GrafanaDashboard dashboard = GrafanaDashboard.load();
        JsonNode root = dashboard.root();

        assertThat(root.path("uid").asText()).as("stable uid for links and provisioning").isEqualTo("gridlimit-overview");
        assertThat(root.path("title").asText()).isEqualTo("GridLimit");
        assertThat(root.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        assertThat(root.has("__inputs")).as("import-only ${DS_...} inputs do not work when provisioned").isFalse();
        assertThat(root.has("id")).as("no instance-specific numeric id").isFalse();

        JsonNode datasourceVariable = variable(root, "datasource");
        assertThat(datasourceVariable.path("type").asText()).isEqualTo("datasource");
        assertThat(datasourceVariable.path("query").asText()).isEqualTo("prometheus");
        JsonNode policy = variable(root, "policy");
        assertThat(policy.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
        assertThat(policy.path("includeAll").asBoolean()).isTrue();
        assertThat(policy.path("multi").asBoolean()).isTrue();
        // gridlimit_decisions_total counts the filter's and the decision API's decisions: tag source selects them
        JsonNode source = variable(root, "source");
        assertThat(source.path("type").asText()).isEqualTo("custom");
        assertThat(source.path("query").asText()).isEqualTo("filter,api");
        assertThat(source.path("includeAll").asBoolean()).isTrue();
        assertThat(source.path("allValue").asText()).isEqualTo(".*");

        Set<Integer> ids = new HashSet<>();
        List<int[]> cells = new ArrayList<>();
        for (JsonNode panel : dashboard.panels()) {
            String title = panel.path("title").asText();
            assertThat(title).as("panel title").isNotBlank();
            assertThat(ids.add(panel.path("id").asInt(-1))).as("unique id of panel '%s'", title).isTrue();
            JsonNode pos = panel.path("gridPos");
            int x = pos.path("x").asInt(-1);
            int y = pos.path("y").asInt(-1);
            int w = pos.path("w").asInt(0);
            int h = pos.path("h").asInt(0);
            assertThat(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24).as("gridPos of '%s': %s", title, pos)
                    .isTrue();
            for (int[] other : cells) {
                boolean overlaps = x < other[0] + other[2] && other[0] < x + w && y < other[1] + other[3]
                        && other[1] < y + h;
                assertThat(overlaps).as("panel '%s' overlaps another panel", title).isFalse();
            }
            cells.add(new int[] {x, y, w, h});
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("description").asText()).as("description of '%s'", title).isNotBlank();
            assertThat(panel.path("datasource").path("uid").asText()).as("datasource of '%s'", title)
                    .isEqualTo("${datasource}");
            assertThat(panel.path("targets").size()).as("targets of '%s'", title).isPositive();
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : panel.path("targets")) {
                assertThat(target.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
                assertThat(refIds.add(target.path("refId").asText())).as("unique refId in '%s'", title).isTrue();
            }
        }
        for (GrafanaDashboard.Expression e : dashboard.expressions()) {
            assertThat(PromQl.parse(e.expr()).metricNames()).as(e.where()).isNotEmpty()
                    .allMatch(name -> name.startsWith("gridlimit_"));
            assertThat(e.expr()).as("%s filters on the selected policies", e.where())
                    .satisfiesAnyOf(x -> assertThat(x).contains("policy=~\"$policy\""),
                            x -> assertThat(e.where()).startsWith("variable $policy"),
                            x -> assertThat(x).startsWith("count(count by (instance)"),
                            // member-level metrics carry no policy label
                            x -> assertThat(PromQl.parse(x).metricNames()).isSubsetOf(MEMBER_LEVEL_METRICS));
            for (PromQl.Selector selector : PromQl.parse(e.expr()).selectors()) {
                if ("gridlimit_decisions_total".equals(selector.metric())) {
                    assertThat(selector.matchers()).as("%s filters decisions on the selected sources", e.where())
                            .contains(new PromQl.Matcher("source", "=~", "$source"));
                }
            }
        }
    }

    @Test
    void theManagementCenterOverlayAndTheGrafanaDirectoryShipThisFileToTheSidecar() {
        String file = GrafanaDashboard.load().json();
        for (String directory : List.of("grafana", "overlays/management-center")) {
            RenderedOverlay rendered = RenderedOverlay.of(directory);
            ConfigMap map = rendered.get(ConfigMap.class, CONFIG_MAP);
            assertThat(map.getData()).as("%s: data of %s", directory, CONFIG_MAP).containsOnlyKeys(KEY);
            assertThat(map.getData().get(KEY)).as("%s: the dashboard byte for byte", directory).isEqualTo(file);
            assertThat(map.getMetadata().getLabels()).as(directory)
                    .containsEntry("grafana_dashboard", "1")
                    .containsEntry("app.kubernetes.io/part-of", "gridlimit");
            assertThat(map.getMetadata().getAnnotations()).containsEntry("grafana_folder", "GridLimit");
        }
        List<HasMetadata> grafanaOnly = RenderedOverlay.of("grafana").all();
        assertThat(grafanaOnly).as("k8s/grafana holds only the dashboard, to apply next to Grafana").hasSize(1);
    }

    private static JsonNode variable(JsonNode root, String name) {
        for (JsonNode v : root.path("templating").path("list")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        throw new AssertionError("no dashboard variable $" + name);
    }
}
