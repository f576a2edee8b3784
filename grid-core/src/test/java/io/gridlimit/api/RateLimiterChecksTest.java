package io.gridlimit.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one home of the key and cost rules (SPEC §1, §6): {@link RateLimiter#checkKey}, {@link RateLimiter#checkCost}. */
class RateLimiterChecksTest {

    @Test
    void keysUpTo1024Utf8BytesOfWellFormedUtf16Pass() {
        assertThat(RateLimiter.checkKey("k")).isEqualTo("k");
        assertThat(RateLimiter.checkKey("a".repeat(1024))).hasSize(1024);
        assertThat(RateLimiter.checkKey("\u00e9".repeat(512))).as("512 x 2 bytes").hasSize(512);
        assertThat(RateLimiter.checkKey("\u20ac".repeat(341) + "a")).as("341 x 3 + 1 bytes").hasSize(342);
        assertThat(RateLimiter.checkKey("\ud83d\ude00".repeat(256))).as("256 pairs x 4 bytes").hasSize(512);
    }

    @Test
    void emptyOversizedAndNullKeysAreRefusedNamingTheSizeNeverTheKey() {
        assertThatThrownBy(() -> RateLimiter.checkKey("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be empty");
        assertThatThrownBy(() -> RateLimiter.checkKey("a".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must be at most 1024 UTF-8 bytes, got 1025 bytes");
        assertThatThrownBy(() -> RateLimiter.checkKey("\u00e9".repeat(513)))
                .hasMessage("key must be at most 1024 UTF-8 bytes, got 1026 bytes");
        assertThatThrownBy(() -> RateLimiter.checkKey("\ud83d\ude00".repeat(256) + "a"))
                .hasMessage("key must be at most 1024 UTF-8 bytes, got 1025 bytes");
        assertThatThrownBy(() -> RateLimiter.checkKey(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void loneSurrogatesAreRefusedSoThatTheyCannotShareOneState() {
        // "sur\ud800", "sur\udc00" and "sur?" all encode to the UTF-8 bytes of "sur?": one state for three keys
        for (String key : new String[] {"sur\ud800", "sur\udc00", "\udc00\ud800", "a\ud800b", "\ud800"}) {
            assertThatThrownBy(() -> RateLimiter.checkKey(key)).as(key.length() + " chars")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("key must be well-formed UTF-16: a lone surrogate at index")
                    .hasMessageNotContaining(key);
        }
        assertThatThrownBy(() -> RateLimiter.checkKey("sur\ud800"))
                .hasMessage("key must be well-formed UTF-16: a lone surrogate at index 3 has no UTF-8 form");
        assertThatThrownBy(() -> RateLimiter.checkKey("ab\udc00"))
                .hasMessage("key must be well-formed UTF-16: a lone surrogate at index 2 has no UTF-8 form");
        assertThat(RateLimiter.checkKey("sur?")).isEqualTo("sur?");
    }

    @Test
    void costsLieIn1To10Pow15AndTheMessageNamesTheParameter() {
        assertThat(RateLimiter.checkCost(1)).isEqualTo(1);
        assertThat(RateLimiter.checkCost(1_000_000_000_000_000L)).isEqualTo(1_000_000_000_000_000L);
        assertThatThrownBy(() -> RateLimiter.checkCost(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost must be in [1, 1000000000000000], got 0");
        assertThatThrownBy(() -> RateLimiter.checkCost(1_000_000_000_000_001L))
                .hasMessage("cost must be in [1, 1000000000000000], got 1000000000000001");
        assertThatThrownBy(() -> RateLimiter.checkCost("checks[2].cost", -5))
                .hasMessage("checks[2].cost must be in [1, 1000000000000000], got -5");
    }

    @Test
    void theBindingAnswerHasTheLeastRemainingThenTheNearestResetAndTiesKeepTheFirst() {
        Decision a = new Decision(true, 10, 3, 5_000, Decision.NO_RETRY, null);
        Decision fewer = new Decision(true, 10, 2, 9_000, Decision.NO_RETRY, null);
        Decision sooner = new Decision(true, 10, 3, 4_000, Decision.NO_RETRY, null);
        Decision tie = new Decision(true, 20, 3, 5_000, Decision.NO_RETRY, null);
        assertThat(fewer.bindsBefore(a)).isTrue();
        assertThat(a.bindsBefore(fewer)).isFalse();
        assertThat(sooner.bindsBefore(a)).isTrue();
        assertThat(a.bindsBefore(sooner)).isFalse();
        assertThat(tie.bindsBefore(a)).isFalse();
        assertThat(a.bindsBefore(tie)).isFalse();
    }
}
