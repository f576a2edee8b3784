package io.gridlimit.app.api;

import io.gridlimit.app.Application;
import io.gridlimit.micronaut.config.CheckedValues;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;

import java.time.Duration;

/**
 * The decision API's checked settings, read and checked when the context starts ({@link Context}), so a bad value
 * stops the boot with one message naming the property path and the value (like every other {@code gridlimit.*}
 * error) instead of failing when the controller is first created at the first request.
 *
 * <p>{@code gridlimit.decision-api.timeout}: how long a request waits for the grid, a duration in [1 ms, 1 h]
 * ({@code 500ms}, {@code 2s}, {@code PT1S}); default {@value #DEFAULT_TIMEOUT_TEXT}. Immutable.
 */
@Context
@Requires(property = Application.SERVICE_PROPERTY, value = "true")
public class DecisionApiSettings {
    /** Property path of the timeout. */
    public static final String TIMEOUT_PROPERTY = "gridlimit.decision-api.timeout";
    /** Default timeout as written. */
    public static final String DEFAULT_TIMEOUT_TEXT = "1s";
    /** Default timeout: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** Smallest timeout: 1 ms. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    /** Largest timeout: 1 h. */
    public static final Duration MAX_TIMEOUT = Duration.ofHours(1);

    private final Duration timeout;

    /**
     * @param timeout {@code gridlimit.decision-api.timeout} as written, or null when unset
     * @throws io.micronaut.context.exceptions.ConfigurationException if it is not a duration in [1 ms, 1 h]
     */
    public DecisionApiSettings(@Property(name = TIMEOUT_PROPERTY) @Nullable String timeout) {
        this.timeout = CheckedValues.duration(TIMEOUT_PROPERTY, timeout, MIN_TIMEOUT, MAX_TIMEOUT, DEFAULT_TIMEOUT);
    }

    /** @return how long a decision API request waits for the grid, in [1 ms, 1 h] */
    public Duration timeout() {
        return timeout;
    }
}
