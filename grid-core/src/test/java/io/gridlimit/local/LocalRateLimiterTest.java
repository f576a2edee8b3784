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
    void quotasAreDividedRoundingDownAndRefillRatesDividedExactlyWherePossibleElseDown() {
        Policy bucket = Policy.builder("b").tokenBucket(10, 6, Duration.ofSeconds(1)).build();
        assertThat(band(LocalRateLimiter.share(bucket, 3)))
                .isEqualTo(Band.tokenBucket("b", 3, 2, Duration.ofSeconds(1))); // floor(10/3); 6 divisible by 3
        Policy gcra = Policy.builder("g").gcra(10, 5, Duration.ofSeconds(1)).build();
        assertThat(band(LocalRateLimiter.share(gcra, 3)))
                .isEqualTo(Band.gcra("g", 3, 5, Duration.ofSeconds(3))); // 5 per 3 s: exactly a third
        Policy yearly = Policy.builder("y").tokenBucket(7, 5, Duration.ofDays(200)).build();
        // 600 d > 365 d: floor(5 · 365 d / 600 d) = floor(3.04) = 3 per 365 d, below 5 per 600 d
        assertThat(band(LocalRateLimiter.share(yearly, 3)))
                .isEqualTo(Band.tokenBucket("y", 2, 3, Duration.ofDays(365)));
        Policy five = Policy.builder("five").slidingWindowLog(5, Duration.ofSeconds(10)).build();
        assertThat(band(LocalRateLimiter.share(five, 3)))
                .isEqualTo(Band.slidingWindowLog("five", 1, Duration.ofSeconds(10))); // floor(5/3)
        Policy composite = Policy.builder("c")
                .band(Band.slidingWindowLog("log", 100, Duration.ofSeconds(10)))
                .band(Band.slidingWindowCounter("ctr", 1001, Duration.ofHours(1))).build();
        Policy divided = LocalRateLimiter.share(composite, 4).orElseThrow();
        assertThat(divided.isComposite()).isTrue();
        assertThat(divided.bands()).containsExactly(Band.slidingWindowLog("log", 25, Duration.ofSeconds(10)),
                Band.slidingWindowCounter("ctr", 250, Duration.ofHours(1)));
        assertThat(LocalRateLimiter.share(bucket, 1)).contains(bucket);
        assertThatThrownBy(() -> LocalRateLimiter.share(bucket, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    @Test
    void hitsCountAsTheGridCountsThem() throws Exception {
        io.gridlimit.time.ManualTimeSource clock = new io.gridlimit.time.ManualTimeSource(60_000_000_000L);
        LocalRateLimiter local = new LocalRateLimiter(100, clock);
        Policy window = Policy.builder("w").fixedWindow(3, Duration.ofMinutes(1)).build();
        assertThat(local.hit(window, "k", 2).remaining()).isEqualTo(1);
        assertThat(local.hit(window, "k", 2).allowed()).isFalse();
        // the denied hit counted: 4 of 3, so even a hit of 1 is over, and a peek too
        assertThat(local.hitAsync(window, "k", 1, Runnable::run).toCompletableFuture().get().allowed()).isFalse();
        assertThat(local.hit(window, "k", 0).allowed()).isFalse();
        assertThat(local.tryAcquire(window, "k", 1).allowed()).isFalse();
        clock.setNanos(120_000_000_000L);
        assertThat(local.hit(window, "k", 3).allowed()).isTrue();
        assertThat(local.hit(window, "k", 0).allowed()).as("a peek at the limit passes").isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> local.hit(window, "", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must not be empty");
    }

    @Test
    void aQuotaOrRefillBelowOneUnitPerReplicaHasNoShare() {
        Policy two = Policy.builder("two").fixedWindow(2, Duration.ofMinutes(1)).build();
        assertThat(LocalRateLimiter.share(two, 3)).as("floor(2/3) = 0").isEmpty();
        assertThat(LocalRateLimiter.share(two, 2)).map(p -> p.bands().get(0))
                .contains(Band.fixedWindow("two", 1, Duration.ofMinutes(1)));
        Policy smallBucket = Policy.builder("sb").gcra(2, 1, Duration.ofSeconds(1)).build();
        assertThat(LocalRateLimiter.share(smallBucket, 3)).as("capacity floor(2/3) = 0").isEmpty();
        Policy slowRefill = Policy.builder("slow").tokenBucket(30, 1, Duration.ofDays(300)).build();
        assertThat(LocalRateLimiter.share(slowRefill, 3)).as("floor(1 · 365 d / 900 d) = 0 tokens").isEmpty();
        Policy composite = Policy.builder("c")
                .band(Band.slidingWindowLog("burst", 2, Duration.ofSeconds(1)))
                .band(Band.fixedWindow("daily", 1000, Duration.ofDays(1))).build();
        assertThat(LocalRateLimiter.share(composite, 3)).as("one band without a share: the policy has none")
                .isEmpty();
    }

    @Test
    void replicasDecidingOnTheirSharesNeverAdmitTogetherMoreThanThePolicy() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        for (int limit = 1; limit <= 12; limit++) {
            for (int replicas = 1; replicas <= 5; replicas++) {
                Policy p = Policy.builder("p" + limit).slidingWindowLog(limit, Duration.ofSeconds(10)).build();
                long admitted = 0;
                for (int r = 0; r < replicas; r++) {
                    LocalRateLimiter replica = new LocalRateLimiter(10, clock);
                    Policy share = LocalRateLimiter.share(p, replicas).orElse(null);
                    for (int i = 0; share != null && i < limit + 1; i++) {
                        admitted += replica.tryAcquire(share, "k", 1).allowed() ? 1 : 0;
                    }
                }
                assertThat(admitted).as("L=%d, N=%d", limit, replicas).isEqualTo((long) replicas * (limit / replicas))
                        .isLessThanOrEqualTo(limit);
            }
        }
    }

    private static Band band(java.util.Optional<Policy> share) {
        return share.orElseThrow().bands().get(0);
    }

    @Test
    void decidesExactlyOnTheDividedPolicyAndTheLocalClock() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        Policy p = Policy.builder("fw").fixedWindow(6, Duration.ofSeconds(10)).build();
        Policy share = LocalRateLimiter.share(p, 3).orElseThrow(); // 2 per 10 s
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
