package io.gridlimit.app.api;

import io.gridlimit.app.support.PeerHttp;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.server.netty.configuration.NettyHttpServerConfiguration;
import io.micronaut.http.server.netty.configuration.NettyHttpServerConfiguration.NettyListenerConfiguration;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Attacks on the service's defaults over real HTTP: the decision API and the management endpoints answer on the
 * internal port only ({@code gridlimit.decision-api.port}, bound to 127.0.0.1), the public port answers 404 for
 * them whatever the {@code Host} header says, and a caller of the public port cannot spend anyone's quota. Peers
 * are sockets bound to different loopback addresses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionApiPortTest {
    private static final String NOT_HERE = "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,"
            + "\"detail\":\"no decision API on this port\"}";

    private EmbeddedServer server;
    private int publicPort;
    private int internalPort;

    @BeforeAll
    void start() {
        server = ApplicationContext.run(EmbeddedServer.class, ServiceProperties.standalone());
        publicPort = server.getPort();
        internalPort = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/ratelimit/check", "/v1/ratelimit/check/batch", "/v1/anything"})
    void thePublicPortAnswers404ForTheDecisionApi(String path) {
        String body = path.endsWith("batch") ? "{\"checks\":[{\"policy\":\"demo\",\"key\":\"k\"}]}"
                : "{\"policy\":\"demo\",\"key\":\"k\"}";
        PeerHttp.Response plain = PeerHttp.send("127.0.0.9", publicPort, "POST", path, body);
        assertThat(plain.status()).isEqualTo(404);
        assertThat(plain.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(plain.body()).isEqualTo(NOT_HERE);
        // The Host header is the caller's: naming the internal port changes nothing.
        PeerHttp.Response spoofed = PeerHttp.send("127.0.0.9", publicPort, "POST", path, body,
                "Host: 127.0.0.1:" + internalPort);
        assertThat(spoofed.status()).isEqualTo(404);
        assertThat(spoofed.body()).isEqualTo(NOT_HERE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/health", "/health/readiness", "/health/liveness", "/prometheus"})
    void thePublicPortAnswers404ForTheManagementEndpoints(String path) {
        assertThat(PeerHttp.send("127.0.0.9", publicPort, "GET", path, null).status()).as(path).isEqualTo(404);
        assertThat(PeerHttp.send("127.0.0.9", publicPort, "GET", path, null, "Host: 127.0.0.1:" + internalPort)
                .status()).as(path + " with the internal port in Host").isEqualTo(404);
        assertThat(PeerHttp.send("127.0.0.9", internalPort, "GET", path, null).status()).as(path + " inside")
                .isEqualTo(200);
    }

    @Test
    void theInternalPortServesNeitherTheApplicationsRoutesNorOtherEndpoints() {
        assertThat(PeerHttp.send("127.0.0.9", internalPort, "GET", "/demo/hello", null).status()).isEqualTo(404);
        assertThat(PeerHttp.send("127.0.0.9", publicPort, "GET", "/demo/hello", null).status()).isEqualTo(200);
        for (String path : List.of("/beans", "/env", "/loggers", "/routes")) {
            assertThat(PeerHttp.send("127.0.0.9", internalPort, "GET", path, null).status()).as(path)
                    .isEqualTo(404);
        }
    }

    @Test
    void aCheckWithoutExactlyOneJsonContentTypeIs415AndSpendsNothing() {
        // Found by attack: a browser can POST without Content-Type and without a CORS preflight.
        String body = "{\"policy\":\"demo\",\"key\":\"ct-probe\",\"cost\":5}";
        for (String[] headers : List.of(new String[] {"Content-Type:"}, new String[] {"Content-Type: text/plain"},
                new String[] {"Content-Type: application/json", "Content-Type: text/plain"},
                new String[] {"Content-Type: application/json; charset=iso-8859-1"})) {
            PeerHttp.Response r = PeerHttp.send("127.0.0.12", internalPort, "POST", "/v1/ratelimit/check", body,
                    headers);
            assertThat(r.status()).as(String.join(" | ", headers)).isEqualTo(415);
            assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        }
        PeerHttp.Response ok = PeerHttp.send("127.0.0.12", internalPort, "POST", "/v1/ratelimit/check",
                "{\"policy\":\"demo\",\"key\":\"ct-probe\"}", "Content-Type: application/json; charset=UTF-8");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.body()).startsWith("{\"allowed\":true,\"limit\":5,\"remaining\":4,");
    }

    @Test
    void aPublicRouteReachedThroughTheInternalPortSpendsNoQuota() {
        // 127.0.0.11 sends 6 requests for the public route to the internal port: each a 404 problem, no headers.
        for (int i = 0; i < 6; i++) {
            PeerHttp.Response r = PeerHttp.send("127.0.0.11", internalPort, "GET", "/demo/hello", null);
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("RateLimit")).isNull();
            assertThat(r.body()).contains(InternalPortFilter.NOT_HERE_DETAIL);
        }
        // Nor through dot segments that the rate-limit filter resolves to the public route (found by attack).
        for (String path : List.of("/v1/../demo/hello", "/v1/%2e%2e/demo/hello", "/health/../demo/hello",
                "/v1/./../demo/hello", "/prometheus/../demo/hello")) {
            PeerHttp.Response r = PeerHttp.send("127.0.0.11", internalPort, "GET", path, null);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.header("RateLimit")).as(path).isNull();
        }
        // Its public quota (5 per 10 s) is whole.
        PeerHttp.Response first = PeerHttp.send("127.0.0.11", publicPort, "GET", "/demo/hello", null);
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("X-RateLimit-Remaining")).isEqualTo("4");
    }

    @Test
    void aCallerOfThePublicPortCannotSpendAnotherClientsQuota() {
        // 127.0.0.9 tries to spend 127.0.0.7's demo quota (5 per 10 s) through the public port, in every shape.
        PeerHttp.Response single = PeerHttp.send("127.0.0.9", publicPort, "POST", "/v1/ratelimit/check",
                "{\"policy\":\"demo\",\"key\":\"ip:127.0.0.7\",\"cost\":5}");
        PeerHttp.Response batch = PeerHttp.send("127.0.0.9", publicPort, "POST", "/v1/ratelimit/check/batch",
                "{\"checks\":[{\"policy\":\"demo\",\"key\":\"ip:127.0.0.7\",\"cost\":5}]}");
        assertThat(List.of(single.status(), batch.status())).containsExactly(404, 404);

        // 127.0.0.7's first request still finds its whole quota: nothing was spent.
        PeerHttp.Response victim = PeerHttp.send("127.0.0.7", publicPort, "GET", "/demo/hello", null);
        assertThat(victim.status()).isEqualTo(200);
        assertThat(victim.header("X-RateLimit-Remaining")).isEqualTo("4");
        // And the internal port sees exactly that one request.
        PeerHttp.Response inside = PeerHttp.send("127.0.0.9", internalPort, "POST", "/v1/ratelimit/check",
                "{\"policy\":\"demo\",\"key\":\"ip:127.0.0.7\"}");
        assertThat(inside.status()).isEqualTo(200);
        assertThat(inside.body()).startsWith("{\"allowed\":true,\"limit\":5,\"remaining\":3,");
    }

    @Test
    void theInternalPortListensOnLoopbackOnlyByDefault() throws IOException {
        NettyHttpServerConfiguration config = server.getApplicationContext()
                .getBean(NettyHttpServerConfiguration.class);
        assertThat(config.getListeners()).extracting(NettyListenerConfiguration::getPort,
                        NettyListenerConfiguration::getHost, NettyListenerConfiguration::isExposeDefaultRoutes)
                .contains(org.assertj.core.groups.Tuple.tuple(internalPort, "127.0.0.1", false));
        InetAddress external = nonLoopbackIpv4();
        if (external != null) {
            // The public port answers on every address; the internal one refuses connections on this one.
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(external, publicPort), 5_000);
            }
            assertThatThrownBy(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(external, internalPort), 5_000);
                }
            }).isInstanceOf(IOException.class);
        }
    }

    @Test
    void theInternalHostIsTakenFromItsProperty() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(DecisionApiSettings.HOST_PROPERTY, "0.0.0.0");
        try (EmbeddedServer other = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(other.getApplicationContext()).getPort();
            assertThat(other.getApplicationContext().getBean(NettyHttpServerConfiguration.class).getListeners())
                    .filteredOn(l -> l.getPort() == port).singleElement()
                    .satisfies(l -> assertThat(l.getHost()).isEqualTo("0.0.0.0"));
            assertThat(PeerHttp.send("127.0.0.9", port, "GET", "/health/liveness", null).status()).isEqualTo(200);
        }
    }

    /** @return an IPv4 address of this host that is not loopback, or null when it has none */
    private static InetAddress nonLoopbackIpv4() throws IOException {
        for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress address : nic.inetAddresses().toList()) {
                if (address instanceof Inet4Address) {
                    return address;
                }
            }
        }
        return null;
    }
}
