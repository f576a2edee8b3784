package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddressString;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §6 address keys: special IPv6 first, then embedded IPv4, then the prefix rule. */
class ClientAddressKeyTest {
    @ParameterizedTest(name = "{0} /{1} -> {2}")
    @CsvSource({
        // IPv4
        "203.0.113.7, 64, ip:203.0.113.7",
        // special IPv6: single addresses, never a prefix
        "::1, 64, ip:::1",
        "::, 64, ip:::",
        "fe80::1, 64, ip:fe80::1",
        "fe80::a:b:c:d, 64, ip:fe80::a:b:c:d",
        "febf:ffff::1, 48, ip:febf:ffff::1",
        // embedded IPv4
        "::ffff:203.0.113.8, 64, ip:203.0.113.8",
        "::ffff:0:203.0.113.9, 64, ip:203.0.113.9",
        "::203.0.113.10, 64, ip:203.0.113.10",
        "::2, 64, ip:0.0.0.2",
        "64:ff9b::198.51.100.1, 64, ip:198.51.100.1",
        "64:ff9b::c633:6402, 128, ip:198.51.100.2",
        "2002:cb00:7108::1, 64, ip:203.0.113.8",
        "2002:cb00:7108:ffff:1:2:3:4, 128, ip:203.0.113.8",
        // the prefix rule: global unicast, ULA, and prefixes near the embedded ranges
        "2001:db8:1:2::7, 64, ip:2001:db8:1:2::/64",
        "2001:db8:1:2::7, 128, ip:2001:db8:1:2::7",
        "2001:db8:aa:bb::1, 48, ip:2001:db8:aa::/48",
        "fd12:3456:789a:1::1, 64, ip:fd12:3456:789a:1::/64",
        "fc00::1, 64, ip:fc00::/64",
        "fec0::1, 64, ip:fec0::/64",
        "64:ff9b:1::198.51.100.1, 64, ip:64:ff9b:1::/64",
        "2003:cb00:7108::1, 64, ip:2003:cb00:7108::/64",
    })
    void keys(String address, int prefix, String key) {
        assertThat(ClientAddressKey.key(new IPAddressString(address).getAddress(), prefix)).isEqualTo(key);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"::ffff:10.0.0.1, 10.0.0.1", "fe80::1%eth0, fe80::1", "64:ff9b::10.0.0.1, 64:ff9b::a00:1",
        "::10.0.0.1, ::a00:1", "10.0.0.1, 10.0.0.1"})
    void onlyIpv4MappedIsIpv4ForTheTrustCheck(String address, String forTrust) {
        assertThat(ClientAddressKey.forTrust(new IPAddressString(address).getAddress()).toCanonicalString())
                .isEqualTo(forTrust);
    }
}
