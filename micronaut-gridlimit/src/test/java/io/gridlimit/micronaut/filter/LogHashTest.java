package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.key.KeyResolver;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The log hash of keys: stable within a process, 12 hex digits, and not the plain (reversible) SHA-256. */
class LogHashTest {
    @Test
    void stableShortAndKeyed() {
        String key = "ip:203.0.113.99";
        assertThat(KeyResolver.logHash(key)).matches("[0-9a-f]{12}").isEqualTo(KeyResolver.logHash(key));
        assertThat(KeyResolver.logHash(key)).isNotEqualTo(KeyResolver.sha256Hex(key).substring(0, 12));
        assertThat(KeyResolver.logHash("ip:203.0.113.98")).isNotEqualTo(KeyResolver.logHash(key));
    }
}
