package io.gridlimit.micronaut.config;

import inet.ipaddr.IPAddress;

import java.util.List;

/**
 * Checked {@code gridlimit.client-ip} settings (SPEC §6). Immutable and thread-safe.
 *
 * @param trustedProxies the networks whose {@code Forwarded} / {@code X-Forwarded-For} headers are believed, as
 *     prefix blocks (a single address is a /32 or /128 block); empty: the socket peer is always the client
 * @param ipv6Prefix the prefix length IPv6 clients are keyed by, in [1, 128]; 128 keys single addresses
 */
public record ClientIpSettings(List<IPAddress> trustedProxies, int ipv6Prefix) {
    /** Default {@code ipv6-prefix}: one site rotating addresses inside its /64 stays one key. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    /**
     * Creates the settings.
     *
     * @throws IllegalArgumentException if {@code ipv6Prefix} is out of [1, 128]
     */
    public ClientIpSettings {
        trustedProxies = List.copyOf(trustedProxies);
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
