package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.gridlimit.micronaut.config.CheckedValues;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The decision API's checked settings ({@link DecisionApiProperties}), checked when the context starts
 * ({@link Context}), so a bad value stops the boot with one message naming the property path and the value (like
 * every other {@code gridlimit.*} error) before any port opens. Immutable.
 *
 * <ul>
 *   <li>{@code gridlimit.decision-api.port}: the internal port, an integer in [1, 65535], default
 *       {@value #DEFAULT_PORT}. The decision API ({@code /v1/**}) and the management endpoints ({@code /health/**},
 *       {@code /prometheus}: Micronaut's {@code endpoints.all.port} takes this value) answer there and nowhere
 *       else; the public port ({@code micronaut.server.port}) answers 404 for them. It must differ from the public
 *       port ({@link InternalListener} checks that).</li>
 *   <li>{@code gridlimit.decision-api.host}: the IP address the internal port binds, an IPv4 or IPv6 literal
 *       (no host names, ranges or prefixes), default {@value #DEFAULT_HOST}: reachable from this host only. Set
 *       {@code 0.0.0.0} (or {@code ::}) only where a network policy limits who reaches the port.</li>
 *   <li>{@code gridlimit.decision-api.token}: optional shared secret; when set, every {@code /v1/**} request must
 *       carry {@code Authorization: Bearer <token>} ({@link DecisionApiTokenFilter}). At least
 *       {@value #MIN_TOKEN_LENGTH} characters of RFC 6750 §2.1 {@code b64token} syntax (letters, digits,
 *       {@code - . _ ~ + /}, then optional {@code =} padding). Messages give its length, never its value.</li>
 *   <li>{@code gridlimit.decision-api.timeout}: how long a request waits for the grid, a duration in [1 ms, 1 h]
 *       ({@code 500ms}, {@code 2s}, {@code PT1S}); default {@value #DEFAULT_TIMEOUT_TEXT}.</li>
 * </ul>
 */
@Context
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class DecisionApiSettings {
    /** Property path of the internal port. */
    public static final String PORT_PROPERTY = DecisionApiProperties.PREFIX + ".port";
    /** Property path of the internal port's bind address. */
    public static final String HOST_PROPERTY = DecisionApiProperties.PREFIX + ".host";
    /** Property path of the shared secret. */
    public static final String TOKEN_PROPERTY = DecisionApiProperties.PREFIX + ".token";
    /** Property path of the timeout. */
    public static final String TIMEOUT_PROPERTY = DecisionApiProperties.PREFIX + ".timeout";
    /** Default internal port. */
    public static final int DEFAULT_PORT = 8081;
    /**
     * The internal port as a property placeholder with its default, for annotations that take a port
     * ({@code @Controller(port = ...)}).
     */
    public static final String PORT_PLACEHOLDER = "${" + PORT_PROPERTY + ":" + DEFAULT_PORT + "}";
    /** Default bind address of the internal port: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Shortest accepted token, in characters. */
    public static final int MIN_TOKEN_LENGTH = 16;
    /** Default timeout as written. */
    public static final String DEFAULT_TIMEOUT_TEXT = "1s";
    /** Default timeout: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** Smallest timeout: 1 ms. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    /** Largest timeout: 1 h. */
    public static final Duration MAX_TIMEOUT = Duration.ofHours(1);

    /** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

    private final int port;
    private final String host;
    private final byte[] token;
    private final Duration timeout;

    /**
     * @param properties the raw {@code gridlimit.decision-api.*} values
     * @throws ConfigurationException naming every bad property and its value (a token by its length only)
     */
    public DecisionApiSettings(DecisionApiProperties properties) {
        List<String> errors = new ArrayList<>();
        this.port = CheckedValues.port(PORT_PROPERTY, properties.getPort(), DEFAULT_PORT, errors);
        this.host = host(properties.getHost(), errors);
        this.token = token(TOKEN_PROPERTY, properties.getToken(), errors);
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
        this.timeout = CheckedValues.duration(TIMEOUT_PROPERTY, properties.getTimeout(), MIN_TIMEOUT, MAX_TIMEOUT,
                DEFAULT_TIMEOUT);
    }

    /** @return the internal port, in [1, 65535] */
    public int port() {
        return port;
    }

    /** @return the IP literal the internal port binds, never null */
    public String host() {
        return host;
    }

    /** @return whether the internal port binds a loopback address only */
    public boolean loopbackOnly() {
        return CheckedValues.isLoopback(host);
    }

    /** @return the shared secret's UTF-8 bytes (a copy), or empty when {@code /v1/**} needs no token */
    public Optional<byte[]> token() {
        return Optional.ofNullable(token).map(byte[]::clone);
    }

    /** @return how long a decision API request waits for the grid, in [1 ms, 1 h] */
    public Duration timeout() {
        return timeout;
    }

    private static String host(@Nullable String text, List<String> errors) {
        return CheckedValues.bindAddress(HOST_PROPERTY, text, DEFAULT_HOST, errors);
    }

    /**
     * Checks a bearer token setting (the decision API's, the admin API's): the one home of that rule.
     *
     * @param property the property, for the messages (which never show the value)
     * @param text the value as written, or null when unset
     * @param errors receives one message when refused
     * @return the token's UTF-8 bytes, or null when unset
     */
    static byte[] token(String property, @Nullable String text, List<String> errors) {
        if (text == null) {
            return null;
        }
        if (text.isBlank()) {
            errors.add(property + ": is blank; remove the property or set a secret of at least "
                    + MIN_TOKEN_LENGTH + " characters");
        } else if (text.length() < MIN_TOKEN_LENGTH) {
            errors.add(property + ": is " + text.length() + " characters long; at least " + MIN_TOKEN_LENGTH
                    + " are needed (value not shown)");
        } else if (!B64TOKEN.matcher(text).matches()) {
            errors.add(property + ": holds characters a bearer token cannot carry (RFC 6750: letters,"
                    + " digits, - . _ ~ + / and trailing =; value not shown)");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

}
