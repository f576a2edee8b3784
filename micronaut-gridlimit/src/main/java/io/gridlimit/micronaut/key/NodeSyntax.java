package io.gridlimit.micronaut.key;

import inet.ipaddr.AddressStringParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import inet.ipaddr.ipv4.IPv4Address;
import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The node syntax of the forwarding headers (SPEC §6): RFC 7239 §6 for a {@code Forwarded} {@code for=} value,
 * and the de-facto {@code X-Forwarded-For} entry. Only IP literals are addresses (no DNS lookup); ports are
 * checked and dropped. Stateless and thread-safe.
 */
public final class NodeSyntax {
    /** Strict IP literals: no wildcards, ranges, prefixes, masks, inet_aton forms, leading zeros or zones. */
    private static final IPAddressStringParameters LITERAL;

    static {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false).allowPrefix(false).allowMask(false)
                .allowPrefixOnly(false).allowWildcardedSeparator(false)
                .setRangeOptions(AddressStringParameters.RangeParameters.NO_RANGE);
        b.getIPv4AddressParametersBuilder().allow_inet_aton(false).allowLeadingZeros(false).allowBinary(false);
        b.getIPv6AddressParametersBuilder().allowBinary(false).allowZone(false).allowBase85(false)
                .allowEmptyZone(false);
        LITERAL = b.toParams();
    }

    private NodeSyntax() {
    }

    /**
     * Parses a {@code for=} value, already unquoted (RFC 7239 §6): {@code nodename [":" node-port]} with
     * nodename {@code IPv4address}, {@code "[" IPv6address "]"}, {@code unknown} or an obfuscated
     * {@code "_" 1*(ALPHA / DIGIT / "." / "_" / "-")}, and node-port {@code 1*5DIGIT} (at most 65535) or obfuscated.
     *
     * @param value the unquoted value, e.g. {@code 192.0.2.43}, {@code [2001:db8::17]:4711}, {@code _hidden}
     * @return the node, never null
     */
    public static ForwardingNode forwardedFor(String value) {
        if (value.startsWith("[")) {
            return bracketed(value, true);
        }
        int colon = value.indexOf(':');
        String host = colon < 0 ? value : value.substring(0, colon);
        String port = colon < 0 ? null : value.substring(colon + 1);
        if (host.toLowerCase(Locale.ROOT).equals("unknown") || isObfuscated(host)) {
            return withPort(ForwardingNode.hidden(), port, true);
        }
        IPAddress a = literal(host);
        if (a == null || !a.isIPv4()) {
            return ForwardingNode.malformed("a for= value that is not an IPv4 address, a bracketed IPv6 address, "
                    + "'unknown' or an obfuscated identifier");
        }
        return withPort(ForwardingNode.address(a), port, true);
    }

    /**
     * Splits one {@code X-Forwarded-For} line into its entries: comma-separated, optional whitespace (SP, HTAB)
     * around each; empty entries are ignored (RFC 9110 §5.6.1), so an empty line has none. An entry is an IPv4
     * address with an optional {@code :port}, an IPv6 address bare or bracketed (then with an optional
     * {@code :port}), or {@code unknown}.
     *
     * @param line one header line
     * @return its entries left to right, never null
     */
    public static List<ForwardingNode> xForwardedForLine(String line) {
        List<ForwardingNode> nodes = new ArrayList<>();
        for (String raw : line.split(",", -1)) {
            String entry = trimOws(raw);
            if (!entry.isEmpty()) {
                nodes.add(xForwardedFor(entry));
            }
        }
        return nodes;
    }

    private static ForwardingNode xForwardedFor(String entry) {
        if (entry.toLowerCase(Locale.ROOT).equals("unknown")) {
            return ForwardingNode.hidden();
        }
        if (entry.startsWith("[")) {
            return bracketed(entry, false);
        }
        int first = entry.indexOf(':');
        if (first >= 0 && first == entry.lastIndexOf(':')) {
            IPAddress a = literal(entry.substring(0, first));
            if (a == null || !a.isIPv4()) {
                return ForwardingNode.malformed("an X-Forwarded-For entry that is not an IP address");
            }
            return withPort(ForwardingNode.address(a), entry.substring(first + 1), false);
        }
        IPAddress a = literal(entry);
        if (a == null) {
            return ForwardingNode.malformed("an X-Forwarded-For entry that is not an IP address");
        }
        return ForwardingNode.address(ClientAddressKey.forTrust(a));
    }

    /** {@code "[" IPv6address "]" [":" port]}; the port may be obfuscated only in {@code Forwarded}. */
    private static ForwardingNode bracketed(String value, boolean obfuscatedPort) {
        int close = value.indexOf(']');
        if (close < 0) {
            return ForwardingNode.malformed("an unclosed '[' in a node");
        }
        String rest = value.substring(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(":")) {
            return ForwardingNode.malformed("text after ']' in a node");
        }
        IPAddress a = literal(value.substring(1, close));
        if (a == null || !a.isIPv6()) {
            return ForwardingNode.malformed("a bracketed node that is not an IPv6 address");
        }
        return withPort(ForwardingNode.address(ClientAddressKey.forTrust(a)), rest.isEmpty() ? null
                : rest.substring(1), obfuscatedPort);
    }

    /** A strict IP literal, or null. */
    private static @Nullable IPAddress literal(String host) {
        if (host.isEmpty()) {
            return null;
        }
        IPAddress quad = dottedQuad(host);
        return quad != null ? quad : parsed(host); // the common case without the general parser
    }

    /** A strict IP literal as the general parser ({@link #LITERAL}) reads it, or null. */
    static @Nullable IPAddress parsed(String host) {
        if (host.isEmpty()) {
            return null;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean allowed = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                    || c == '.' || c == ':';
            if (!allowed) {
                return null;
            }
        }
        IPAddressString s = new IPAddressString(host, LITERAL);
        return s.isValid() ? s.getAddress() : null;
    }

    /**
     * An IPv4 address written as four decimal octets without leading zeros ({@code 0} alone is one), each at most
     * 255: exactly the IPv4 literals {@link #LITERAL} accepts, parsed without it. Anything else, null (the general
     * parser then decides, and refuses what is not a literal).
     */
    static @Nullable IPAddress dottedQuad(String host) {
        int n = host.length();
        if (n < 7 || n > 15) {
            return null;
        }
        int address = 0;
        int octets = 0;
        int i = 0;
        while (i < n) {
            int start = i;
            int value = 0;
            while (i < n && host.charAt(i) >= '0' && host.charAt(i) <= '9') {
                value = value * 10 + (host.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && host.charAt(start) == '0')) {
                return null;
            }
            address = (address << 8) | value;
            octets++;
            if (i < n) {
                if (host.charAt(i) != '.' || octets == 4) {
                    return null;
                }
                i++;
                if (i == n) {
                    return null; // a trailing dot
                }
            }
        }
        return octets == 4 ? new IPv4Address(address) : null;
    }

    private static ForwardingNode withPort(ForwardingNode node, @Nullable String port, boolean obfuscatedAllowed) {
        if (port == null) {
            return node;
        }
        if (obfuscatedAllowed && isObfuscated(port)) {
            return node;
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(port) > 65_535) {
            return ForwardingNode.malformed("a port that is not 1 to 5 digits of at most 65535");
        }
        return node;
    }

    /** RFC 7239 §6.3: {@code "_" 1*(ALPHA / DIGIT / "." / "_" / "-")}. */
    private static boolean isObfuscated(String s) {
        if (s.length() < 2 || s.charAt(0) != '_') {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** @return the string without leading and trailing SP and HTAB (RFC 9110 OWS) */
    static String trimOws(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
            end--;
        }
        return s.substring(start, end);
    }
}
