package io.gridlimit.micronaut.config;

import inet.ipaddr.IPAddress;

import java.util.List;

/**
 * Checked {@code gridlimit.client-ip} settings (SPEC §6). Immutable and thread-safe.
 *
 * @param trustedProxies the networks whose {@code Forwarded} / {@code X-Forwarded-For} headers are believed, as
 *     prefix blocks (a single address is a /32 or /128 block); empty: the socket peer is always the client
 * @param ipv6Prefix the prefix length IPv6 clients are keyed by, in [1, 128]; 128 keys single addresses
 * @param header the one forwarding header the trusted proxies write; the other is ignored
 */
public record ClientIpSettings(List<IPAddress> trustedProxies, int ipv6Prefix, ForwardingHeader header) {
    /** Default {@code ipv6-prefix}: one site rotating addresses inside its /64 stays one key. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /**
     * Creates the settings with the default header, {@code X-Forwarded-For}.
     *
     * @param trustedProxies see the record
     * @param ipv6Prefix see the record
     * @throws IllegalArgumentException if {@code ipv6Prefix} is out of [1, 128]
     */
    public ClientIpSettings(List<IPAddress> trustedProxies, int ipv6Prefix) {
        this(trustedProxies, ipv6Prefix, ForwardingHeader.X_FORWARDED_FOR);
    }

    /**
     * Creates the settings.
     *
     * @throws IllegalArgumentException if {@code ipv6Prefix} is out of [1, 128]
     */
    public ClientIpSettings {
        trustedProxies = List.copyOf(trustedProxies);
        java.util.Objects.requireNonNull(header, "header");
        if (ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("ipv6-prefix must be in [1, 128], got " + ipv6Prefix);
        }
    }

    /**
     * Tells whether an address lies in a trusted proxy network.
     *
     * @param address an address without zone, IPv4-mapped addresses already converted to IPv4
     * @return true when some trusted network contains it
     */
    public boolean isTrusted(IPAddress address) {
        for (IPAddress network : trustedProxies) {
            if (network.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
