package io.gridlimit.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.envoy.config.RlsUnit;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link RlsStats}'s names and labels, as envoyproxy/ratelimit's Prometheus mapping gives them. */
class RlsStatsTest {
    @Test
    void levelsAreSanitizedAsTheReferenceSanitizesStatNames() {
        assertThat(RlsStats.sanitize("remote_address_50.0.0.5")).isEqualTo("remote_address_50_0_0_5");
        assertThat(RlsStats.sanitize("a:b|c")).isEqualTo("a_b_c");
        assertThat(RlsStats.sanitize("version_1.50")).isEqualTo("version_1.50");
    }

    @Test
    void theFirstTwoLevelsAreTheLabelsAndDeeperOnesShareTheirSeries() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RlsStats stats = new RlsStats(registry, new BigDecimal("0.8"));
        Policy p = Policy.builder("basic.key1_value1.subkey1").fixedWindow(5, Duration.ofSeconds(1)).build();
        RlsRule two = new RlsRule("basic", "key1=value1/subkey1", p, p.name(), RlsUnit.parse("second"), 5,
                RlsRule.Kind.LIMITED, false, false, null, List.of(), List.of("key1_value1", "subkey1"));
        RlsRule three = new RlsRule("basic", "key1=value1/subkey1/deep", p, p.name(), RlsUnit.parse("second"), 5,
                RlsRule.Kind.LIMITED, false, false, null, List.of(), List.of("key1_value1", "subkey1", "deep"));
        assertThat(stats.series(three)).isSameAs(stats.series(two));
        assertThat(registry.find("ratelimit.service.rate_limit.total_hits").tag("domain", "basic")
                .tag("key1", "key1_value1").tag("key2", "subkey1").gauge()).isNotNull();
        assertThat(registry.find("ratelimit.service.rate_limit.total_hits").gauges()).hasSize(1);
    }

    @Test
    void prometheusShowsTheReferencesNamesWithOneLabelSet() {
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
                new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        RlsStats stats = new RlsStats(registry, new BigDecimal("0.8"));
        Policy p = Policy.builder("basic.key3").fixedWindow(1, Duration.ofHours(1)).build();
        RlsRule one = new RlsRule("basic", "key3", p, p.name(), RlsUnit.parse("hour"), 1, RlsRule.Kind.LIMITED,
                false, false, null, List.of(), List.of("key3"));
        stats.series(one).totalHits.addAndGet(7);
        assertThat(registry.scrape()).contains(
                "ratelimit_service_rate_limit_total_hits{domain=\"basic\",key1=\"key3\",key2=\"\"} 7.0");
    }
}
