package io.gridlimit.micronaut.filter;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.micronaut.support.RawHttp;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC §6 attacks over real HTTP with {@code gridlimit.client-ip.header: forwarded} (application-gl-edge.yml).
 * Client sockets bind their own loopback address: 127.0.0.1 acts as the trusted proxy, 127.0.0.2 as a client
 * reaching the service directly.
 */
@MicronautTest(environments = "gl-edge")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForwardedHeaderHttpTest implements TestPropertyProvider {
    static final String PROXY = "127.0.0.1";
    static final String CLIENT = "127.0.0.2";

    @Inject
    EmbeddedServer server;

    @Inject
    HazelcastInstance hazelcast;

    @Inject
    JsonMapper json;

    @Override
    public Map<String, String> getProperties() {
        Map<String, String> p = Ports.ownMember("gl-edge-fwd");
        p.put("gridlimit.client-ip.header", "forwarded");
        return p;
    }

    private Set<Object> keys(String policy) {
        return hazelcast.getMap("gridlimit." + policy).keySet();
    }

    private String detail(RawHttp.Response r) throws Exception {
        return (String) json.readValue(r.body(), Map.class).get("detail");
    }

    @Test
    void aClientLineEndingInAnOpenQuoteCannotSwallowTheProxysLine() throws Exception {
        for (int i = 1; i <= 20; i++) {
            RawHttp.Response r = RawHttp.sendFrom(PROXY, server.getPort(), "/t/hello",
                    "Forwarded: for=198.18.0." + i + ", for=\"", "Forwarded: for=203.0.113.78");
            assertThat(r.status()).as("request " + i + ": " + r.body()).isEqualTo(i <= 5 ? 200 : 429);
            assertThat(r.header("RateLimit")).isEqualTo("\"five\";r=" + Math.max(0, 5 - i) + ";t=3600");
        }
        assertThat(keys("five")).contains("ip:203.0.113.78").noneMatch(k -> k.toString().startsWith("ip:198.18."));
    }

    @Test
    void aProxyAppendingToTheClientsOpenQuoteOnTheSameLineIsMalformed() throws Exception {
        for (int i = 1; i <= 7; i++) {
            RawHttp.Response r = RawHttp.sendFrom(PROXY, server.getPort(), "/t/hello",
                    "Forwarded: for=198.18.2." + i + ", for=\", for=203.0.113.79");
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("Content-Type")).startsWith("application/problem+json");
            assertThat(detail(r)).isEqualTo("This request has no rate-limit key: missing a well-formed Forwarded "
                    + "header: the walk to the client met an unterminated or invalid quoted-string in Forwarded.");
        }
        assertThat(keys("five")).noneMatch(k -> k.toString().startsWith("ip:198.18.2.")
                || k.equals("ip:203.0.113.79"));
    }

    @Test
    void underSkipAMalformedHeaderIsRejectedNeverExempt() throws Exception {
        String[] hostile = {"Forwarded: for=\"", "Forwarded: for=198.18.3.1;for=198.18.3.2",
            "Forwarded: for=198.18.3.3;proto=http;proto=https", "Forwarded: proto=https", "Forwarded: for=garbage"};
        for (int round = 0; round < 4; round++) {
            for (String h : hostile) {
                RawHttp.Response r = RawHttp.sendFrom(PROXY, server.getPort(), "/t/skip", h);
                assertThat(r.status()).as(h).isEqualTo(400);
                assertThat(detail(r)).as(h).startsWith("This request has no rate-limit key: missing a well-formed "
                        + "Forwarded header: the walk to the client met ");
                assertThat(r.header("RateLimit")).isNull();
            }
        }
        // decided: an 'unknown' client is absent, not malformed, so skip exempts it (a trusted proxy said so)
        RawHttp.Response unknown = RawHttp.sendFrom(PROXY, server.getPort(), "/t/skip", "Forwarded: for=unknown");
        assertThat(unknown.status()).isEqualTo(200);
        assertThat(unknown.header("RateLimit")).isNull();
        assertThat(keys("skipper")).isEmpty();
    }

    @Test
    void xForwardedForIsIgnoredAndAClientsOwnHeadersNeverCount() {
        // the proxy sends no Forwarded: it is the client, whatever X-Forwarded-For says
        RawHttp.Response viaXff = RawHttp.sendFrom(PROXY, server.getPort(), "/t/skip",
                "X-Forwarded-For: 203.0.113.80");
        assertThat(viaXff.status()).isEqualTo(200);
        assertThat(viaXff.header("RateLimit")).isEqualTo("\"skipper\";r=4;t=3600");
        assertThat(keys("skipper")).containsExactly("ip:127.0.0.1");
        // a client reaching the service directly is its socket address, whatever it sends
        for (int i = 1; i <= 6; i++) {
            RawHttp.Response r = RawHttp.sendFrom(CLIENT, server.getPort(), "/t/hello",
                    "Forwarded: for=198.18.4." + i, "Forwarded: for=\"");
            assertThat(r.status()).isEqualTo(i <= 5 ? 200 : 429);
        }
        assertThat(keys("five")).contains("ip:127.0.0.2").noneMatch(k -> k.toString().startsWith("ip:198.18.4."));
    }
}
