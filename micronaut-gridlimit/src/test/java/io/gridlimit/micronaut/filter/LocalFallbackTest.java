package io.gridlimit.micronaut.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalFallback}: the configured policies' shares decided on a {@link LocalRateLimiter} (whose own tests,
 * in grid-core, hold the arithmetic and the key bound).
 */
class LocalFallbackTest {
    private static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long SECOND = 1_000_000_000L;

    @Test
    void decidesEachConfiguredPolicyOnItsShareAndRefusesAnUnknownOne() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(5, Duration.ofSeconds(10)).build();
        LocalFallback local = new LocalFallback(List.of(p), new LocalFallbackSettings(100, 3), clock);
        assertThat(local.derived("fw")).isEqualTo(LocalRateLimiter.share(p, 3));
        assertThat(local.derived("nope")).isNull();
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(true, 2, 1, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(true, 2, 0, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.decide(p, "k", 1)).isEqualTo(new Decision(false, 2, 0, 10 * SECOND, 10 * SECOND, null));
        assertThat(local.size()).isEqualTo(1);
        assertThatThrownBy(() -> local.decide(Policy.builder("nope").fixedWindow(1, Duration.ofSeconds(1)).build(),
                "k", 1)).isInstanceOf(IllegalArgumentException.class).hasMessage("no local policy for 'nope'");
    }
}
