package io.gridlimit.micronaut.key;

import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.ForwardingHeader;
import io.gridlimit.micronaut.key.KeyPart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §6 client IP resolution, without HTTP: exact key parts for both forwarding headers. */
class ClientIpResolverTest {
    private static final List<String> NONE = List.of();

    static IPAddress block(String cidr) {
        IPAddress a = new IPAddressString(cidr).getAddress();
        return a.getNetworkPrefixLength() == null ? a.toPrefixBlock(a.getBitCount()) : a.toPrefixBlock();
    }

    private static ClientIpResolver xff(int ipv6Prefix, String... trusted) {
        return new ClientIpResolver(new ClientIpSettings(Arrays.stream(trusted).map(ClientIpResolverTest::block)
                .toList(), ipv6Prefix, ForwardingHeader.X_FORWARDED_FOR));
    }

    private static ClientIpResolver fwd(String... trusted) {
        return new ClientIpResolver(new ClientIpSettings(Arrays.stream(trusted).map(ClientIpResolverTest::block)
                .toList(), 64, ForwardingHeader.FORWARDED));
    }

    private static InetSocketAddress peer(String ip) throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(ip), 40_000);
    }

    private static KeyPart ip(String key) {
        return KeyPart.present(key);
    }

    private static KeyPart.Status status(KeyPart p) {
        return p.status();
    }

    @Test
    void anUntrustedPeerIsTheClientWhateverItsHeaderSays() throws Exception {
        assertThat(xff(64, "10.0.0.0/8").clientKey(peer("203.0.113.7"), List.of("198.51.100.2")))
                .isEqualTo(ip("ip:203.0.113.7"));
        assertThat(fwd("10.0.0.0/8").clientKey(peer("203.0.113.7"), List.of("for=\""))).isEqualTo(ip("ip:203.0.113.7"));
    }

    @Test
    void aTrustedPeerWithoutTheHeaderOrWithAnEmptyOneIsTheClient() throws Exception {
        assertThat(xff(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), NONE)).isEqualTo(ip("ip:10.0.0.1"));
        assertThat(xff(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(""))).isEqualTo(ip("ip:10.0.0.1"));
        assertThat(xff(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(" ", " , ,")))
                .isEqualTo(ip("ip:10.0.0.1"));
        assertThat(fwd("10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of("", "\t"))).isEqualTo(ip("ip:10.0.0.1"));
    }

    @Test
    void theWalkGoesRightToLeftPastTrustedProxiesOverAllLines() throws Exception {
        ClientIpResolver r = xff(64, "10.0.0.0/8", "192.0.2.0/24");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("198.51.100.9, 203.0.113.5", "192.0.2.1, 10.2.2.2")))
                .isEqualTo(ip("ip:203.0.113.5"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("1.1.1.1, 203.0.113.6"))).isEqualTo(ip("ip:203.0.113.6"));
        // every element trusted: the leftmost is the client
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("192.0.2.9, 10.3.3.3"))).isEqualTo(ip("ip:192.0.2.9"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("192.0.2.9", "", "10.3.3.3, ")))
                .isEqualTo(ip("ip:192.0.2.9"));
    }

    @Test
    void xForwardedForEntriesWithPortsAndBracketsAsProxiesWriteThem() throws Exception {
        ClientIpResolver r = xff(128, "10.0.0.0/8");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("203.0.113.9:51234"))).isEqualTo(ip("ip:203.0.113.9"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("[2001:db8::9]:443"))).isEqualTo(ip("ip:2001:db8::9"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("[2001:db8::9]"))).isEqualTo(ip("ip:2001:db8::9"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("\t2001:db8::9 ,10.0.0.7")))
                .isEqualTo(ip("ip:2001:db8::9"));
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"garbage", "1.2.3", "01.2.3.4", "1.2.3.4/24", "1.2.3.4:99999", "1.2.3.4:", "\"1.2.3.4\"",
        "[2001:db8::1", "[2001:db8::1]x", "[1.2.3.4]", "2001:db8::1%eth0", "for=1.2.3.4", "proxy.example",
        "1.2.3.4:_obf", "[2001:db8::1]:_obf", "0x01020304", "*", "1.2.3.4 5.6.7.8"})
    void aMalformedXForwardedForEntryAtTheClientIsMalformed(String entry) throws Exception {
        KeyPart p = xff(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(entry + ", 10.0.0.2"));
        assertThat(status(p)).isEqualTo(KeyPart.Status.MALFORMED);
        assertThat(p.missing()).startsWith("a well-formed X-Forwarded-For header: the walk to the client met ")
                .doesNotContain(entry);
    }

    @Test
    void aMalformedEntryLeftOfTheClientIsNeverLookedAt() throws Exception {
        ClientIpResolver r = xff(64, "10.0.0.0/8");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("garbage, 203.0.113.1"))).isEqualTo(ip("ip:203.0.113.1"));
        assertThat(fwd("10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of("for=\"oops, for=x;for=y",
                "for=203.0.113.2;proto=https"))).isEqualTo(ip("ip:203.0.113.2"));
    }

    @Test
    void unknownOrObfuscatedClientIsAbsentNotMalformed() throws Exception {
        for (String line : List.of("for=unknown", "for=UNKNOWN", "for=_hidden", "for=\"_x.y-z:_port\"",
                "for=\"unknown:8080\"")) {
            KeyPart p = fwd("10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(line));
            assertThat(p).as(line).isEqualTo(KeyPart.absent("the client IP address (the Forwarded header names the "
                    + "client 'unknown' or by an obfuscated identifier)"));
        }
        assertThat(status(xff(64, "10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of("unknown, 10.0.0.9"))))
                .isEqualTo(KeyPart.Status.ABSENT);
        // left of the client it is never looked at
        assertThat(fwd("10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of("for=unknown, for=198.51.100.5")))
                .isEqualTo(ip("ip:198.51.100.5"));
    }

    @Test
    void forwardedFollowsRfc7239() throws Exception {
        ClientIpResolver r = fwd("10.0.0.0/8");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=198.51.100.17;proto=http;by=203.0.113.43")))
                .isEqualTo(ip("ip:198.51.100.17"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("For=\"[2001:db8:cafe::17]:4711\", for=10.1.1.1")))
                .isEqualTo(ip("ip:2001:db8:cafe::/64"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=192.0.2.60;proto=http", "for=\"10.9.9.9:80\"")))
                .isEqualTo(ip("ip:192.0.2.60"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=\"198.51.100.3:_port\"")))
                .isEqualTo(ip("ip:198.51.100.3"));
        // quoted-pair escapes; a quoted comma belongs to the value; empty pairs and elements are allowed
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=\"\\198.51.100.4\";host=\"a,b\";;, ,")))
                .isEqualTo(ip("ip:198.51.100.4"));
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=\"[::ffff:198.51.100.6]\"")))
                .isEqualTo(ip("ip:198.51.100.6"));
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"for=\"", "for=\"198.18.0.1", "for=198.18.0.1, for=\"", "for=1.2.3.4;for=5.6.7.8",
        "for=1.2.3.4;FOR=1.2.3.4", "for=1.2.3.4;proto=http;proto=https", "proto=https", ";", "for=",
        "for=\"\"", "for=1.2.3", "for=01.2.3.4", "for=\"1.2.3.4:99999\"", "for=\"2001:db8::1\"", "for=[2001:db8::1]",
        "for=\"[2001:db8::1\"", "for=\"[1.2.3.4]\"", "for=1.2.3.4:80", "for=1.2.3.4 ;proto=http",
        "for=1.2.3.4; proto=http", "for =1.2.3.4", "for= 1.2.3.4", "for=1.2.3.4\"x\"", "=1.2.3.4", "for",
        "for=proxy.example", "for=\"1.2.3.4\u0001\"", "for=\"1.2.3.4\\", "for=_", "for=\"1.2.3.4:_\"",
        "for=1.2.3.4 for=5.6.7.8", "for=\"1.2.3.4\u0100\""})
    void aMalformedForwardedElementAtTheClientIsMalformed(String line) throws Exception {
        KeyPart p = fwd("10.0.0.0/8").clientKey(peer("10.0.0.1"), List.of(line));
        assertThat(status(p)).isEqualTo(KeyPart.Status.MALFORMED);
        assertThat(p.missing()).startsWith("a well-formed Forwarded header: the walk to the client met ");
    }

    @Test
    void aQuoteNeverSpansLines() throws Exception {
        // the attack: a client line ending inside a quoted-string, then the line the trusted proxy appends
        ClientIpResolver r = fwd("10.0.0.0/8");
        assertThat(r.clientKey(peer("10.0.0.1"), List.of("for=198.18.0.7, for=\"", "for=203.0.113.78")))
                .isEqualTo(ip("ip:203.0.113.78"));
        // the same within one line (a proxy appending to the client's line) cannot be repaired: malformed
        assertThat(status(r.clientKey(peer("10.0.0.1"), List.of("for=198.18.0.7, for=\", for=203.0.113.78"))))
                .isEqualTo(KeyPart.Status.MALFORMED);
    }

    @Test
    void theOtherHeaderIsNeverRead() throws Exception {
        io.micronaut.http.MutableHttpRequest<?> request = io.micronaut.http.HttpRequest.GET("/x")
                .header("Forwarded", "for=198.18.1.1").header("X-Forwarded-For", "203.0.113.90");
        ClientIpResolver xff = xff(64, "0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/4", "::/1", "8000::/1");
        // the in-memory request's peer is a loopback or local address, trusted by the networks above
        assertThat(xff.clientKey(request).value()).isEqualTo("ip:203.0.113.90");
        ClientIpResolver fwd = new ClientIpResolver(new ClientIpSettings(List.of(block("0.0.0.0/1"),
                block("128.0.0.0/2"), block("192.0.0.0/4"), block("::/1"), block("8000::/1")), 64,
                ForwardingHeader.FORWARDED));
        assertThat(fwd.clientKey(request).value()).isEqualTo("ip:198.18.1.1");
    }

    @Test
    void keysOfPeersFollowTheAddressRules() throws Exception {
        assertThat(xff(64).clientKey(peer("2001:db8:1:2::99"), NONE)).isEqualTo(ip("ip:2001:db8:1:2::/64"));
        assertThat(xff(64).clientKey(peer("::ffff:203.0.113.8"), NONE)).isEqualTo(ip("ip:203.0.113.8"));
        assertThat(xff(64).clientKey(peer("::1"), NONE)).isEqualTo(ip("ip:::1"));
        assertThat(xff(64, "10.0.0.0/8").clientKey(peer("::ffff:10.0.0.1"), List.of("::ffff:198.51.100.4")))
                .isEqualTo(ip("ip:198.51.100.4"));
    }

    @Test
    void noPeerIsAbsent() {
        assertThat(xff(64).clientKey(null, NONE))
                .isEqualTo(KeyPart.absent("the client IP address (the request has no socket peer)"));
    }
}
