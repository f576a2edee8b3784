package io.gridlimit.micronaut.grid;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The warm-up's stand-in policies: same bands, the throwaway name. */
class GridWarmupTest {
    @Test
    void singleBandStandInKeepsTheBandUnderTheWarmupName() {
        Policy demo = Policy.builder("demo").slidingWindowLog(5, Duration.ofSeconds(10)).build();
        Policy standIn = GridWarmup.standIn(demo);
        assertThat(standIn.name()).isEqualTo("gridlimit_warmup");
        assertThat(standIn.isComposite()).isFalse();
        assertThat(standIn.bands()).containsExactly(Band.slidingWindowLog("gridlimit_warmup", 5, Duration.ofSeconds(10)));
    }

    @Test
    void compositeStandInKeepsEveryBand() {
        Band burst = Band.gcra("burst", 10, 1, Duration.ofSeconds(1));
        Band hourly = Band.fixedWindow("hourly", 1000, Duration.ofHours(1));
        Policy tiers = Policy.builder("tiers").band(burst).band(hourly).build();
        Policy standIn = GridWarmup.standIn(tiers);
        assertThat(standIn.name()).isEqualTo("gridlimit_warmup");
        assertThat(standIn.isComposite()).isTrue();
        assertThat(standIn.bands()).containsExactly(burst, hourly);
    }
}
