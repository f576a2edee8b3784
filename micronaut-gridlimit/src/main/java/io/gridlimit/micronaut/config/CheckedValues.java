package io.gridlimit.micronaut.config;

import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;

import java.time.Duration;

/**
 * Checks single {@code gridlimit.*} values read outside the typed configuration (for instance the service's
 * {@code gridlimit.decision-api.timeout}) with Micronaut's duration grammar and the same boot error as the rest of
 * the configuration: "Invalid GridLimit configuration: {@code <path>: <what is wrong with 'value'>}".
 */
public final class CheckedValues {
    private CheckedValues() {
    }

    /**
     * Parses a duration in [min, max]: {@code <n><unit>} with unit ms, s, m, h or d, or ISO-8601 ({@code PT1S}).
     *
     * @param path the property path, e.g. {@code gridlimit.decision-api.timeout}
     * @param text the value as written, or null when unset
     * @param min the smallest allowed value
     * @param max the largest allowed value
     * @param fallback the value when unset
     * @return the checked value, never null
     * @throws ConfigurationException naming the path and the value when it is malformed or out of range
     */
    public static Duration duration(String path, @Nullable String text, Duration min, Duration max,
                                    Duration fallback) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        Duration d = ConversionService.SHARED.convert(text.trim(), Duration.class).filter(v -> !v.isNegative())
                .orElse(null);
        if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + path + ": '" + text + "' is "
                    + (d == null ? "not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)"
                    : "out of range [" + format(min) + ", " + format(max) + "]"));
        }
        return d;
    }

    /** {@code 1d}, {@code 1h} or milliseconds, the way the bounds are written in the README. */
    private static String format(Duration d) {
        return d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))
                ? (d.toHours() % 24 == 0 ? d.toDays() + "d" : d.toHours() + "h") : d.toMillis() + "ms";
    }
}
