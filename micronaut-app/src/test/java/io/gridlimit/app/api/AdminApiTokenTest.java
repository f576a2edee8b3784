package io.gridlimit.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.app.support.PeerHttp;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The admin API's guards over real HTTP (docs/SPEC.md §11): its own token, the decision API's token standing in
 * when it has none, the decision API's token never opening an admin API that has its own, and the API absent when
 * disabled.
 */
class AdminApiTokenTest {
    private static final String ADMIN = "admin-Token_0123456789~+/=";
    private static final String DECISION = "decision-Token_0123456789";
    private static final String BODY = "{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\"}";

    private static PeerHttp.Response send(int port, String method, String target, String... headers) {
        return PeerHttp.send("127.0.0.1", port, method, target, method.equals("PUT") ? BODY : "", headers);
    }

    @Test
    void theAdminTokenIsRequiredAndTheDecisionTokenDoesNotOpenIt() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(AdminApiSettings.TOKEN_PROPERTY, ADMIN);
        p.put(DecisionApiSettings.TOKEN_PROPERTY, DECISION);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
            PeerHttp.Response none = send(port, "PUT", "/v1/policies/guarded");
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.body()).contains("the admin API requires Authorization: Bearer <token>");
            assertThat(send(port, "GET", "/v1/policies", "Authorization: Bearer " + DECISION).status())
                    .isEqualTo(401);
            assertThat(send(port, "DELETE", "/v1/policies/demo", "Authorization: Bearer wrong-0123456789abc")
                    .status()).isEqualTo(401);
            assertThat(send(port, "GET", "/v1/policies/guarded", "Authorization: Bearer " + ADMIN).status())
                    .as("nothing was created by the refused requests").isEqualTo(404);
            assertThat(send(port, "PUT", "/v1/policies/guarded", "Authorization: Bearer " + ADMIN).status())
                    .isEqualTo(201);
            // and the admin token is no decision-API token
            assertThat(PeerHttp.send("127.0.0.1", port, "POST", "/v1/ratelimit/check",
                    "{\"policy\":\"demo\",\"key\":\"k\"}", "Authorization: Bearer " + ADMIN).status()).isEqualTo(401);
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/v1/policies", "/v1/policies/", "//v1/policies",
        "/v1//policies", "/v1/../v1/policies", "/v1/./policies", "/./v1/policies", "/v1/%70olicies", "/%761/policies",
        "/V1/policies", "/v1/Policies", "/v1/policies%2Fx", "/v1/policies%2F", "/v1/policies;x", "/v1/policies?x=1",
        "/v1/policies#x", "http://x/v1/policies", "/v1/policies/demo", "//v1/policies/demo", "/v1//policies/demo",
        "/v1/policies//demo", "/v1/%70olicies/demo", "/v1/policies/%64emo", "/v1/policies/demo/",
        "/v1/policies/demo;x", "/v1/policies/demo/overrides?key=a", "/v1/policies/demo%2Foverrides?key=a"})
    void noSpellingOfTheAdminPathLetsTheDecisionTokenOrThePublicPortIn(String target) {
        // every variant either reaches the admin API's own guard (401 for the decision token) or no route (404):
        // none is classified as a decision-API path while the router sends it to the admin API
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(AdminApiSettings.TOKEN_PROPERTY, ADMIN);
        p.put(DecisionApiSettings.TOKEN_PROPERTY, DECISION);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
            for (String method : new String[] {"GET", "PUT", "DELETE"}) {
                PeerHttp.Response internal = send(port, method, target, "Authorization: Bearer " + DECISION);
                assertThat(internal.status()).as(method + " " + target + " internal").isIn(401, 404);
                assertThat(send(server.getPort(), method, target).status()).as(method + " " + target + " public")
                        .isEqualTo(404);
            }
            assertThat(send(port, "GET", "/v1/policies/demo", "Authorization: Bearer " + ADMIN).body())
                    .as("nothing changed").isEqualTo("{\"algorithm\":\"sliding-window-log\",\"limit\":5,"
                            + "\"window\":\"10s\"}");
        }
    }

    @Test
    void withoutItsOwnTokenTheDecisionApisTokenGuardsIt() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(DecisionApiSettings.TOKEN_PROPERTY, DECISION);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
            assertThat(send(port, "GET", "/v1/policies").status()).isEqualTo(401);
            assertThat(send(port, "GET", "/v1/policies", "Authorization: Bearer " + DECISION).status())
                    .isEqualTo(200);
        }
    }

    @Test
    void withoutAnyTokenOnlyCallersOnThisHostMayUseIt() throws Exception {
        java.net.InetAddress other = null;
        for (java.net.NetworkInterface nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InetAddress address : java.util.Collections.list(nic.getInetAddresses())) {
                if (address instanceof java.net.Inet4Address && !address.isLoopbackAddress()) {
                    other = address;
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(other != null, "no non-loopback IPv4 address on this host");
        Map<String, Object> p = ServiceProperties.standalone();
        p.put("gridlimit.decision-api.host", "0.0.0.0");
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
            PeerHttp.Response remote = PeerHttp.send(other.getHostAddress(), port, "PUT", "/v1/policies/x", BODY);
            assertThat(remote.status()).isEqualTo(403);
            assertThat(remote.body()).contains("the admin API answers callers on this host only");
            assertThat(send(port, "GET", "/v1/policies/x").status()).as("nothing created").isEqualTo(404);
            // the decision API keeps answering that caller
            assertThat(PeerHttp.send(other.getHostAddress(), port, "POST", "/v1/ratelimit/check",
                    "{\"policy\":\"demo\",\"key\":\"k\"}").status()).isEqualTo(200);
        }
    }

    @Test
    void disabledTheAdminApiDoesNotExist() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(AdminApiSettings.ENABLED_PROPERTY, "false");
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p)) {
            int port = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
            assertThat(send(port, "GET", "/v1/policies").status()).isEqualTo(404);
            assertThat(send(port, "PUT", "/v1/policies/x").status()).isEqualTo(404);
        }
    }

    @Test
    void aBadSettingStopsTheBootNamingIt() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(AdminApiSettings.ENABLED_PROPERTY, "yes");
        p.put(AdminApiSettings.TOKEN_PROPERTY, "short");
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .hasMessageContaining("gridlimit.admin-api.enabled: 'yes' is not true or false")
                .hasMessageContaining("gridlimit.admin-api.token: is 5 characters long");
    }
}
