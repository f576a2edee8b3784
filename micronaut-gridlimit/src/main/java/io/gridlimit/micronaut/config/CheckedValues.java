package io.gridlimit.micronaut.config;

import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;

import java.time.Duration;

/**
 * Checks single {@code gridlimit.*} values read outside {@link GridLimitConfigFactory} (for instance the service's
 * {@code gridlimit.decision-api.*}) with the same grammar and the same boot error as the rest of the configuration:
 * one {@link ConfigurationException} "Invalid GridLimit configuration: {@code <path>: <what is wrong with
 * 'value'>}".
 */
public final class CheckedValues {
    private CheckedValues() {
    }

    /**
     * Parses a duration in [min, max]: {@code <n><unit>} with unit ns, us, ms, s, m, h or d, or ISO-8601.
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
        ConfigValues v = new ConfigValues();
        Duration d = v.duration(path, text, min, max, fallback);
        v.throwIfAny();
        return d;
    }
}
