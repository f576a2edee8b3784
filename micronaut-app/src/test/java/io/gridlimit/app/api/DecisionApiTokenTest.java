package io.gridlimit.app.api;

import io.gridlimit.app.support.PeerHttp;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code gridlimit.decision-api.token} set, over real HTTP: {@code /v1/**} without the token, or with a wrong
 * one, answers 401 with a problem and a {@code WWW-Authenticate: Bearer} challenge and decides nothing; with the
 * right one it answers 200; health and metrics stay open on the internal port; the public port still answers 404,
 * token or not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionApiTokenTest {
    private static final String TOKEN = "s3cret-Token_0123456789~+/=";
    private static final String CHECK = "{\"policy\":\"demo\",\"key\":\"user:token\"}";

    private EmbeddedServer server;
    private int internalPort;

    @BeforeAll
    void start() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(DecisionApiSettings.TOKEN_PROPERTY, TOKEN);
        server = ApplicationContext.run(EmbeddedServer.class, p);
        internalPort = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private PeerHttp.Response check(String... headers) {
        return PeerHttp.send("127.0.0.9", internalPort, "POST", "/v1/ratelimit/check", CHECK, headers);
    }

    @Test
    void withoutATokenTheApiAnswers401AndDecidesNothing() {
        PeerHttp.Response r = check();
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"gridlimit\"");
        assertThat(r.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"the decision API requires Authorization: Bearer <token>"
                + " (gridlimit.decision-api.token)\"}");
        // Unknown paths under /v1 do not reveal themselves either.
        assertThat(PeerHttp.send("127.0.0.9", internalPort, "POST", "/v1/nope", "{}").status()).isEqualTo(401);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Authorization: Bearer wrong-token-0123456789~+/=",
            "Authorization: Bearer s3cret-Token_0123456789~+/",
            "Authorization: Bearer s3cret-Token_0123456789~+/==",
            "Authorization: Bearer s3cret-Token_0123456789~+/=x",
            "Authorization: Bearer S3CRET-TOKEN_0123456789~+/=",
            "Authorization: Basic s3cret-Token_0123456789~+/=",
            "Authorization: s3cret-Token_0123456789~+/=",
            "Authorization: Bearer",
            "Authorization: Bearer "})
    void aWrongTokenAnswers401InvalidToken(String header) {
        PeerHttp.Response r = check(header);
        assertThat(r.status()).as(header).isEqualTo(401);
        assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"gridlimit\", error=\"invalid_token\"");
        assertThat(r.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"the bearer token is not valid\"}");
        assertThat(r.body()).doesNotContain(TOKEN);
    }

    @Test
    void theRightTokenTwiceInTwoHeadersIsRefused() {
        assertThat(check("Authorization: Bearer " + TOKEN, "Authorization: Bearer " + TOKEN).status())
                .isEqualTo(401);
    }

    @Test
    void theRightTokenDecidesAndFailedAttemptsSpentNothing() {
        // Spend nothing with bad tokens first: the first admitted decision still sees the whole quota.
        check();
        check("Authorization: Bearer nope-nope-nope-nope");
        PeerHttp.Response r = check("Authorization: Bearer " + TOKEN);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"allowed\":true,\"limit\":5,\"remaining\":4,\"resetAfterMillis\":10001,"
                + "\"retryAfterMillis\":null,\"policy\":\"demo\",\"band\":null}");
        // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
        assertThat(check("Authorization: bearer " + TOKEN).status()).isEqualTo(200);
        assertThat(check("Authorization: Bearer   " + TOKEN).status()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/health/liveness", "/health/readiness", "/prometheus"})
    void healthAndMetricsStayOpenOnTheInternalPort(String path) {
        assertThat(PeerHttp.send("127.0.0.9", internalPort, "GET", path, null).status()).isEqualTo(200);
    }

    @Test
    void thePublicPortAnswers404EvenWithTheRightToken() {
        PeerHttp.Response r = PeerHttp.send("127.0.0.9", server.getPort(), "POST", "/v1/ratelimit/check", CHECK,
                "Authorization: Bearer " + TOKEN);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("WWW-Authenticate")).isNull();
    }
}
