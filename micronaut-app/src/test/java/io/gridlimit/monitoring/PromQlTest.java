package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.monitoring.PromQl.Matcher;
import io.gridlimit.monitoring.PromQl.Query;
import io.gridlimit.monitoring.PromQl.Selector;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PromQl} finds exactly the metric names, matchers and grouping labels of an expression. */
class PromQlTest {
    @Test
    void aggregationsFunctionsGroupingAndGrafanaVariablesAreNotMetrics() {
        Query q = PromQl.parse("sum by (policy, outcome) (rate(gridlimit_decisions_total{policy=~\"$policy\"}"
                + "[$__rate_interval]))");

        assertThat(q.selectors()).containsExactly(new Selector("gridlimit_decisions_total",
                List.of(new Matcher("policy", "=~", "$policy"))));
        assertThat(q.groupingLabels()).containsExactlyInAnyOrder("policy", "outcome");
    }

    @Test
    void histogramQuantileWithBucketsAndTrailingGrouping() {
        Query q = PromQl.parse("histogram_quantile(0.99, sum(rate(x_seconds_bucket{a=\"b\"}[5m])) by (le, policy))");

        assertThat(q.metricNames()).containsExactly("x_seconds_bucket");
        assertThat(q.groupingLabels()).containsExactlyInAnyOrder("le", "policy");
    }

    @Test
    void vectorMatchingKeywordsAndBinaryOperatorsSeparateTwoMetrics() {
        Query q = PromQl.parse("sum by (policy) (rate(a_total{outcome=~\"denied|shadow_denied\"}[1h30m])) "
                + "/ on (policy) group_left sum by (policy) (rate(b_total[5m] offset 1d)) > bool 0.5 "
                + "and ignoring(instance) c unless d or vector(0)");

        assertThat(q.metricNames()).containsExactly("a_total", "b_total", "c", "d");
        assertThat(q.groupingLabels()).containsExactlyInAnyOrder("policy", "instance");
        assertThat(q.selectors().get(0).matchers()).containsExactly(
                new Matcher("outcome", "=~", "denied|shadow_denied"));
    }

    @Test
    void wordsInsideStringsNumbersAndDurationsAreNotMetrics() {
        Query q = PromQl.parse("topk(5, m{label=\"not_a_metric\", other!~'x_total', raw=`a\\\"b`}) * 1e3 + 0x1F"
                + " - .5 + 2E-3 + m2[10m:1m] @ start() + max_over_time(m3[$__range]) * ${factor} + [[old]]");

        assertThat(q.metricNames()).containsExactly("m", "m2", "m3");
        assertThat(q.selectors().get(0).matchers()).containsExactly(new Matcher("label", "=", "not_a_metric"),
                new Matcher("other", "!~", "x_total"), new Matcher("raw", "=", "a\\\"b"));
    }

    @Test
    void escapedQuotesInLabelValuesDoNotEndTheString() {
        Query q = PromQl.parse("m{path=\"/a\\\"}b{c\"}");

        assertThat(q.selectors()).containsExactly(new Selector("m", List.of(new Matcher("path", "=", "/a\"}b{c"))));
    }

    @Test
    void recordingRuleNamesWithColonsAreMetrics() {
        assertThat(PromQl.parse("job:gridlimit_decisions:rate5m > 0").metricNames())
                .containsExactly("job:gridlimit_decisions:rate5m");
    }

    @Test
    void aMetricNamedLikeAnAggregationIsStillAMetricWhenNotCalled() {
        assertThat(PromQl.parse("sum(count) / count").metricNames()).containsExactly("count");
    }

    @Test
    void selectorsWithoutANameAreReportedAndNameMatchersRefused() {
        assertThat(PromQl.parse("{job=\"x\"}").selectors()).containsExactly(
                new Selector(null, List.of(new Matcher("job", "=", "x"))));
        assertThatThrownBy(() -> PromQl.parse("{__name__=\"gridlimit_active_keys\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("__name__");
    }

    @Test
    void malformedExpressionsFailNamingTheProblem() {
        assertThatThrownBy(() -> PromQl.parse("m{a=\"b}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unterminated string");
        assertThatThrownBy(() -> PromQl.parse("rate(m[5m)")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unterminated '['");
        assertThatThrownBy(() -> PromQl.parse("m{a=\"b\"")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unclosed '{'");
        assertThatThrownBy(() -> PromQl.parse("m{a b}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed label matcher");
        assertThatThrownBy(() -> PromQl.parse("m ; n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unexpected ';' at 2");
    }
}
