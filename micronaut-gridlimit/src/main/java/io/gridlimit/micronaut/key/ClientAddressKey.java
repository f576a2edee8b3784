package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressNetwork;
import inet.ipaddr.ipv6.IPv6Address;

import java.net.InetAddress;

/**
 * The key part of a client address (SPEC §6), so that one client gets one key and one IPv4 owner one quota.
 * In this order:
 * <ol>
 *   <li>IPv4: {@code ip:203.0.113.7}.</li>
 *   <li>IPv6 loopback {@code ::1}, unspecified {@code ::} and link-local {@code fe80::/10}: the single address
 *       ({@code ip:::1}, {@code ip:fe80::1}); they are never aggregated into a prefix.</li>
 *   <li>IPv6 embedding an IPv4 address: the IPv4 key of that address. IPv4-mapped {@code ::ffff:0:0/96},
 *       IPv4-translated {@code ::ffff:0:0:0/96} (RFC 2765), IPv4-compatible {@code ::/96} (RFC 4291 §2.5.5.1),
 *       the NAT64 well-known prefix {@code 64:ff9b::/96} (RFC 6052): the low 32 bits; 6to4 {@code 2002::/16}
 *       (RFC 3056): bits 16 to 47, so a 6to4 site's 65,536 /64 networks are one key.</li>
 *   <li>Every other IPv6 address (global unicast, unique local {@code fc00::/7}, ...): its
 *       {@code ipv6-prefix} network, {@code ip:2001:db8:1:2::/64}, or the single address when the prefix is 128.</li>
 * </ol>
 * IPv6 is written in RFC 5952 form. Stateless and thread-safe.
 */
public final class ClientAddressKey {
    private static final IPAddressNetwork.IPAddressGenerator GENERATOR = new IPAddressNetwork.IPAddressGenerator();

    private ClientAddressKey() {
    }

    /**
     * The form an address is compared with {@code trusted-proxies} in: zone dropped, IPv4-mapped IPv6 (a
     * dual-stack socket's view of an IPv4 peer) converted to IPv4; every other IPv6 address stays IPv6.
     *
     * @param address any address
     * @return the address for the trust check, without prefix length
     */
    public static IPAddress forTrust(IPAddress address) {
        IPAddress a = address.withoutPrefixLength();
        if (a.isIPv6()) {
            IPv6Address v6 = a.toIPv6();
            if (v6.hasZone()) {
                v6 = v6.removeZone();
            }
            return v6.isIPv4Mapped() ? v6.toIPv4() : v6;
        }
        return a;
    }

    /**
     * @param address a socket address
     * @return {@link #forTrust(IPAddress)} of it
     */
    public static IPAddress forTrust(InetAddress address) {
        return forTrust(GENERATOR.from(address.getAddress()));
    }

    /**
     * The key part of an address.
     *
     * @param address an address without zone
     * @param ipv6Prefix the {@code ipv6-prefix}, in [1, 128]
     * @return {@code ip:<IPv4>}, {@code ip:<IPv6>} or {@code ip:<IPv6 network>/<ipv6Prefix>}, never null
     */
    public static String key(IPAddress address, int ipv6Prefix) {
        IPAddress a = forTrust(address);
        if (a.isIPv4()) {
            return "ip:" + a.toCanonicalString();
        }
        IPv6Address v6 = a.toIPv6();
        if (v6.isLoopback() || v6.isUnspecified() || v6.isLinkLocal()) {
            return "ip:" + v6.toCanonicalString();
        }
        if (v6.isIPv4Translatable() || v6.isIPv4Compatible() || v6.isWellKnownIPv4Translatable()) {
            return "ip:" + v6.getEmbeddedIPv4Address().toCanonicalString();
        }
        if (v6.is6To4()) {
            return "ip:" + v6.get6To4IPv4Address().toCanonicalString();
        }
        if (ipv6Prefix == 128) {
            return "ip:" + v6.toCanonicalString();
        }
        IPAddress network = v6.toPrefixBlock(ipv6Prefix).getLower().withoutPrefixLength();
        return "ip:" + network.toCanonicalString() + "/" + ipv6Prefix;
    }
}
