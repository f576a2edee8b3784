package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Millisecond rounding (SPEC §5: up, 0 only for 0) and the mapping of a core decision to its JSON form. */
class CheckResponseTest {
    @Test
    void millisAreRoundedUpAndZeroOnlyForZero() {
        assertThat(CheckResponse.ceilMillis(0)).isEqualTo(0);
        assertThat(CheckResponse.ceilMillis(1)).isEqualTo(1);
        assertThat(CheckResponse.ceilMillis(999_999)).isEqualTo(1);
        assertThat(CheckResponse.ceilMillis(1_000_000)).isEqualTo(1);
        assertThat(CheckResponse.ceilMillis(1_000_001)).isEqualTo(2);
        assertThat(CheckResponse.ceilMillis(10_000_000_001L)).isEqualTo(10_001);
        assertThat(CheckResponse.ceilMillis(Long.MAX_VALUE)).isEqualTo(9_223_372_036_855L);
        assertThatThrownBy(() -> CheckResponse.ceilMillis(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("nanos must be >= 0, got -1");
    }

    @Test
    void admittedDecisionHasNoRetryAfter() {
        Decision d = new Decision(true, 5, 4, 10_000_000_001L, Decision.NO_RETRY, null);
        assertThat(CheckResponse.of(d, "demo"))
                .isEqualTo(new CheckResponse(true, 5, 4, 10_001, null, "demo", null, null, null));
    }

    @Test
    void deniedDecisionCarriesRetryAfterAndBand() {
        Decision d = new Decision(false, 1000, 0, 1, 5_000_000_001L, "hourly");
        assertThat(CheckResponse.of(d, "tiers"))
                .isEqualTo(new CheckResponse(false, 1000, 0, 1, 5_001L, "tiers", "hourly", null, null));
    }

    @Test
    void unsatisfiableDenialHasNoRetryAfter() {
        Decision d = new Decision(false, 5, 5, 0, Decision.NO_RETRY, null);
        assertThat(CheckResponse.of(d, "demo"))
                .isEqualTo(new CheckResponse(false, 5, 5, 0, null, "demo", null, null, null));
    }
}
