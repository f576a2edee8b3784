package io.gridlimit.micronaut.decide;

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
 * {@link LocalFallback}: the policies' shares (rounded down; none below one unit) decided on a
 * {@link LocalRateLimiter} (whose own tests, in grid-core, hold the arithmetic and the key bound).
 */
class LocalFallbackTest {
    private static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long SECOND = 1_000_000_000L;

    /** The decision without its reservation (local admissions are reservations, docs/SPEC.md §10). */
    private static Decision plain(Decision d) {
        if (d != null && d.allowed()) {
            assertThat(d.reservation()).as("an admission is a reservation").isNotNull();
        }
        return d == null ? null : d.withReservation(null);
    }

    @Test
    void decidesEachPolicyOnItsShareComputingTheShareOfOneNotConfigured() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(7, Duration.ofSeconds(10)).build();
        LocalFallback local = new LocalFallback(List.of(p), new LocalFallbackSettings(100, 3), clock);
        assertThat(local.derived("fw")).isEqualTo(LocalRateLimiter.share(p, 3).orElseThrow());
        assertThat(local.derived("nope")).isNull();
        assertThat(local.withoutShare()).isEmpty();
        // floor(7/3) = 2
        assertThat(plain(local.decide(p, "k", 1))).isEqualTo(new Decision(true, 2, 1, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(plain(local.decide(p, "k", 1))).isEqualTo(new Decision(true, 2, 0, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(plain(local.decide(p, "k", 1))).isEqualTo(new Decision(false, 2, 0, 10 * SECOND, 10 * SECOND, null));
        assertThat(local.size()).isEqualTo(1);
        Policy later = Policy.builder("later").fixedWindow(9, Duration.ofSeconds(1)).build();
        assertThat(plain(local.decide(later, "k", 1))).isEqualTo(new Decision(true, 3, 2, SECOND, Decision.NO_RETRY, null));
        assertThat(local.derived("later")).isEqualTo(LocalRateLimiter.share(later, 3).orElseThrow());
        Policy changed = Policy.builder("later").fixedWindow(12, Duration.ofSeconds(1)).build();
        assertThat(plain(local.decide(changed, "k", 1))).as("new parameters under the same name: a new share, 4")
                .isEqualTo(new Decision(true, 4, 2, SECOND, Decision.NO_RETRY, null));
    }

    @Test
    void aPolicyWhoseQuotaIsBelowTheReplicasHasNoShareAndIsNeverDecidedLocally() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy two = Policy.builder("two").fixedWindow(2, Duration.ofSeconds(10)).build();
        Policy three = Policy.builder("three").fixedWindow(3, Duration.ofSeconds(10)).build();
        LocalFallback local = new LocalFallback(List.of(two, three), new LocalFallbackSettings(100, 3), clock);
        assertThat(local.withoutShare()).containsExactly("two");
        assertThat(local.derived("two")).isNull();
        assertThat(plain(local.decide(two, "k", 1))).isNull();
        assertThat(plain(local.decide(three, "k", 1))).isEqualTo(new Decision(true, 1, 0, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.size()).as("nothing held for the policy without a share").isEqualTo(1);
        assertThatThrownBy(() -> local.decide(three, "k", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
