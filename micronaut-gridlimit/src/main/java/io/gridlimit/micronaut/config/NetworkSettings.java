package io.gridlimit.micronaut.config;

import inet.ipaddr.AddressStringParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;
import io.micronaut.core.annotation.Nullable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Maps {@code gridlimit.client-ip} and {@code gridlimit.hazelcast} onto {@link ClientIpSettings} and
 * {@link HazelcastSettings} for {@link GridLimitConfigFactory}, recording one message per bad value: a malformed
 * CIDR, trusted proxies covering every address without {@code trust-any-address}, a malformed interface or member,
 * a non-loopback member of a member bound to the default interfaces, an unreadable config file, a missing cluster
 * name (SPEC §6, README "Configuration reference").
 */
final class NetworkSettings {
    private static final String INTERFACE = "((\\d{1,3}|\\*|\\d{1,3}-\\d{1,3})\\.){3}(\\d{1,3}|\\*|\\d{1,3}-\\d{1,3})";
    private static final IPAddressStringParameters STRICT_CIDR = strictCidr();

    private static IPAddressStringParameters strictCidr() {
        IPAddressStringParameters.Builder b = new IPAddressStringParameters.Builder()
                .allowEmpty(false).allowAll(false).allowSingleSegment(false).allowPrefix(true)
                .allowMask(false).allowPrefixOnly(false).allowWildcardedSeparator(false)
                .setRangeOptions(AddressStringParameters.RangeParameters.NO_RANGE);
        b.getIPv4AddressParametersBuilder().allow_inet_aton(false).allowLeadingZeros(false).allowBinary(false)
                .allowPrefixesBeyondAddressSize(false);
        b.getIPv6AddressParametersBuilder().allowBinary(false).allowPrefixesBeyondAddressSize(false);
        return b.toParams();
    }

    private NetworkSettings() {
    }

    static ClientIpSettings clientIp(GridLimitProperties.ClientIp c, Set<String> errors) {
        List<IPAddress> trusted = new ArrayList<>();
        List<String> proxies = c.trustedProxies() == null ? List.of() : c.trustedProxies();
        for (int i = 0; i < proxies.size(); i++) {
            String path = "gridlimit.client-ip.trusted-proxies[" + i + "]";
            IPAddress a = cidr(proxies.get(i));
            if (a == null) {
                errors.add(path + ": '" + proxies.get(i) + "' is not an IP address or CIDR");
            } else if (hostBitsSet(proxies.get(i))) {
                errors.add(path + ": '" + proxies.get(i) + "' has address bits set beyond its /" + a.getPrefixLength()
                        + " prefix; write " + a.toCanonicalString() + " for the network or the address alone for "
                        + "one proxy");
            } else if (a.getPrefixLength() == 0 && !c.trustAnyAddress()) {
                errors.add(path + ": '" + proxies.get(i) + "' trusts every address, so any client could choose "
                        + "its own key; set gridlimit.client-ip.trust-any-address: true if that is meant");
            } else {
                trusted.add(a);
            }
        }
        if (!c.trustAnyAddress() && !trusted.isEmpty()) {
            coversEverything(trusted, true).ifPresent(errors::add);
            coversEverything(trusted, false).ifPresent(errors::add);
        }
        return new ClientIpSettings(trusted, c.ipv6Prefix(), c.header());
    }

    /** Trusted networks that together cover every IPv4 (or IPv6) address, as {@code 0.0.0.0/1, 128.0.0.0/1} do. */
    private static java.util.Optional<String> coversEverything(List<IPAddress> trusted, boolean ipv4) {
        List<IPAddress> family = trusted.stream().filter(a -> a.isIPv4() == ipv4).toList();
        if (family.size() < 2) {
            return java.util.Optional.empty(); // a single /0 is refused on its own above
        }
        IPAddress[] merged = family.get(0).mergeToPrefixBlocks(family.subList(1, family.size()).toArray(new IPAddress[0]));
        boolean all = merged.length == 1 && merged[0].getPrefixLength() != null && merged[0].getPrefixLength() == 0;
        return all ? java.util.Optional.of("gridlimit.client-ip.trusted-proxies: " + family + " together trust every "
                + (ipv4 ? "IPv4" : "IPv6") + " address, so any client could choose its own key; set "
                + "gridlimit.client-ip.trust-any-address: true if that is meant") : java.util.Optional.empty();
    }

