package io.gridlimit.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link LocalRateLimiter}: shares of policies, exact local decisions on a manual clock, TTL and the key bound. */
class LocalRateLimiterTest {
    private static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long SECOND = 1_000_000_000L;

    @Test
    void quotasAreDividedRoundingUpAndRefillRatesDividedExactlyWherePossible() {
        Policy bucket = Policy.builder("b").tokenBucket(10, 6, Duration.ofSeconds(1)).build();
        assertThat(LocalRateLimiter.share(bucket, 3).bands().get(0))
                .isEqualTo(Band.tokenBucket("b", 4, 2, Duration.ofSeconds(1))); // 6 divisible by 3
        Policy gcra = Policy.builder("g").gcra(10, 5, Duration.ofSeconds(1)).build();
        assertThat(LocalRateLimiter.share(gcra, 3).bands().get(0))
                .isEqualTo(Band.gcra("g", 4, 5, Duration.ofSeconds(3))); // 5 per 3 s: exactly a third
        Policy yearly = Policy.builder("y").tokenBucket(7, 5, Duration.ofDays(200)).build();
        assertThat(LocalRateLimiter.share(yearly, 3).bands().get(0))
                .isEqualTo(Band.tokenBucket("y", 3, 2, Duration.ofDays(200))); // 600 d > 365 d: ceil(5/3)
        Policy one = Policy.builder("one").fixedWindow(1, Duration.ofMinutes(1)).build();
        assertThat(LocalRateLimiter.share(one, 3).bands().get(0))
                .isEqualTo(Band.fixedWindow("one", 1, Duration.ofMinutes(1))); // at least 1
        Policy composite = Policy.builder("c")
                .band(Band.slidingWindowLog("log", 100, Duration.ofSeconds(10)))
                .band(Band.slidingWindowCounter("ctr", 1000, Duration.ofHours(1))).build();
        Policy divided = LocalRateLimiter.share(composite, 4);
        assertThat(divided.isComposite()).isTrue();
        assertThat(divided.bands()).containsExactly(Band.slidingWindowLog("log", 25, Duration.ofSeconds(10)),
                Band.slidingWindowCounter("ctr", 250, Duration.ofHours(1)));
        assertThat(LocalRateLimiter.share(bucket, 1)).isEqualTo(bucket);
        assertThatThrownBy(() -> LocalRateLimiter.share(bucket, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    @Test
    void decidesExactlyOnTheDividedPolicyAndTheLocalClock() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(5, Duration.ofSeconds(10)).build();
        Policy share = LocalRateLimiter.share(p, 3);
        LocalRateLimiter local = new LocalRateLimiter(100, clock);
        assertThat(local.tryAcquire(share, "k", 1)).isEqualTo(new Decision(true, 2, 1, 10 * SECOND, Decision.NO_RETRY, null));
        clock.advanceNanos(4 * SECOND);
        assertThat(local.tryAcquire(share, "k", 1)).isEqualTo(new Decision(true, 2, 0, 6 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.tryAcquire(share, "k", 1)).isEqualTo(new Decision(false, 2, 0, 6 * SECOND, 6 * SECOND, null));
        assertThat(local.tryAcquire(share, "other", 1)).as("keys are separate")
                .isEqualTo(new Decision(true, 2, 1, 6 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.tryAcquire(share, "k", 3)).as("above the divided quota: can never pass")
                .isEqualTo(new Decision(false, 2, 0, 6 * SECOND, Decision.NO_RETRY, null));
        clock.advanceNanos(6 * SECOND);
        assertThat(local.tryAcquire(share, "k", 2)).isEqualTo(new Decision(true, 2, 0, 10 * SECOND, Decision.NO_RETRY, null));
        assertThat(local.tryAcquireAsync(share, "k", 1).toCompletableFuture().join())
                .as("async decides at once on the caller").isEqualTo(new Decision(false, 2, 0, 10 * SECOND, 10 * SECOND, null));
        assertThatThrownBy(() -> local.tryAcquire(share, "k\ud800", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone surrogate").hasMessageNotContaining("k\ud800");
        assertThatThrownBy(() -> local.tryAcquire(share, "k", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> new LocalRateLimiter(0, clock)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxKeys must be in [1, 2147483647], got 0");
    }

    @Test
    void theMapStaysWithinMaxKeysDroppingExpiredEntriesFirst() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(3, Duration.ofSeconds(10)).build();
        LocalRateLimiter local = new LocalRateLimiter(2, clock);
        local.tryAcquire(p, "a", 1);
        local.tryAcquire(p, "b", 1);
        assertThat(local.size()).isEqualTo(2);
        // a third key with the map full and nothing expired: an arbitrary entry gives way
        local.tryAcquire(p, "c", 1);
        assertThat(local.size()).isEqualTo(2);
        // once the window (the TTL) has passed, every entry is fresh again: purged before anything else goes
        clock.advanceNanos(10 * SECOND);
        local.tryAcquire(p, "d", 1);
        assertThat(local.size()).isEqualTo(1);
        // a denial of an unknown key stores nothing
        assertThat(local.tryAcquire(p, "e", 4).allowed()).isFalse();
        assertThat(local.size()).isEqualTo(1);
        // the kept key still counts exactly
        assertThat(local.tryAcquire(p, "d", 1).remaining()).isEqualTo(1);
    }
}
