package io.gridlimit.envoy.config;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.time.Duration;
import java.util.Locale;

/**
 * The units of envoyproxy/ratelimit's {@code rate_limit.unit}, with the window each one means (docs/SPEC.md §12):
 * the same lengths envoyproxy/ratelimit divides time by (a month is 30 days, a year 365 days), so that a fixed
 * window aligned to epoch 0 starts and ends exactly where envoyproxy/ratelimit's counter does.
 */
public enum RlsUnit {
    /** 1 s. */
    SECOND(Duration.ofSeconds(1), RateLimitResponse.RateLimit.Unit.SECOND),
    /** 60 s. */
    MINUTE(Duration.ofMinutes(1), RateLimitResponse.RateLimit.Unit.MINUTE),
    /** 3600 s. */
    HOUR(Duration.ofHours(1), RateLimitResponse.RateLimit.Unit.HOUR),
    /** 86 400 s. */
    DAY(Duration.ofDays(1), RateLimitResponse.RateLimit.Unit.DAY),
    /** 7 days. */
    WEEK(Duration.ofDays(7), RateLimitResponse.RateLimit.Unit.WEEK),
    /** 30 days. */
    MONTH(Duration.ofDays(30), RateLimitResponse.RateLimit.Unit.MONTH),
    /** 365 days. */
    YEAR(Duration.ofDays(365), RateLimitResponse.RateLimit.Unit.YEAR);

    private final Duration length;
    private final RateLimitResponse.RateLimit.Unit proto;

    RlsUnit(Duration length, RateLimitResponse.RateLimit.Unit proto) {
        this.length = length;
        this.proto = proto;
    }

    /** @return the window (or refill period) this unit means, never null */
    public Duration length() {
        return length;
    }

    /** @return the unit as {@code RateLimitResponse.RateLimit.unit} writes it */
    public RateLimitResponse.RateLimit.Unit proto() {
        return proto;
    }

    /**
     * Parses a unit as envoyproxy/ratelimit does: case-insensitively.
     *
     * @param text the configured unit, e.g. {@code second} or {@code DAY}
     * @return the unit, or null when {@code text} names none
     */
    public static RlsUnit parse(String text) {
        for (RlsUnit u : values()) {
            if (u.name().equals(text.trim().toUpperCase(Locale.ROOT))) {
                return u;
            }
        }
        return null;
    }
}
