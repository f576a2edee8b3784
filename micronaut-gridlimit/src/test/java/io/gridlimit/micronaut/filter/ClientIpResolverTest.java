package io.gridlimit.micronaut.filter;

import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import io.gridlimit.micronaut.config.ClientIpSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §6 client IP resolution, without HTTP. */
class ClientIpResolverTest {
    private static final List<String> NONE = List.of();

    private static IPAddress block(String cidr) {
        IPAddress a = new IPAddressString(cidr).getAddress();
        return a.getNetworkPrefixLength() == null ? a.toPrefixBlock(a.getBitCount()) : a.toPrefixBlock();
    }

    private static ClientIpResolver resolver(int ipv6Prefix, String... trusted) {
        return new ClientIpResolver(new ClientIpSettings(
                java.util.Arrays.stream(trusted).map(ClientIpResolverTest::block).toList(), ipv6Prefix));
    }

    private static InetSocketAddress peer(String ip) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(ip), 40_000);
    }

    @Test
    void anUntrustedPeerIsTheClientWhateverItsHeadersSay() throws Exception {
        ClientIpResolver r = resolver(64, "10.0.0.0/8");
        assertThat(r.clientKey(peer("203.0.113.7"), List.of("for=198.51.100.1"), List.of("198.51.100.2")))
                .contains("ip:203.0.113.7");
    }

    @Test
    void aTrustedPeerWithoutForwardingHeadersIsTheClient() throws Exception {
        assertThat(resolver(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), NONE, NONE)).contains("ip:10.0.0.1");
    }

    @Test
    void theWalkGoesRightToLeftPastTrustedProxiesOverAllHeaderLines() throws Exception {
        ClientIpResolver r = resolver(64, "10.0.0.0/8", "192.0.2.0/24");
        assertThat(r.clientKey(peer("10.0.0.1"), NONE, List.of("198.51.100.9, 203.0.113.5", "192.0.2.1, 10.2.2.2")))
                .contains("ip:203.0.113.5");
        // a spoofed left part is never reached
        assertThat(r.clientKey(peer("10.0.0.1"), NONE, List.of("1.1.1.1, 203.0.113.6"))).contains("ip:203.0.113.6");
        // every element trusted: the leftmost is the client
        assertThat(r.clientKey(peer("10.0.0.1"), NONE, List.of("192.0.2.9, 10.3.3.3"))).contains("ip:192.0.2.9");
    }

    @Test
    void forwardedWinsOverXForwardedForAndItsSyntaxIsHonoured() throws Exception {
        ClientIpResolver r = resolver(64, "10.0.0.0/8");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=198.51.100.17;proto=http;by=203.0.113.43"),
                List.of("203.0.113.99"))).contains("ip:198.51.100.17");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("For=\"[2001:db8:cafe::17]:4711\", for=10.1.1.1"), NONE))
                .contains("ip:2001:db8:cafe::/64");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=192.0.2.60;proto=http", "for=\"10.9.9.9:80\""), NONE))
                .contains("ip:192.0.2.60");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=\"198.51.100.3:_port\""), NONE))
                .contains("ip:198.51.100.3");
    }

    @ParameterizedTest(name = "[{0}]")
    @CsvSource(delimiter = '|', value = {
        "for=unknown", "for=_hidden", "for=proxy.example", "proto=https", "for=\"1.2.3.4:99999\"",
        "for=1.2.3", "for=\"[2001:db8::1\"", "for=01.2.3.4", "for=1.2.3.4/24"})
    void anUnusableForwardedElementWhereTheClientShouldBeMeansNoKey(String forwarded) throws Exception {
        assertThat(resolver(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(forwarded), NONE)).isEmpty();
    }

    @Test
    void anUnusableElementLeftOfTheClientIsNeverLookedAt() throws Exception {
        assertThat(resolver(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), NONE, List.of("garbage, 203.0.113.1")))
                .contains("ip:203.0.113.1");
        assertThat(resolver(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), NONE, List.of("203.0.113.1, unknown")))
                .isEmpty();
    }

    @Test
    void ipv6IsWrittenInRfc5952FormAndKeyedByItsPrefix() throws Exception {
        ClientIpResolver r64 = resolver(64, "127.0.0.1");
        for (String form : List.of("2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1", "2001:0db8:0000:0000:0001::0001",
                "[2001:db8::1:0:0:1]:8443", "2001:db8::ffff:1:2:3")) {
            assertThat(r64.clientKey(peer("127.0.0.1"), NONE, List.of(form))).as(form).contains("ip:2001:db8::/64");
        }
        ClientIpResolver r128 = resolver(128, "127.0.0.1");
        assertThat(r128.clientKey(peer("127.0.0.1"), NONE, List.of("2001:DB8:0:0:1:0:0:1")))
                .contains("ip:2001:db8::1:0:0:1");
        assertThat(r128.clientKey(peer("127.0.0.1"), NONE, List.of("2001:db8:0:1:1:1:1:1")))
                .contains("ip:2001:db8:0:1:1:1:1:1");
        ClientIpResolver r48 = resolver(48, "127.0.0.1");
        assertThat(r48.clientKey(peer("127.0.0.1"), NONE, List.of("2001:db8:aa:bb::1")))
                .contains("ip:2001:db8:aa::/48");
        assertThat(r64.clientKey(peer("2001:db8:1:2::99"), NONE, NONE)).contains("ip:2001:db8:1:2::/64");
    }

    @Test
    void ipv4MappedIpv6IsIpv4ForKeysAndTrust() throws Exception {
        ClientIpResolver r = resolver(64, "10.0.0.0/8");
        assertThat(r.clientKey(peer("::ffff:203.0.113.8"), NONE, NONE)).contains("ip:203.0.113.8");
        assertThat(r.clientKey(peer("::ffff:10.0.0.1"), NONE, List.of("::ffff:198.51.100.4")))
                .contains("ip:198.51.100.4");
    }

    @Test
    void noPeerMeansNoKey() {
        assertThat(resolver(64).clientKey(null, NONE, NONE)).isEqualTo(Optional.empty());
    }
}