    /** True when a CIDR such as {@code 10.1.2.3/8} names a network with bits set beyond its prefix. */
    private static boolean hostBitsSet(String text) {
        try {
            IPAddress a = new IPAddressString(String.valueOf(text).trim(), STRICT_CIDR).toAddress();
            return a.getNetworkPrefixLength() != null && !a.isPrefixBlock();
        } catch (inet.ipaddr.AddressStringException | RuntimeException e) {
            return false;
        }
    }

    /** An IP address or CIDR as its prefix block; an IPv4-mapped IPv6 one as IPv4; null when malformed. */
    private static @Nullable IPAddress cidr(@Nullable String text) {
        try {
            IPAddress a = new IPAddressString(String.valueOf(text).trim(), STRICT_CIDR).toAddress();
            a = a.isIPv6() && a.toIPv6().hasZone() ? a.toIPv6().removeZone() : a;
            Integer p = a.getNetworkPrefixLength();
            if (a.isIPv6() && a.toIPv6().isIPv4Mapped() && (p == null || p >= 96)) {
                IPAddress v4 = a.toIPv6().withoutPrefixLength().toIPv4();
                a = p == null ? v4 : v4.setPrefixLength(p - 96, false);
            }
            return a.getNetworkPrefixLength() == null ? a.toPrefixBlock(a.getBitCount()) : a.toPrefixBlock();
        } catch (inet.ipaddr.AddressStringException | RuntimeException e) {
            return null;
        }
    }

    static HazelcastSettings hazelcast(GridLimitProperties.Hazelcast h, Set<String> errors,
                                       @Nullable String applicationName) {
        String p = "gridlimit.hazelcast";
        List<String> members = h.members() == null ? List.of("127.0.0.1") : h.members();
        List<String> interfaces = h.interfaces() == null ? HazelcastSettings.DEFAULT_INTERFACES : h.interfaces();
        Path configFile = h.configFile() == null || h.configFile().isBlank() ? null : Path.of(h.configFile().trim());
        if (configFile != null && !(Files.isRegularFile(configFile) && Files.isReadable(configFile))) {
            errors.add(p + ".config-file: '" + h.configFile() + "' is not a readable file");
        }
        for (int i = 0; i < interfaces.size(); i++) {
            String a = String.valueOf(interfaces.get(i)).trim();
            if (a.equals("0.0.0.0") || a.equals("::") || a.equals("[::]")) {
                errors.add(p + ".interfaces[" + i + "]: '" + interfaces.get(i) + "' is the wildcard address, not an "
                        + "interface: list this host's own addresses or a pattern such as 10.0.1.*");
            } else if (!a.matches(INTERFACE) && cidr(a) == null) {
                errors.add(p + ".interfaces[" + i + "]: '" + interfaces.get(i) + "' is not an IP address or "
                        + "Hazelcast interface pattern (10.0.1.*, 10.0.1.10-20)");
            }
        }
        for (int i = 0; i < members.size(); i++) {
            String m = String.valueOf(members.get(i)).trim();
            String host = m.startsWith("[") ? m.replaceAll("^\\[(.*)\\](:\\d+)?$", "$1")
                    : m.chars().filter(ch -> ch == ':').count() == 1 ? m.substring(0, m.indexOf(':')) : m;
            IPAddress address = new IPAddressString(host).getAddress();
            if (m.isEmpty() || m.chars().anyMatch(Character::isWhitespace)) {
                errors.add(p + ".members[" + i + "]: '" + members.get(i) + "' is not a host or host:port");
            } else if (h.mode() == HazelcastMode.EMBEDDED && configFile == null && h.interfaces() == null
                    && !host.equals("localhost") && (address == null || !address.isLoopback())) {
                errors.add(p + ".members[" + i + "]: '" + m + "' is not on this host, but the member binds only to "
                        + p + ".interfaces (default 127.0.0.1): set " + p + ".interfaces to this host's address");
            }
        }
        String clusterName = h.clusterName() != null && !h.clusterName().isBlank() ? h.clusterName().trim()
                : h.mode() == HazelcastMode.CLIENT ? null
                : applicationName == null || applicationName.isBlank() ? null : applicationName.trim();
        if (clusterName == null && configFile == null) {
            errors.add(p + ".cluster-name: missing: " + (h.mode() == HazelcastMode.CLIENT
                    ? "a client must name the cluster it joins" : "set it, or micronaut.application.name (its "
                    + "default), so that two applications never join one cluster by accident"));
        }
        return new HazelcastSettings(h.mode(), clusterName == null ? "" : clusterName, h.port(), members,
                configFile, h.maxKeysPerMember(), h.minClusterSize(), interfaces);
    }
}
