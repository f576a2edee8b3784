package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LocalFallback}: derived policies, exact local decisions on a manual clock, TTL and the key bound. */
class LocalFallbackTest {
    private static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long SECOND = 1_000_000_000L;

    @Test
    void quotasAreDividedRoundingUpAndRefillRatesDividedExactlyWherePossible() {
        Policy bucket = Policy.builder("b").tokenBucket(10, 6, Duration.ofSeconds(1)).build();
        assertThat(LocalFallback.divide(bucket, 3).bands().get(0))
                .isEqualTo(Band.tokenBucket("b", 4, 2, Duration.ofSeconds(1))); // 6 divisible by 3
        Policy gcra = Policy.builder("g").gcra(10, 5, Duration.ofSeconds(1)).build();
        assertThat(LocalFallback.divide(gcra, 3).bands().get(0))
                .isEqualTo(Band.gcra("g", 4, 5, Duration.ofSeconds(3))); // 5 per 3 s: exactly a third
        Policy yearly = Policy.builder("y").tokenBucket(7, 5, Duration.ofDays(200)).build();
        assertThat(LocalFallback.divide(yearly, 3).bands().get(0))
                .isEqualTo(Band.tokenBucket("y", 3, 2, Duration.ofDays(200))); // 600 d > 365 d: ceil(5/3)
        Policy one = Policy.builder("one").fixedWindow(1, Duration.ofMinutes(1)).build();
        assertThat(LocalFallback.divide(one, 3).bands().get(0))
                .isEqualTo(Band.fixedWindow("one", 1, Duration.ofMinutes(1))); // at least 1
        Policy composite = Policy.builder("c")
                .band(Band.slidingWindowLog("log", 100, Duration.ofSeconds(10)))
                .band(Band.slidingWindowCounter("ctr", 1000, Duration.ofHours(1))).build();
        Policy divided = LocalFallback.divide(composite, 4);
        assertThat(divided.isComposite()).isTrue();
        assertThat(divided.bands()).containsExactly(Band.slidingWindowLog("log", 25, Duration.ofSeconds(10)),
                Band.slidingWindowCounter("ctr", 250, Duration.ofHours(1)));
        assertThat(LocalFallback.divide(bucket, 1)).isEqualTo(bucket);
        assertThatThrownBy(() -> LocalFallback.divide(bucket, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    @Test
    void decidesExactlyOnTheDividedPolicyAndTheLocalClock() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(5, Duration.ofSeconds(10)).build();
        LocalFallback local = new LocalFallback(List.of(p), new LocalFallbackSettings(100, 3), clock);
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(true, 2, 1, 10 * SECOND, Decision.NO_RETRY, null));
        clock.advanceNanos(4 * SECOND);
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(true, 2, 0, 6 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(false, 2, 0, 6 * SECOND, 6 * SECOND, null));
        assertThat(local.decide(p, "other", 1)).as("keys are separate")
                .isEqualTo(new Decision(true, 2, 1, 6 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.decide(p, "k", 3)).as("above the divided quota: can never pass")
                .isEqualTo(new Decision(false, 2, 0, 6 * SECOND, Decision.NO_RETRY, null));
        clock.advanceNanos(6 * SECOND);
        assertThat(local.decide(p, "k", 2)).isEqualTo(new Decision(true, 2, 0, 10 * SECOND, Decision.NO_RETRY, null));
        assertThatThrownBy(() -> local.decide(Policy.builder("nope").fixedWindow(1, Duration.ofSeconds(1)).build(),
                "k", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
    }

    @Test
    void theMapStaysWithinMaxKeysDroppingExpiredEntriesFirst() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(3, Duration.ofSeconds(10)).build();
        LocalFallback local = new LocalFallback(List.of(p), new LocalFallbackSettings(2, 1), clock);
        local.decide(p, "a", 1);
        local.decide(p, "b", 1);
        assertThat(local.size()).isEqualTo(2);
        // a third key with the map full and nothing expired: an arbitrary entry gives way
        local.decide(p, "c", 1);
        assertThat(local.size()).isEqualTo(2);
        // once the window (the TTL) has passed, every entry is fresh again: purged before anything else goes
        clock.advanceNanos(10 * SECOND);
        local.decide(p, "d", 1);
        assertThat(local.size()).isEqualTo(1);
        // a denial of an unknown key stores nothing
        assertThat(local.decide(p, "e", 4).allowed()).isFalse();
        assertThat(local.size()).isEqualTo(1);
        // the kept key still counts exactly
        assertThat(local.decide(p, "d", 1).remaining()).isEqualTo(1);
    }
}
