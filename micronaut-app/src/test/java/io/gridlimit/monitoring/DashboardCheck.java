package io.gridlimit.monitoring;

import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Checks a Grafana dashboard's PromQL against a scrape of the service: every selector names a metric the scrape
 * exports, whose suffix fits its family's type ({@code _bucket} of a histogram, {@code _total} of a counter); every
 * label a matcher or a grouping clause uses is carried by the metrics of that expression; every fixed value a
 * matcher compares a label with ({@code outcome="denied"}, {@code outcome=~"fallback|error"}) is one the service
 * can give it. Values compared with Grafana variables are not checked (they come from the exported labels).
 * Stateless.
 */
final class DashboardCheck {
    /** Labels Prometheus itself adds to every scraped series (target labels); the endpoint does not show them. */
    static final Set<String> TARGET_LABELS = Set.of("instance", "job");

    private DashboardCheck() {
    }

    /**
     * @param dashboard a dashboard
     * @return every metric name its expressions select, sorted
     */
    static Set<String> queriedMetrics(GrafanaDashboard dashboard) {
        Set<String> names = new TreeSet<>();
        for (GrafanaDashboard.Expression e : dashboard.expressions()) {
            names.addAll(PromQl.parse(e.expr()).metricNames());
        }
        return names;
    }

    /**
     * @param dashboard a dashboard
     * @param scrape what the running service exports
     * @return one message per problem, naming the panel or variable; empty when the dashboard fits the scrape
     */
    static List<String> problems(GrafanaDashboard dashboard, PrometheusText scrape) {
        List<String> problems = new ArrayList<>();
        List<GrafanaDashboard.Expression> expressions = dashboard.expressions();
        if (expressions.isEmpty()) {
            problems.add("the dashboard runs no query");
        }
        for (GrafanaDashboard.Expression e : expressions) {
            PromQl.Query query;
            try {
                query = PromQl.parse(e.expr());
            } catch (IllegalArgumentException bad) {
                problems.add(e.where() + ": " + bad.getMessage());
                continue;
            }
            if (query.metricNames().isEmpty()) {
                problems.add(e.where() + ": no metric name in '" + e.expr() + "'");
            }
            Set<String> labelsOfExpression = new TreeSet<>(TARGET_LABELS);
            for (PromQl.Selector selector : query.selectors()) {
                if (selector.metric() == null) {
                    problems.add(e.where() + ": a selector without a metric name in '" + e.expr() + "'");
                    continue;
                }
                problems.addAll(checkSelector(scrape, e.where(), selector));
                labelsOfExpression.addAll(labelNames(scrape, selector.metric()));
            }
            for (String label : query.groupingLabels()) {
                if (!labelsOfExpression.contains(label)) {
                    problems.add(e.where() + ": groups or matches on '" + label + "', which none of "
                            + query.metricNames() + " carries");
                }
            }
            if (e.requiredLabel() != null && !labelsOfExpression.contains(e.requiredLabel())) {
                problems.add(e.where() + ": label_values of '" + e.requiredLabel() + "', which "
                        + query.metricNames() + " does not carry");
            }
        }
        return problems;
    }

    private static List<String> checkSelector(PrometheusText scrape, String where, PromQl.Selector selector) {
        List<String> problems = new ArrayList<>();
        String metric = selector.metric();
        if (scrape.samples(metric).isEmpty()) {
            problems.add(where + ": queries " + metric + ", which /prometheus does not export");
            return problems;
        }
        String family = scrape.family(metric);
        if (family == null) {
            problems.add(where + ": " + metric + " belongs to no # TYPE family");
        } else if (metric.endsWith("_bucket") && !"histogram".equals(scrape.type(family))) {
            problems.add(where + ": " + metric + " is not a histogram's bucket (" + scrape.type(family) + ")");
        } else if (metric.endsWith("_total") && !"counter".equals(scrape.type(family))) {
            problems.add(where + ": " + metric + " is not a counter (" + scrape.type(family) + ")");
        }
        Set<String> labels = labelNames(scrape, metric);
        for (PromQl.Matcher m : selector.matchers()) {
            if (TARGET_LABELS.contains(m.label())) {
                continue;
            }
            if (!labels.contains(m.label())) {
                problems.add(where + ": " + metric + " has no label '" + m.label() + "' (it has " + labels + ")");
                continue;
            }
            if (m.value().contains("$")) {
                continue; // a Grafana variable
            }
            List<String> wanted = m.op().equals("=") ? List.of(m.value())
                    : m.op().equals("=~") && m.value().matches("[a-z0-9_]+(\\|[a-z0-9_]+)*")
                    ? List.of(m.value().split("\\|")) : List.of();
            Set<String> known = knownValues(scrape, metric, m.label());
            for (String value : wanted) {
                if (!known.contains(value)) {
                    problems.add(where + ": " + metric + "{" + m.label() + "} never takes the value '" + value
                            + "' (it takes " + known + ")");
                }
            }
        }
        return problems;
    }

    /**
     * The values a label can take: the service's outcome and reason enumerations (some, like outcome
     * {@code error}, need failure-mode closed and so cannot all occur in one run), else the values scraped.
     */
    private static Set<String> knownValues(PrometheusText scrape, String metric, String label) {
        if (metric.startsWith("gridlimit_decisions") && label.equals("outcome")) {
            Set<String> outcomes = new TreeSet<>();
            for (GridLimitMetrics.Outcome o : GridLimitMetrics.Outcome.values()) {
                outcomes.add(o.tag());
            }
            return outcomes;
        }
        if (metric.startsWith("gridlimit_decisions") && label.equals("source")) {
            Set<String> sources = new TreeSet<>();
            for (GridLimitMetrics.Source s : GridLimitMetrics.Source.values()) {
                sources.add(s.tag());
            }
            return sources;
        }
        if (metric.startsWith("gridlimit_grid_errors") && label.equals("reason")) {
            return Set.of("timeout", "failure");
        }
        return scrape.samples(metric).stream().map(s -> s.labels().get(label)).filter(v -> v != null)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> labelNames(PrometheusText scrape, String metric) {
        Set<String> names = new TreeSet<>();
        scrape.samples(metric).forEach(s -> names.addAll(s.labels().keySet()));
        return names;
    }
}
