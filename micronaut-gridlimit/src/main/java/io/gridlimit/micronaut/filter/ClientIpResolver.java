package io.gridlimit.micronaut.filter;

import inet.ipaddr.AddressStringParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressNetwork;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a request's client IP and its key part (SPEC §6), from the socket peer and, only when the peer is a
 * trusted proxy, the {@code Forwarded} (RFC 7239) or {@code X-Forwarded-For} header. Micronaut's default
 * client-address resolver believes those headers from anyone and is not used.
 *
 * <p>Rules: all lines of a header are joined in order; when both headers are present {@code Forwarded} wins. The
 * walk goes from the right past trusted proxies; the first other element is the client. Only IP literals count
 * (no DNS lookup; ports stripped); an {@code unknown}, obfuscated or malformed element where the client should be
 * means no client IP (the rule's {@code on-missing-key} applies). A trusted peer that sends no forwarding header is
 * itself the client; when every element is a trusted proxy, the leftmost is the client. IPv4-mapped IPv6 is IPv4;
 * IPv6 is written in RFC 5952 form and keyed by its {@code ipv6-prefix} network ({@code ip:2001:db8:1:2::/64}),
 * or as a single address when the prefix is 128. Immutable and thread-safe.
 */
@Singleton
public class ClientIpResolver {
    /** Request header of RFC 7239. */
    public static final String FORWARDED = "Forwarded";
    /** The de-facto forwarding header. */
    public static final String X_FORWARDED_FOR = "X-Forwarded-For";

    private static final IPAddressStringParameters LITERAL;
    private static final IPAddressNetwork.IPAddressGenerator GENERATOR = new IPAddressNetwork.IPAddressGenerator();

    static {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false).allowPrefix(false).allowMask(false)
                .allowPrefixOnly(false).allowWildcardedSeparator(false)
                .setRangeOptions(AddressStringParameters.RangeParameters.NO_RANGE);
        b.getIPv4AddressParametersBuilder().allow_inet_aton(false).allowLeadingZeros(false).allowBinary(false);
        b.getIPv6AddressParametersBuilder().allowBinary(false);
        LITERAL = b.toParams();
    }

    private final ClientIpSettings settings;

    /** @param config the checked configuration; its {@code client-ip} settings are used */
    @jakarta.inject.Inject
    public ClientIpResolver(GridLimitConfig config) {
        this(config.clientIp());
    }

    /** @param settings trusted proxies and IPv6 prefix */
    public ClientIpResolver(ClientIpSettings settings) {
        this.settings = settings;
    }

    /**
     * Resolves the client's key part.
     *
     * @param peer the socket peer ({@code HttpRequest#getRemoteAddress()}), may be null
     * @param forwarded the {@code Forwarded} header lines in order, may be empty
     * @param xForwardedFor the {@code X-Forwarded-For} header lines in order, may be empty
     * @return {@code ip:<address>} or {@code ip:<network>/<n>}, or empty when no client IP can be determined
     */
    public Optional<String> clientKey(@Nullable InetSocketAddress peer, List<String> forwarded,
                                      List<String> xForwardedFor) {
        return client(peer, forwarded, xForwardedFor).map(this::key);
    }

    /**
     * Resolves the client address.
     *
     * @param peer the socket peer, may be null
     * @param forwarded the {@code Forwarded} header lines in order, may be empty
     * @param xForwardedFor the {@code X-Forwarded-For} header lines in order, may be empty
     * @return the client address (zone dropped, IPv4-mapped converted to IPv4), or empty
     */
    public Optional<IPAddress> client(@Nullable InetSocketAddress peer, List<String> forwarded,
                                      List<String> xForwardedFor) {
        if (peer == null || peer.getAddress() == null) {
            return Optional.empty();
        }
        IPAddress peerAddress = normalise(peer.getAddress());
        if (!settings.isTrusted(peerAddress)) {
            return Optional.of(peerAddress);
        }
        List<String> nodes;
        if (!forwarded.isEmpty()) {
            nodes = forwardedNodes(String.join(",", forwarded));
        } else if (!xForwardedFor.isEmpty()) {
            nodes = new ArrayList<>();
            for (String part : String.join(",", xForwardedFor).split(",", -1)) {
                nodes.add(part.trim());
            }
        } else {
            return Optional.of(peerAddress);
        }
        IPAddress leftmost = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Optional<IPAddress> node = parseNode(nodes.get(i));
            if (node.isEmpty()) {
                return Optional.empty();
            }
            if (!settings.isTrusted(node.get())) {
                return node;
            }
            leftmost = node.get();
        }
        return Optional.ofNullable(leftmost);
    }

    /**
     * The key part of an address: {@code ip:203.0.113.7}; for IPv6 with a prefix below 128 the network,
     * {@code ip:2001:db8:1:2::/64}; else {@code ip:2001:db8::1}.
     *
     * @param address an address without zone, IPv4-mapped already converted
     * @return the key part, never null
     */
    public String key(IPAddress address) {
        if (address.isIPv4() || settings.ipv6Prefix() == 128) {
            return "ip:" + address.withoutPrefixLength().toCanonicalString();
        }
        IPAddress network = address.toPrefixBlock(settings.ipv6Prefix()).getLower().withoutPrefixLength();
        return "ip:" + network.toCanonicalString() + "/" + settings.ipv6Prefix();
    }

    private static IPAddress normalise(InetAddress inet) {
        return normalise(GENERATOR.from(inet.getAddress()));
    }

    private static IPAddress normalise(IPAddress a) {
        if (a.isIPv6()) {
            if (a.toIPv6().hasZone()) {
                a = a.toIPv6().removeZone();
            }
            if (a.toIPv6().isIPv4Mapped()) {
                a = a.toIPv6().toIPv4();
            }
        }
        return a.withoutPrefixLength();
    }

    /**
     * Splits a joined {@code Forwarded} value into its elements' {@code for} values (RFC 7239 §4), honouring
     * quoted strings. An element without {@code for} yields an empty string (not an IP literal).
     */
    static List<String> forwardedNodes(String value) {
        List<String> nodes = new ArrayList<>();
        String forValue = null;
        StringBuilder pair = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i <= value.length(); i++) {
            char c = i < value.length() ? value.charAt(i) : ',';
            if (quoted) {
                if (c == '\\' && i + 1 < value.length()) {
                    pair.append(value.charAt(++i));
                    continue;
                }
                if (c == '"') {
                    quoted = false;
                }
                pair.append(c);
                continue;
            }
            if (c == '"') {
                quoted = true;
                pair.append(c);
            } else if (c == ';' || c == ',') {
                String v = forValue(pair.toString());
                if (v != null) {
                    forValue = v;
                }
                pair.setLength(0);
                if (c == ',') {
                    nodes.add(forValue == null ? "" : forValue);
                    forValue = null;
                }
            } else {
                pair.append(c);
            }
        }
        return nodes;
    }

    private static @Nullable String forValue(String pair) {
        int eq = pair.indexOf('=');
        if (eq < 0) {
            return null;
        }
        if (!pair.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals("for")) {
            return null;
        }
        String v = pair.substring(eq + 1).trim();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        return v;
    }

    /**
     * Parses one node: {@code 192.0.2.43}, {@code 192.0.2.43:47011}, {@code [2001:db8::17]},
     * {@code [2001:db8::17]:4711} or a bare IPv6 literal. Ports (digits, or RFC 7239 obfuscated {@code _x}) are
     * stripped; anything else ({@code unknown}, {@code _hidden}, host names, garbage) is not an IP literal.
     */
    static Optional<IPAddress> parseNode(String raw) {
        String node = raw == null ? "" : raw.trim();
        if (node.length() >= 2 && node.startsWith("\"") && node.endsWith("\"")) {
            node = node.substring(1, node.length() - 1).trim();
        }
        String host;
        if (node.startsWith("[")) {
            int close = node.indexOf(']');
            if (close < 0 || !validPortSuffix(node.substring(close + 1))) {
                return Optional.empty();
            }
            host = node.substring(1, close);
            if (host.indexOf(':') < 0) {
                return Optional.empty();
            }
        } else {
            int colon = node.indexOf(':');
            if (colon >= 0 && colon == node.lastIndexOf(':')) {
                if (!validPortSuffix(node.substring(colon))) {
                    return Optional.empty();
                }
                host = node.substring(0, colon);
                if (host.indexOf('.') < 0) {
                    return Optional.empty();
                }
            } else {
                host = node;
            }
        }
        if (host.isEmpty()) {
            return Optional.empty();
        }
        try {
            IPAddress a = new IPAddressString(host, LITERAL).toAddress();
            return Optional.of(normalise(a));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    private static boolean validPortSuffix(String suffix) {
        if (suffix.isEmpty()) {
            return true;
        }
        if (suffix.charAt(0) != ':' || suffix.length() == 1) {
            return false;
        }
        String port = suffix.substring(1);
        if (port.startsWith("_")) {
            return port.chars().allMatch(ch -> Character.isLetterOrDigit(ch) || ch == '.' || ch == '_' || ch == '-');
        }
        if (port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
            return false;
        }
        return Integer.parseInt(port) <= 65_535;
    }
}
