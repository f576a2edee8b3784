package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link DashboardCheck} against a fixed scrape: a dashboard that fits it passes, and each kind of mistake a
 * dashboard can make (a misspelt or missing metric, a wrong suffix, a label the metric lacks, an outcome the
 * service never gives, a variable over a label that does not exist) is reported, naming the panel.
 */
class DashboardCheckTest {
    private static final PrometheusText SCRAPE = PrometheusText.parse("""
            # TYPE gridlimit_decisions_total counter
            gridlimit_decisions_total{mode="grid",outcome="allowed",policy="demo",source="filter"} 5.0
            gridlimit_decisions_total{mode="grid",outcome="denied",policy="demo",source="filter"} 1.0
            # TYPE gridlimit_decision_latency_seconds summary
            gridlimit_decision_latency_seconds_count{policy="demo"} 6
            gridlimit_decision_latency_seconds_sum{policy="demo"} 0.01
            # TYPE gridlimit_active_keys gauge
            gridlimit_active_keys{policy="demo"} 1.0
            """);

    private static GrafanaDashboard dashboard(String expr) {
        return GrafanaDashboard.parse("""
                {"panels": [{"type": "row", "title": "r", "panels": [
                  {"title": "P", "targets": [{"refId": "A", "expr": %s}]}]}],
                 "templating": {"list": [{"type": "query", "name": "policy",
                   "query": {"query": "label_values(gridlimit_active_keys, policy)"}}]}}
                """.formatted(com.fasterxml.jackson.databind.node.TextNode.valueOf(expr).toString()));
    }

    @Test
    void aDashboardThatFitsTheScrapePasses() {
        GrafanaDashboard fits = dashboard("sum by (policy, outcome) (rate(gridlimit_decisions_total{policy=~\"$policy\","
                + " outcome=~\"denied|fallback\"}[$__rate_interval])) / on (policy, instance) group_left"
                + " sum by (policy) (rate(gridlimit_decision_latency_seconds_count[5m]))");

        assertThat(DashboardCheck.problems(fits, SCRAPE)).isEmpty();
        assertThat(DashboardCheck.queriedMetrics(fits)).containsExactly("gridlimit_active_keys",
                "gridlimit_decision_latency_seconds_count", "gridlimit_decisions_total");
    }

    @Test
    void eachMistakeIsReportedWithItsPanel() {
        assertThat(DashboardCheck.problems(dashboard("rate(gridlimit_decision_total[5m])"), SCRAPE))
                .containsExactly("panel 'P' target A: queries gridlimit_decision_total, which /prometheus does not"
                        + " export");
        assertThat(DashboardCheck.problems(dashboard(
                "histogram_quantile(0.99, rate(gridlimit_decision_latency_seconds_bucket[5m]))"), SCRAPE))
                .containsExactly("panel 'P' target A: queries gridlimit_decision_latency_seconds_bucket, which"
                        + " /prometheus does not export");
        assertThat(DashboardCheck.problems(dashboard("gridlimit_active_keys{outcome=\"denied\"}"), SCRAPE))
                .containsExactly("panel 'P' target A: gridlimit_active_keys has no label 'outcome' (it has"
                        + " [policy])");
        assertThat(DashboardCheck.problems(dashboard("gridlimit_decisions_total{outcome=~\"denied|rejected\"}"),
                SCRAPE)).containsExactly("panel 'P' target A: gridlimit_decisions_total{outcome} never takes the"
                + " value 'rejected' (it takes [allowed, denied, fallback, missing_key_rejected,"
                + " missing_key_skipped, shadow_denied])");
        assertThat(DashboardCheck.problems(dashboard("gridlimit_active_keys{policy=\"nope\"}"), SCRAPE))
                .containsExactly("panel 'P' target A: gridlimit_active_keys{policy} never takes the value 'nope'"
                        + " (it takes [demo])");
        assertThat(DashboardCheck.problems(dashboard("sum by (route) (gridlimit_active_keys)"), SCRAPE))
                .containsExactly("panel 'P' target A: groups or matches on 'route', which none of"
                        + " [gridlimit_active_keys] carries");
        assertThat(DashboardCheck.problems(dashboard("sum({policy=\"demo\"})"), SCRAPE))
                .containsExactly("panel 'P' target A: no metric name in 'sum({policy=\"demo\"})'",
                        "panel 'P' target A: a selector without a metric name in 'sum({policy=\"demo\"})'");
        assertThat(DashboardCheck.problems(dashboard("rate(gridlimit_decisions_total[5m)"), SCRAPE)).hasSize(1)
                .allMatch(p -> p.startsWith("panel 'P' target A: unterminated '['"));
    }

    @Test
    void aWrongSuffixForTheFamilyTypeIsReported() {
        PrometheusText gaugeNamedTotal = PrometheusText.parse("""
                # TYPE g_total gauge
                g_total 1
                """);

        assertThat(DashboardCheck.problems(dashboard("rate(g_total[5m])"), gaugeNamedTotal))
                .contains("panel 'P' target A: g_total is not a counter (gauge)");
    }

    @Test
    void aVariableOverAMissingLabelIsReported() {
        GrafanaDashboard wrongVariable = GrafanaDashboard.parse("""
                {"panels": [], "templating": {"list": [{"type": "query", "name": "route",
                  "query": "label_values(gridlimit_active_keys, route)"}]}}""");

        assertThat(DashboardCheck.problems(wrongVariable, SCRAPE)).containsExactly(
                "variable $route: label_values of 'route', which [gridlimit_active_keys] does not carry");
    }
}
