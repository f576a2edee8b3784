package io.gridlimit.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link PrometheusText} reads samples, labels and families of the text exposition format. */
class PrometheusTextTest {
    private static final String SCRAPE = """
            # HELP c_total A counter
            # TYPE c_total counter
            c_total{outcome="allowed",policy="demo"} 5.0
            # HELP lat_seconds A timer
            # TYPE lat_seconds summary
            lat_seconds_count{policy="demo"} 3
            lat_seconds_sum{policy="demo"} 0.25
            # TYPE lat_seconds_max gauge
            lat_seconds_max{policy="demo"} 0.125
            # TYPE h histogram
            h_bucket{le="+Inf"} 2 1700000000000
            # TYPE om counter
            om_total 1
            g{path="a\\"b\\\\c\\nd",empty=""} NaN
            """;

    @Test
    void samplesLabelsAndValues() {
        PrometheusText scrape = PrometheusText.parse(SCRAPE);

        assertThat(scrape.sampleNames()).containsExactly("c_total", "lat_seconds_count", "lat_seconds_sum",
                "lat_seconds_max", "h_bucket", "om_total", "g");
        assertThat(scrape.samples("c_total").get(0).labels())
                .isEqualTo(Map.of("outcome", "allowed", "policy", "demo"));
        assertThat(scrape.samples("c_total").get(0).value()).isEqualTo(5.0);
        assertThat(scrape.samples("h_bucket").get(0).labels()).isEqualTo(Map.of("le", "+Inf"));
        assertThat(scrape.samples("h_bucket").get(0).value()).isEqualTo(2.0);
        assertThat(scrape.samples("g").get(0).labels()).isEqualTo(Map.of("path", "a\"b\\c\nd", "empty", ""));
        assertThat(scrape.samples("g").get(0).value()).isNaN();
        assertThat(scrape.help("c_total")).isEqualTo("A counter");
    }

    @Test
    void familiesOfSuffixedSampleNames() {
        PrometheusText scrape = PrometheusText.parse(SCRAPE);

        assertThat(scrape.family("c_total")).isEqualTo("c_total"); // text 0.0.4: the family keeps _total
        assertThat(scrape.family("om_total")).isEqualTo("om");     // OpenMetrics: the family drops it
        assertThat(scrape.family("lat_seconds_count")).isEqualTo("lat_seconds");
        assertThat(scrape.family("lat_seconds_sum")).isEqualTo("lat_seconds");
        assertThat(scrape.family("lat_seconds_max")).isEqualTo("lat_seconds_max");
        assertThat(scrape.family("h_bucket")).isEqualTo("h");
        assertThat(scrape.family("lat_seconds_bucket")).as("a summary has no buckets").isNull();
        assertThat(scrape.family("g")).as("no # TYPE").isNull();
    }

    @Test
    void malformedLinesFail() {
        assertThatThrownBy(() -> PrometheusText.parse("m{a=\"b} 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("m{a=b} 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("m{a=\"b\"}")).isInstanceOf(IllegalArgumentException.class);
    }
}
