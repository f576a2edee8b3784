package io.gridlimit.micronaut.config;

import inet.ipaddr.AddressStringParameters;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.convert.ConversionService;

import java.time.Duration;
import java.util.List;

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

    /**
     * Checks the bind address of a port GridLimit opens (the decision API's {@code gridlimit.decision-api.host},
     * the Envoy rate limit service's {@code gridlimit.envoy-rls.host}): an IPv4 or IPv6 literal, no host names,
     * ranges, prefixes or zones; {@code 0.0.0.0} or {@code ::} (every interface) only where a network policy limits
     * who reaches the port. The one home of that rule.
     *
     * @param path the property path
     * @param text the value as written, or null when unset
     * @param fallback the value when unset
     * @param errors receives {@code <path>: '<value>' is not an IP address literal …} when malformed
     * @return the trimmed literal, or {@code fallback} when unset or malformed
     */
    public static String bindAddress(String path, @Nullable String text, String fallback, List<String> errors) {
        if (text == null) {
            return fallback;
        }
        String value = text.trim();
        if (!new IPAddressString(value, IP_LITERAL).isIPAddress()) {
            errors.add(path + ": '" + text + "' is not an IP address literal (write e.g. 127.0.0.1, ::1 or 0.0.0.0)");
            return fallback;
        }
        return value;
    }

    /**
     * Checks a port GridLimit opens (the decision API's {@code gridlimit.decision-api.port}, the Envoy rate limit
     * service's {@code gridlimit.envoy-rls.port}): 1 to 5 decimal digits, in [1, 65535]. The one home of that rule.
     *
     * @param path the property path
     * @param text the value as written, or null when unset
     * @param fallback the port when unset or malformed
     * @param errors receives {@code <path>: '<value>' is not a port in [1, 65535]} when malformed or out of range
     * @return the port, or {@code fallback}
     */
    public static int port(String path, @Nullable String text, int fallback, List<String> errors) {
        if (text == null) {
            return fallback;
        }
        String value = text.trim();
        int parsed = PORT.matcher(value).matches() ? Integer.parseInt(value) : -1;
        if (parsed < 1 || parsed > 65_535) {
            errors.add(path + ": '" + text + "' is not a port in [1, 65535]");
            return fallback;
        }
        return parsed;
    }

    private static final java.util.regex.Pattern PORT = java.util.regex.Pattern.compile("[0-9]{1,5}");

    /**
     * @param address a literal accepted by {@link #bindAddress}
     * @return whether it is a loopback address (reachable from this host only)
     */
    public static boolean isLoopback(String address) {
        return new IPAddressString(address, IP_LITERAL).getAddress().isLoopback();
    }

    private static final IPAddressStringParameters IP_LITERAL = ipLiteral();

    private static IPAddressStringParameters ipLiteral() {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false).allowPrefix(false)
                .allowMask(false).allowPrefixOnly(false).allowWildcardedSeparator(false)
                .setRangeOptions(AddressStringParameters.RangeParameters.NO_RANGE);
        b.getIPv4AddressParametersBuilder().allow_inet_aton(false).allowLeadingZeros(false).allowBinary(false);
        b.getIPv6AddressParametersBuilder().allowBinary(false).allowZone(false);
        return b.toParams();
    }

    /** {@code 1d}, {@code 1h} or milliseconds, the way the bounds are written in the README. */
    private static String format(Duration d) {
        return d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))
                ? (d.toHours() % 24 == 0 ? d.toDays() + "d" : d.toHours() + "h") : d.toMillis() + "ms";
    }
}
