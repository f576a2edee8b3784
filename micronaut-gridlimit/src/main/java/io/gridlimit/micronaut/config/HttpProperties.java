package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * {@code gridlimit.http}, the library's HTTP edge (docs/SPEC.md §5; README "Configuration reference"): how long a
 * connection may take to send a request's header section, and whether every error response Micronaut writes itself
 * becomes an RFC 9457 problem. Bound by Micronaut ({@link PropertyCheck} refuses unknown names and values that are
 * not durations or booleans); {@link #problems} refuses durations out of range, checked at boot with the rest of the
 * configuration by {@link GridLimitConfigFactory} (so a context without the HTTP server, such as the replay's, refuses
 * them too).
 *
 * @param headerTimeout the longest a request's header section may take to arrive, in [1 ms, 1 h]: a connection
 *     still sending its header section after that is answered 408 and closed (default {@value #DEFAULT_HEADER_TIMEOUT_TEXT})
 * @param problemErrors true to answer every error Micronaut writes itself (404, 405, 406, 413, 415, 500, ...) with
 *     an {@code application/problem+json} body of a fixed detail (default false: the application's own error
 *     handling stays as it is)
 */
@ConfigurationProperties("gridlimit.http")
public record HttpProperties(@Bindable(defaultValue = DEFAULT_HEADER_TIMEOUT_TEXT) Duration headerTimeout,
                             @Bindable(defaultValue = "false") boolean problemErrors) {
    /** Property path of the header section's deadline. */
    public static final String HEADER_TIMEOUT_PROPERTY = "gridlimit.http.header-timeout";
    /** Property path of the problem bodies for Micronaut's own errors. */
    public static final String PROBLEM_ERRORS_PROPERTY = "gridlimit.http.problem-errors";
    /** Default header section deadline as written. */
    public static final String DEFAULT_HEADER_TIMEOUT_TEXT = "10s";
    /** Smallest header section deadline: 1 ms. */
    public static final Duration MIN_HEADER_TIMEOUT = Duration.ofMillis(1);
    /** Largest header section deadline: 1 h. */
    public static final Duration MAX_HEADER_TIMEOUT = Duration.ofHours(1);

    /**
     * The values out of range, quoting each as {@code written} gives it.
     *
     * @param written the value as written for a property path (the bound duration when it is not known)
     * @return one message per bad value, {@code <path>: '<value>' is out of range [1ms, 1h]}; empty when all is well
     */
    public List<String> problems(BiFunction<String, Duration, String> written) {
        List<String> out = new ArrayList<>();
        if (headerTimeout == null || headerTimeout.compareTo(MIN_HEADER_TIMEOUT) < 0
                || headerTimeout.compareTo(MAX_HEADER_TIMEOUT) > 0) {
            out.add(HEADER_TIMEOUT_PROPERTY + ": '" + written.apply(HEADER_TIMEOUT_PROPERTY, headerTimeout)
                    + "' is out of range [1ms, 1h]");
        }
        return out;
    }

    /**
     * @param d a bound duration
     * @return it as written in Micronaut's short form where it has one, e.g. {@code 0s}, {@code -5s}, {@code 2h}
     */
    public static String shortForm(Duration d) {
        return d == null ? "" : d.toString().substring(2).toLowerCase(Locale.ROOT);
    }
}
