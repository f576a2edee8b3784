package io.gridlimit.micronaut.filter;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.RawHttp;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC §6 attacks over real HTTP with the default forwarding header, {@code X-Forwarded-For}
 * (application-gl-edge.yml). 127.0.0.1 and 127.0.0.5 act as trusted proxies, 127.0.0.3 as a client.
 */
@MicronautTest(environments = "gl-edge")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientKeyHttpTest implements TestPropertyProvider {
    static final String PROXY = "127.0.0.1";

    @Inject
    EmbeddedServer server;

    @Inject
    HazelcastInstance hazelcast;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        return Ports.ownMember("gl-edge-xff");
    }

    private Set<Object> keys(String policy) {
        return hazelcast.getMap("gridlimit." + policy).keySet();
    }

    private RawHttp.Response viaProxy(String path, String... headers) {
        return RawHttp.sendFrom(PROXY, server.getPort(), path, headers);
    }

    @Test
    void aClientsForwardedHeaderIsIgnoredWhenTheProxyWritesXForwardedFor() {
        for (int i = 1; i <= 20; i++) {
            RawHttp.Response r = viaProxy("/t/hello", "Forwarded: for=198.18.1." + i,
                    "X-Forwarded-For: 203.0.113.90");
            assertThat(r.status()).as("request " + i).isEqualTo(i <= 5 ? 200 : 429);
            assertThat(r.header("RateLimit")).isEqualTo("\"five\";r=" + Math.max(0, 5 - i) + ";t=3600");
        }
        assertThat(keys("five")).contains("ip:203.0.113.90").noneMatch(k -> k.toString().startsWith("ip:198.18.1."));
    }

    @Test
    void headerKeysThatAreNotUtf8AreRejectedEvenUnderSkip() throws Exception {
        byte[] sur = "X-Api-Key: sur".getBytes(StandardCharsets.US_ASCII);
        byte[][] bad = {
            concat(sur, 0xed, 0xa0, 0x80), // the encoded lone surrogate U+D800
            concat(sur, 0xed, 0xb0, 0x80), // the encoded lone surrogate U+DC00
            concat(sur, 0xff),
            concat(sur, 0xe9),             // ISO-8859-1 "é"
            concat(sur, 0xc0, 0xbf),       // overlong
        };
        for (byte[] line : bad) {
            RawHttp.Response r = RawHttp.sendBytesFrom("127.0.0.3", server.getPort(), "/t/api", line);
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).startsWith("application/problem+json");
            assertThat(json.readValue(r.body(), Map.class).get("detail")).isEqualTo("This request has no rate-limit "
                    + "key: missing a well-formed request header 'X-Api-Key' (its value is not valid UTF-8).");
        }
        assertThat(keys("api")).isEmpty();
        RawHttp.Response question = RawHttp.sendFrom("127.0.0.3", server.getPort(), "/t/api", "X-Api-Key: sur?");
        assertThat(question.header("RateLimit")).isEqualTo("\"api\";r=4;t=3600");
        RawHttp.Response cafe = RawHttp.sendBytesFrom("127.0.0.3", server.getPort(), "/t/api",
                "X-Api-Key: café".getBytes(StandardCharsets.UTF_8));
        assertThat(cafe.header("RateLimit")).isEqualTo("\"api\";r=4;t=3600");
        assertThat(keys("api")).containsExactlyInAnyOrder("hdr:" + KeyResolver.sha256Hex("sur?"),
                "hdr:" + KeyResolver.sha256Hex("café"));
        // an absent header is skipped, as configured
        RawHttp.Response none = RawHttp.sendFrom("127.0.0.3", server.getPort(), "/t/api", "Accept: */*");
        assertThat(none.status()).isEqualTo(200);
        assertThat(none.header("RateLimit")).isNull();
    }

    @Test
    void specialAndEmbeddedIpv6ClientsGetDistinctExactKeys() {
        String[][] clients = {
            {"::1", "ip:::1"},
            {"::203.0.113.21", "ip:203.0.113.21"},
            {"::ffff:0:203.0.113.22", "ip:203.0.113.22"},
            {"::ffff:203.0.113.23", "ip:203.0.113.23"},
            {"64:ff9b::198.51.100.24", "ip:198.51.100.24"},
            {"64:ff9b::198.51.100.25", "ip:198.51.100.25"},
            {"2002:cb00:7119::1", "ip:203.0.113.25"},
            {"fe80::1", "ip:fe80::1"},
            {"fe80::2", "ip:fe80::2"},
            {"2001:db8:5:6::1", "ip:2001:db8:5:6::/64"},
        };
        for (String[] c : clients) {
            RawHttp.Response r = viaProxy("/t/hello", "X-Forwarded-For: " + c[0]);
            assertThat(r.status()).as(c[0]).isEqualTo(200);
            assertThat(r.header("RateLimit")).as(c[0]).isEqualTo("\"five\";r=4;t=3600");
        }
        Set<Object> keys = keys("five");
        for (String[] c : clients) {
            assertThat(keys).as(c[0]).contains(c[1]);
        }
        // a 6to4 site's networks are one key: 2002:cb00:7119::/48 holds all of them
        for (int i = 2; i <= 5; i++) {
            RawHttp.Response r = viaProxy("/t/hello", "X-Forwarded-For: 2002:cb00:7119:" + i + "::1");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("RateLimit")).isEqualTo("\"five\";r=" + (5 - i) + ";t=3600");
        }
        assertThat(viaProxy("/t/hello", "X-Forwarded-For: [2002:cb00:7119:ffff::9]:443").status()).isEqualTo(429);
        assertThat(viaProxy("/t/hello", "X-Forwarded-For: 203.0.113.25").status()).isEqualTo(429);
        assertThat(keys("five")).noneMatch(k -> k.toString().startsWith("ip:2002:")
                || k.toString().startsWith("ip:64:ff9b") || k.toString().startsWith("ip:::/"));
    }

    @Test
    void anEmptyXForwardedForFromATrustedPeerKeysThePeer() {
        for (int i = 1; i <= 6; i++) {
            RawHttp.Response r = RawHttp.sendFrom("127.0.0.5", server.getPort(), "/t/hello", "X-Forwarded-For:");
            assertThat(r.status()).as("request " + i + ": " + r.body()).isEqualTo(i <= 5 ? 200 : 429);
            assertThat(r.header("RateLimit")).isEqualTo("\"five\";r=" + Math.max(0, 5 - i) + ";t=3600");
        }
        assertThat(keys("five")).contains("ip:127.0.0.5");
    }

    private static byte[] concat(byte[] head, int... tail) {
        byte[] out = java.util.Arrays.copyOf(head, head.length + tail.length);
        for (int i = 0; i < tail.length; i++) {
            out[head.length + i] = (byte) tail[i];
        }
        return out;
    }
}
