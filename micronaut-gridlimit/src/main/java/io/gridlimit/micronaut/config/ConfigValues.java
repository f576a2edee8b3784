package io.gridlimit.micronaut.config;

import inet.ipaddr.AddressStringException;
import inet.ipaddr.AddressStringParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import io.micronaut.core.annotation.Nullable;

import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Converts configured text into checked values, collecting one message per bad value ({@code <path>: <what is
 * wrong with 'value'>}); {@link #throwIfAny()} then stops the boot with all of them in one message. Not
 * thread-safe: one instance per configuration pass.
 */
final class ConfigValues {
    /** Strict IP literal or CIDR: no wildcards, ranges, inet_aton forms, leading zeros or empty strings. */
    static final IPAddressStringParameters STRICT_CIDR = strict(true);

    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern DURATION = Pattern.compile("([0-9]+)\\s*(ns|us|ms|s|m|h|d)");

    private final List<String> errors = new ArrayList<>();

    private static IPAddressStringParameters strict(boolean allowPrefix) {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false).allowPrefix(allowPrefix)
                .allowMask(false).allowPrefixOnly(false).allowWildcardedSeparator(false)
                .setRangeOptions(AddressStringParameters.RangeParameters.NO_RANGE);
        b.getIPv4AddressParametersBuilder().allow_inet_aton(false).allowLeadingZeros(false).allowBinary(false)
                .allowPrefixesBeyondAddressSize(false);
        b.getIPv6AddressParametersBuilder().allowBinary(false).allowPrefixesBeyondAddressSize(false);
        return b.toParams();
    }

    /**
     * Records a bad value.
     *
     * @param path the property path, e.g. {@code gridlimit.policies.demo.limit}
     * @param message what is wrong, quoting the value
     */
    void error(String path, String message) {
        errors.add(path + ": " + message);
    }

    /** @return true when no error was recorded */
    boolean ok() {
        return errors.isEmpty();
    }

    /**
     * Stops the boot when any value was bad.
     *
     * @throws io.micronaut.context.exceptions.ConfigurationException listing every recorded error
     */
    void throwIfAny() {
        if (!errors.isEmpty()) {
            throw new io.micronaut.context.exceptions.ConfigurationException(
                    "Invalid GridLimit configuration: " + String.join("; ", errors));
        }
    }

    static boolean isBlank(@Nullable String s) {
        return s == null || s.isBlank();
    }

    /**
     * Parses a whole number in [min, max].
     *
     * @return the value, or {@code fallback} when unset, or null (error recorded) when bad
     */
    @Nullable Long integer(String path, @Nullable String text, long min, long max, @Nullable Long fallback) {
        if (isBlank(text)) {
            if (fallback == null) {
                error(path, "missing");
            }
            return fallback;
        }
        String t = text.trim();
        if (!INTEGER.matcher(t).matches()) {
            error(path, "'" + text + "' is not a whole number");
            return null;
        }
        BigInteger v = new BigInteger(t);
        if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            error(path, "'" + text + "' is out of range [" + min + ", " + max + "]");
            return null;
        }
        return v.longValue();
    }

    /**
     * Parses a duration in [min, max]: {@code <n><unit>} with unit ns, us, ms, s, m, h or d ({@code 100ms},
     * {@code 10s}), or ISO-8601 ({@code PT10S}). A bare number is refused: its unit would be a guess.
     *
     * @return the value, or {@code fallback} when unset, or null (error recorded) when bad
     */
    @Nullable Duration duration(String path, @Nullable String text, Duration min, Duration max,
                                @Nullable Duration fallback) {
        if (isBlank(text)) {
            if (fallback == null) {
                error(path, "missing");
            }
            return fallback;
        }
        String t = text.trim();
        Duration d = null;
        Matcher m = DURATION.matcher(t.toLowerCase(Locale.ROOT));
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                d = switch (m.group(2)) {
                    case "ns" -> Duration.ofNanos(n);
                    case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1_000L));
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            } else if (t.toUpperCase(Locale.ROOT).startsWith("P")) {
                d = Duration.parse(t);
            }
        } catch (ArithmeticException | NumberFormatException | DateTimeParseException e) {
            d = null;
            if (m.matches()) {
                error(path, "'" + text + "' is out of range [" + format(min) + ", " + format(max) + "]");
                return null;
            }
        }
        if (d == null) {
            error(path, "'" + text + "' is not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)");
            return null;
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            error(path, "'" + text + "' is out of range [" + format(min) + ", " + format(max) + "]");
            return null;
        }
        return d;
    }

    private static String format(Duration d) {
        if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
            return d.toDays() + "d";
        }
        if (d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))) {
            return d.toHours() + "h";
        }
        return d.toMillis() + "ms";
    }

    /**
     * Parses an enum value written in kebab case ({@code failure-mode: open}), case-insensitively.
     *
     * @return the value, or {@code fallback} when unset, or null (error recorded) when bad
     */
    <E extends Enum<E>> @Nullable E enumValue(String path, @Nullable String text, Class<E> type, E fallback) {
        if (isBlank(text)) {
            return fallback;
        }
        String t = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(t)) {
                return e;
            }
        }
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            names.add(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        error(path, "'" + text + "' is not one of " + String.join(", ", names));
        return null;
    }

    /**
     * Parses {@code true} or {@code false}, case-insensitively.
     *
     * @return the value, or {@code fallback} when unset, or null (error recorded) when bad
     */
    @Nullable Boolean bool(String path, @Nullable String text, boolean fallback) {
        if (isBlank(text)) {
            return fallback;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("true") || t.equals("false")) {
            return Boolean.valueOf(t);
        }
        error(path, "'" + text + "' is not true or false");
        return null;
    }

    /**
     * Parses an IP address or CIDR (IPv4 or IPv6) into its prefix block: {@code 10.0.0.0/8},
     * {@code 2001:db8::/32}, or a single address ({@code 203.0.113.7} is {@code 203.0.113.7/32}).
     *
     * @return the network, or null (error recorded) when malformed
     */
    @Nullable IPAddress cidr(String path, @Nullable String text) {
        if (isBlank(text)) {
            error(path, "'" + (text == null ? "" : text) + "' is not an IP address or CIDR");
            return null;
        }
        try {
            IPAddress a = new IPAddressString(text.trim(), STRICT_CIDR).toAddress();
            if (a.isIPv6() && a.toIPv6().hasZone()) {
                a = a.toIPv6().removeZone();
            }
            if (a.isIPv6() && a.toIPv6().isIPv4Mapped() && (a.getNetworkPrefixLength() == null
                    || a.getNetworkPrefixLength() >= 96)) {
                Integer p = a.getNetworkPrefixLength();
                IPAddress v4 = a.toIPv6().withoutPrefixLength().toIPv4();
                a = p == null ? v4 : v4.setPrefixLength(p - 96, false);
            }
            return a.getNetworkPrefixLength() == null ? a.toPrefixBlock(a.getBitCount()) : a.toPrefixBlock();
        } catch (AddressStringException | RuntimeException e) {
            error(path, "'" + text + "' is not an IP address or CIDR");
            return null;
        }
    }
}
