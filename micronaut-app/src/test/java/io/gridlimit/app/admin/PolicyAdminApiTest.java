package io.gridlimit.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.app.support.PeerHttp;
import io.gridlimit.app.support.ServiceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The admin API of the policy catalog over real HTTP on the service as shipped (its application.yml turns the API
 * on; docs/SPEC.md §11): reads, creates and changes with ETag / If-Match, validation with configuration's own
 * messages, deletions refused while referenced, per-key overrides that the public route applies at once, and the
 * attacks: the public port, bad bodies, stale preconditions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyAdminApiTest {
    private static final String NOT_UTF8_PROBLEM = "is not valid UTF-8 once percent-decoded (an invalid or overlong "
            + "byte sequence, or an encoded surrogate)";
    private static final String NOT_UTF8 = "key: " + NOT_UTF8_PROBLEM;

    private EmbeddedServer server;
    private int internalPort;
    private int publicPort;

    @BeforeAll
    void start() {
        server = ApplicationContext.run(EmbeddedServer.class, ServiceProperties.standalone());
        internalPort = ServiceProperties.internalUrl(server.getApplicationContext()).getPort();
        publicPort = server.getPort();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private PeerHttp.Response admin(String method, String target, String body, String... headers) {
        return PeerHttp.send("127.0.0.1", internalPort, method, target, body, headers);
    }

    private static String key(String k) {
        return URLEncoder.encode(k, StandardCharsets.UTF_8);
    }

    @Test
    void theAdminApiIsNotOnThePublicPort() {
        for (String method : new String[] {"GET", "PUT", "DELETE"}) {
            PeerHttp.Response r = PeerHttp.send("127.0.0.1", publicPort, method, "/v1/policies/demo",
                    method.equals("PUT") ? "{\"algorithm\":\"fixed-window\",\"limit\":1,\"window\":\"1h\"}" : "");
            assertThat(r.status()).as(method).isEqualTo(404);
            assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        }
        assertThat(admin("GET", "/v1/policies/demo", "").body())
                .as("nothing changed").isEqualTo("{\"algorithm\":\"sliding-window-log\",\"limit\":5,\"window\":\"10s\"}");
    }

    @Test
    void configurationSeedsTheCatalogAndAPolicyReadsInItsYamlShape() {
        PeerHttp.Response list = admin("GET", "/v1/policies", "");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.body()).contains("{\"name\":\"demo\",\"version\":1,\"origin\":\"configuration\"");
        PeerHttp.Response demo = admin("GET", "/v1/policies/demo", "");
        assertThat(demo.status()).isEqualTo(200);
        assertThat(demo.header("ETag")).isEqualTo("\"1\"");
        assertThat(demo.header("GridLimit-Policy-Origin")).isEqualTo("configuration");
        assertThat(admin("GET", "/v1/policies/none-such", "").status()).isEqualTo(404);
    }

    @Test
    void createChangeWithIfMatchAndDelete() {
        String body = "{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\"}";
        PeerHttp.Response created = admin("PUT", "/v1/policies/crud", body, "If-None-Match: *");
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.header("ETag")).isEqualTo("\"1\"");
        assertThat(created.body()).isEqualTo(body);
        assertThat(admin("PUT", "/v1/policies/crud", body, "If-None-Match: *").status())
                .as("create-only on an existing policy").isEqualTo(412);

        String bands = "{\"bands\":{\"burst\":{\"algorithm\":\"token-bucket\",\"capacity\":10,\"refill-tokens\":1,"
                + "\"refill-period\":\"1s\"},\"daily\":{\"algorithm\":\"fixed-window\",\"limit\":1000,\"window\":\"1d\"}}}";
        PeerHttp.Response stale = admin("PUT", "/v1/policies/crud", bands, "If-Match: \"9\"");
        assertThat(stale.status()).isEqualTo(412);
        assertThat(stale.header("ETag")).isEqualTo("\"1\"");
        assertThat(stale.body()).contains("policy 'crud' is at version 1, not the version If-Match or If-None-Match "
                + "names");
        PeerHttp.Response changed = admin("PUT", "/v1/policies/crud", bands, "If-Match: \"1\"");
        assertThat(changed.status()).isEqualTo(200);
        assertThat(changed.header("ETag")).isEqualTo("\"2\"");
        assertThat(admin("GET", "/v1/policies/crud", "").body()).isEqualTo(bands);
        assertThat(admin("GET", "/v1/policies/crud", "").header("GridLimit-Policy-Origin")).isEqualTo("api");

        assertThat(admin("DELETE", "/v1/policies/crud", "", "If-Match: \"1\"").status()).isEqualTo(412);
        assertThat(admin("DELETE", "/v1/policies/crud", "", "If-Match: \"2\"").status()).isEqualTo(204);
        assertThat(admin("GET", "/v1/policies/crud", "").status()).isEqualTo(404);
        assertThat(admin("DELETE", "/v1/policies/crud", "").status()).isEqualTo(404);
        PeerHttp.Response again = admin("PUT", "/v1/policies/crud", body);
        assertThat(again.header("ETag")).as("versions go on after a deletion").isEqualTo("\"4\"");

        MeterRegistry meters = server.getApplicationContext().getBean(MeterRegistry.class);
        assertThat(meters.find("gridlimit.policy.changes").tag("policy", "crud").tag("change", "created").counter()
                .count()).isEqualTo(2.0);
        assertThat(meters.find("gridlimit.policy.changes").tag("policy", "crud").tag("change", "deleted").counter()
                .count()).isEqualTo(1.0);
    }

    @Test
    void aCalendarPolicyIsPutAndReadInItsYamlShape() {
        // docs/SPEC.md §14: a per-second burst beside a per-month calendar band, the same members as configuration
        String body = "{\"bands\":{\"per-second\":{\"algorithm\":\"token-bucket\",\"capacity\":10,\"refill-tokens\":10,"
                + "\"refill-period\":\"1s\"},\"per-month\":{\"algorithm\":\"calendar\",\"limit\":10000,\"period\":\"month\","
                + "\"zone\":\"Europe/Berlin\",\"anchor\":31}}}";
        PeerHttp.Response created = admin("PUT", "/v1/policies/calendar-api", body);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.body()).isEqualTo(body);
        assertThat(admin("GET", "/v1/policies/calendar-api", "").body()).isEqualTo(body);
        // the defaults are written out: zone UTC, weeks from monday
        PeerHttp.Response weekly = admin("PUT", "/v1/policies/calendar-weekly",
                "{\"algorithm\":\"calendar\",\"limit\":500,\"period\":\"week\"}");
        assertThat(weekly.status()).isEqualTo(201);
        assertThat(weekly.body()).isEqualTo("{\"algorithm\":\"calendar\",\"limit\":500,\"period\":\"week\","
                + "\"zone\":\"UTC\",\"week-start\":\"monday\"}");
        assertThat(admin("DELETE", "/v1/policies/calendar-api", "").status()).isEqualTo(204);
        assertThat(admin("DELETE", "/v1/policies/calendar-weekly", "").status()).isEqualTo(204);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "limit out of range|{\"algorithm\":\"fixed-window\",\"limit\":0,\"window\":\"1h\"}|limit: '0' is refused: limit must be in [1, 1000000000000000], got 0",
        "limit as text|{\"algorithm\":\"fixed-window\",\"limit\":\"2\",\"window\":\"1h\"}|limit: '2' is not a whole number",
        "limit as a fraction|{\"algorithm\":\"fixed-window\",\"limit\":1.5,\"window\":\"1h\"}|limit: '1.5' is not a whole number",
        "window not a duration|{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"soon\"}|window: 'soon' is not a duration",
        "window too long|{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"400d\"}|window: '400d' is refused: window must be in [1ms, 365d], got PT9600H",
        "unknown algorithm|{\"algorithm\":\"leaky\",\"limit\":2,\"window\":\"1h\"}|algorithm: unknown algorithm 'leaky'",
        "missing algorithm|{\"limit\":2,\"window\":\"1h\"}|algorithm: missing: set one of token-bucket",
        "parameter of another algorithm|{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\",\"capacity\":3}|capacity: '3' does not apply to fixed-window, which takes limit, window",
        "missing parameter|{\"algorithm\":\"token-bucket\",\"capacity\":3,\"refill-tokens\":1}|refill-period: missing: token-bucket takes capacity, refill-tokens, refill-period",
        "unknown field|{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\",\"limt\":3}|limt: unknown property",
        "shadow|{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\",\"shadow\":true}|shadow mode is set in configuration",
        "camelCase field|{\"algorithm\":\"token-bucket\",\"capacity\":3,\"refillTokens\":1,\"refill-period\":\"1s\"}|refillTokens: unknown property",
        "a band in bad case|{\"bands\":{\"Burst\":{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\"}}}|bands.Burst: the name 'Burst' would be read by Micronaut as 'burst'",
        "a band's bad value|{\"bands\":{\"burst\":{\"algorithm\":\"fixed-window\",\"limit\":-1,\"window\":\"1h\"}}}|bands.burst.limit: '-1' is refused",
        "empty bands|{\"bands\":{}}|bands: must be a non-empty object of named bands",
        "algorithm beside bands|{\"algorithm\":\"gcra\",\"bands\":{\"b\":{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\"}}}|algorithm: 'gcra' is set beside bands",
        "not an object|[1,2]|the body must be a JSON object",
        "malformed JSON|{\"algorithm\":|the request body is not valid JSON",
        "duplicate member|{\"limit\":1,\"limit\":2}|the request body is not valid JSON: duplicate member 'limit'",
        "empty body|`  `|the request body is not valid JSON",
        "calendar with a fixed offset|{\"algorithm\":\"calendar\",\"limit\":5,\"period\":\"day\",\"zone\":\"+02:00\"}|zone: '+02:00' is refused: zone must be an IANA time-zone id such as Europe/Berlin, or UTC, got '+02:00'",
        "calendar anchor of a week|{\"algorithm\":\"calendar\",\"limit\":5,\"period\":\"week\",\"anchor\":3}|anchor: '3' applies to period month only, not week",
        "calendar anchor as text|{\"algorithm\":\"calendar\",\"limit\":5,\"period\":\"month\",\"anchor\":\"31\"}|anchor: '31' is not a whole number",
        "calendar without period|{\"algorithm\":\"calendar\",\"limit\":5}|period: missing: calendar takes limit, period (and optionally zone, week-start, anchor)"})
    void aBadBodyIs400WithConfigurationsMessageAndChangesNothing(String name, String body, String message) {
        PeerHttp.Response r = admin("PUT", "/v1/policies/bad-body", body.isBlank() ? "" : body);
        assertThat(r.status()).as(name).isEqualTo(400);
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(r.body()).as(name).contains(message);
        assertThat(admin("GET", "/v1/policies/bad-body", "").status()).isEqualTo(404);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Gold|name: the name 'Gold' would be read by Micronaut as 'gold'",
        "a.b|name: the name 'a.b' contains '.'",
        "plan_gold|name: the name 'plan_gold' would be read by Micronaut as 'plan-gold'"})
    void theNameRuleIsConfigurations(String name, String message) {
        PeerHttp.Response r = admin("PUT", "/v1/policies/" + name, "{\"algorithm\":\"fixed-window\",\"limit\":2,"
                + "\"window\":\"1h\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains(message);
    }

    @Test
    void aBodyThatIsNotJsonIs415AndABadPreconditionIs400() {
        assertThat(admin("PUT", "/v1/policies/p415", "limit=2", "Content-Type: text/plain").status()).isEqualTo(415);
        assertThat(admin("PUT", "/v1/policies/p415", "{}", "Content-Type:").status()).isEqualTo(415);
        PeerHttp.Response r = admin("PUT", "/v1/policies/p415", "{\"algorithm\":\"fixed-window\",\"limit\":2,"
                + "\"window\":\"1h\"}", "If-Match: W/\"1\"");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains("If-Match: 'W/\\\"1\\\"' is not an ETag of this API");
    }

    @Test
    void aPolicyARouteNamesCannotBeDeleted() {
        PeerHttp.Response r = admin("DELETE", "/v1/policies/demo", "");
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.body()).contains("policy 'demo' is still named by 1 reference(s): gridlimit.routes[0] on replica ");
        assertThat(admin("GET", "/v1/policies/demo", "").status()).isEqualTo(200);
    }

    @Test
    void anOverrideDecidesOneKeyOfThePublicRouteByAnotherPolicy() {
        assertThat(admin("PUT", "/v1/policies/gold", "{\"algorithm\":\"fixed-window\",\"limit\":2,\"window\":\"1h\"}")
                .status()).isEqualTo(201);
        String target = "/v1/policies/demo/overrides?key=" + key("ip:127.0.0.9");
        PeerHttp.Response set = admin("PUT", target, "{\"policy\":\"gold\"}", "If-None-Match: *");
        assertThat(set.status()).isEqualTo(201);
        assertThat(set.header("ETag")).isEqualTo("\"o-gold\"");
        assertThat(admin("GET", target, "").body()).isEqualTo("{\"policy\":\"gold\"}");
        assertThat(admin("GET", "/v1/policies/demo/overrides", "").body())
                .isEqualTo("{\"overrides\":{\"ip:127.0.0.9\":\"gold\"}}");

        PeerHttp.Response overridden = PeerHttp.send("127.0.0.9", publicPort, "GET", "/demo/hello", "");
        assertThat(overridden.status()).isEqualTo(200);
        assertThat(overridden.header("RateLimit-Policy")).isEqualTo("\"gold\";q=2;w=3600");
        // the decision API applies the override too
        assertThat(admin("POST", "/v1/ratelimit/check", "{\"policy\":\"demo\",\"key\":\"ip:127.0.0.9\"}").body())
                .isEqualTo("{\"allowed\":true,\"limit\":2,\"remaining\":0,\"resetAfterMillis\":3600000,"
                        + "\"retryAfterMillis\":null,\"policy\":\"gold\",\"band\":null}");
        PeerHttp.Response other = PeerHttp.send("127.0.0.10", publicPort, "GET", "/demo/hello", "");
        assertThat(other.header("RateLimit-Policy")).isEqualTo("\"demo\";q=5;w=10");

        PeerHttp.Response refused = admin("DELETE", "/v1/policies/gold", "");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body()).contains("an override under policy 'demo'");
        assertThat(admin("PUT", target, "{\"policy\":\"gold\"}", "If-Match: \"o-silver\"").status()).isEqualTo(412);
        assertThat(admin("DELETE", target, "", "If-Match: \"o-gold\"").status()).isEqualTo(204);
        assertThat(admin("GET", target, "").status()).isEqualTo(404);
        assertThat(PeerHttp.send("127.0.0.9", publicPort, "GET", "/demo/hello", "").header("RateLimit-Policy"))
                .isEqualTo("\"demo\";q=5;w=10");
    }

    private String check(String policy, String key) {
        PeerHttp.Response r = admin("POST", "/v1/ratelimit/check", "{\"policy\":\"" + policy + "\",\"key\":\"" + key
                + "\"}");
        assertThat(r.status()).isEqualTo(200);
        String body = r.body();
        return body.substring(body.indexOf("\"allowed\":") + 10, body.indexOf(",\"limit\""))
                + "/" + body.substring(body.indexOf("\"remaining\":") + 12, body.indexOf(",\"resetAfterMillis\""));
    }

    @Test
    void anOverrideSetAndRemovedInTheWindowKeepsTheKeysCount() {
        // the attack: use the quota, get an override, use the other quota fresh, lose the override, use the first
        // quota fresh again: 2 + 5 + 2 in one hour. Now the key's state stays under the policy asked for. (Sliding
        // logs of an hour: the service's clock is real, and no window boundary can fall inside the test.)
        assertThat(admin("PUT", "/v1/policies/meter", "{\"algorithm\":\"sliding-window-log\",\"limit\":2,"
                + "\"window\":\"1h\"}").status()).isEqualTo(201);
        assertThat(admin("PUT", "/v1/policies/meter-big", "{\"algorithm\":\"sliding-window-log\",\"limit\":5,"
                + "\"window\":\"1h\"}").status()).isEqualTo(201);
        assertThat(List.of(check("meter", "k-o"), check("meter", "k-o"), check("meter", "k-o")))
                .containsExactly("true/1", "true/0", "false/0");
        String target = "/v1/policies/meter/overrides?key=k-o";
        assertThat(admin("PUT", target, "{\"policy\":\"meter-big\"}").status()).isEqualTo(201);
        assertThat(List.of(check("meter", "k-o"), check("meter", "k-o"), check("meter", "k-o"),
                check("meter", "k-o"))).containsExactly("true/2", "true/1", "true/0", "false/0");
        assertThat(admin("DELETE", target, "").status()).isEqualTo(204);
        assertThat(check("meter", "k-o")).as("5 used of 2: not 2 fresh").isEqualTo("false/0");
        // and the other policy's own state for that key was never touched
        assertThat(check("meter-big", "k-o")).isEqualTo("true/4");
    }

    @Test
    void aSingleBandPolicyMadeCompositeThroughTheApiKeepsTheKeysConsumption() {
        assertThat(admin("PUT", "/v1/policies/shape", "{\"algorithm\":\"sliding-window-log\",\"limit\":4,\"window\":\"1h\"}")
                .status()).isEqualTo(201);
        for (int i = 0; i < 4; i++) {
            assertThat(check("shape", "k-shape")).isEqualTo("true/" + (3 - i));
        }
        assertThat(check("shape", "k-shape")).isEqualTo("false/0");
        // before: the composite's bands had no state by name and started fresh (10 more in the hour)
        assertThat(admin("PUT", "/v1/policies/shape", "{\"bands\":{\"burst\":{\"algorithm\":\"sliding-window-log\","
                + "\"limit\":10,\"window\":\"1h\"},\"daily\":{\"algorithm\":\"sliding-window-log\",\"limit\":20,"
                + "\"window\":\"1d\"}}}", "If-Match: \"1\"").status()).isEqualTo(200);
        assertThat(check("shape", "k-shape")).as("0 of 4 left: 0 of 10 and 0 of 20").isEqualTo("false/0");
        // and back to one band: still nothing left
        assertThat(admin("PUT", "/v1/policies/shape", "{\"algorithm\":\"sliding-window-log\",\"limit\":4,\"window\":\"1h\"}",
                "If-Match: \"2\"").status()).isEqualTo(200);
        assertThat(check("shape", "k-shape")).isEqualTo("false/0");
    }

    @Test
    void aDeletionUnderIfNoneMatchStarNeverRemovesAnOverride() {
        assertThat(admin("PUT", "/v1/policies/inm", "{\"algorithm\":\"fixed-window\",\"limit\":3,\"window\":\"1h\"}")
                .status()).isEqualTo(201);
        String target = "/v1/policies/demo/overrides?key=k-inm";
        assertThat(admin("PUT", target, "{\"policy\":\"inm\"}").status()).isEqualTo(201);
        // before: If-None-Match: * was read as "whatever is there" and the override was removed
        PeerHttp.Response refused = admin("DELETE", target, "", "If-None-Match: *");
        assertThat(refused.status()).isEqualTo(412);
        assertThat(refused.body()).contains("If-None-Match: * asks that none does; nothing was removed");
        assertThat(admin("GET", target, "").body()).isEqualTo("{\"policy\":\"inm\"}");
        assertThat(admin("DELETE", target, "", "If-Match: \"o-inm\"").status()).isEqualTo(204);
        assertThat(admin("DELETE", target, "", "If-None-Match: *").status()).isEqualTo(404);
        // a policy's deletion under If-None-Match: * was already refused while it exists
        assertThat(admin("DELETE", "/v1/policies/inm", "", "If-None-Match: *").status()).isEqualTo(412);
        assertThat(admin("GET", "/v1/policies/inm", "").status()).isEqualTo(200);
    }

    @Test
    void twoConcurrentPutsWithTheSameIfMatchExactlyOneWins() throws Exception {
        assertThat(admin("PUT", "/v1/policies/race", "{\"algorithm\":\"fixed-window\",\"limit\":1,\"window\":\"1h\"}")
                .header("ETag")).isEqualTo("\"1\"");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10; round++) {
                String etag = "If-Match: \"" + (round + 1) + "\"";
                java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                List<java.util.concurrent.Future<PeerHttp.Response>> puts = new java.util.ArrayList<>();
                for (int limit : new int[] {10 + round, 100 + round}) {
                    puts.add(pool.submit(() -> {
                        start.await();
                        return admin("PUT", "/v1/policies/race", "{\"algorithm\":\"fixed-window\",\"limit\":" + limit
                                + ",\"window\":\"1h\"}", etag);
                    }));
                }
                start.countDown();
                List<Integer> statuses = new java.util.ArrayList<>();
                String winner = null;
                for (java.util.concurrent.Future<PeerHttp.Response> f : puts) {
                    PeerHttp.Response r = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    statuses.add(r.status());
                    if (r.status() == 200) {
                        winner = r.body();
                        assertThat(r.header("ETag")).isEqualTo("\"" + (round + 2) + "\"");
                    } else {
                        assertThat(r.header("ETag")).as("the 412 names the winner's version")
                                .isEqualTo("\"" + (round + 2) + "\"");
                    }
                }
                assertThat(statuses).as("round " + round).containsExactlyInAnyOrder(200, 412);
                assertThat(admin("GET", "/v1/policies/race", "").body()).isEqualTo(winner);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void overridesResolveOneHopAndAChainNeverLoops() {
        for (String p : new String[] {"hop-a", "hop-b", "hop-c"}) {
            assertThat(admin("PUT", "/v1/policies/" + p, "{\"algorithm\":\"fixed-window\",\"limit\":"
                    + (p.equals("hop-a") ? 1 : p.equals("hop-b") ? 2 : 3) + ",\"window\":\"1h\"}").status())
                    .isEqualTo(201);
        }
        assertThat(admin("PUT", "/v1/policies/hop-a/overrides?key=k-hop", "{\"policy\":\"hop-b\"}").status())
                .isEqualTo(201);
        assertThat(admin("PUT", "/v1/policies/hop-b/overrides?key=k-hop", "{\"policy\":\"hop-c\"}").status())
                .isEqualTo(201);
        assertThat(admin("PUT", "/v1/policies/hop-c/overrides?key=k-hop", "{\"policy\":\"hop-a\"}").status())
                .isEqualTo(201);
        // A -> B -> C -> A: each policy asked for is decided by its own override's target only, no further
        assertThat(admin("POST", "/v1/ratelimit/check", "{\"policy\":\"hop-a\",\"key\":\"k-hop\"}").body())
                .contains("\"limit\":2,").contains("\"policy\":\"hop-b\"");
        assertThat(admin("POST", "/v1/ratelimit/check", "{\"policy\":\"hop-b\",\"key\":\"k-hop\"}").body())
                .contains("\"limit\":3,").contains("\"policy\":\"hop-c\"");
        assertThat(admin("POST", "/v1/ratelimit/check", "{\"policy\":\"hop-c\",\"key\":\"k-hop\"}").body())
                .contains("\"limit\":1,").contains("\"policy\":\"hop-a\"");
        // and a policy an override targets cannot be deleted
        assertThat(admin("DELETE", "/v1/policies/hop-b", "").status()).isEqualTo(409);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "/v1/policies/demo/overrides|{\"policy\":\"demo2\"}|key: missing",
        "/v1/policies/demo/overrides?key=k|{\"policy\":\"demo\"}|policy: 'demo' is the policy itself",
        "/v1/policies/demo/overrides?key=k|{\"policy\":\"none-such\"}|policy: 'none-such' names no policy",
        "/v1/policies/demo/overrides?key=k|{\"policy\":1}|policy: the body must be",
        "/v1/policies/demo/overrides?key=k|{\"policy\":\"gold\",\"x\":1}|policy: the body must be",
        "/v1/policies/demo/overrides?key=|{\"policy\":\"gold\"}|key: key must not be empty"})
    void aBadOverrideIs400(String target, String body, String message) {
        PeerHttp.Response r = admin("PUT", target, body);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains(message);
    }

    @Test
    void keysWithSlashesBarsAndColonsAreQueryValues() {
        admin("PUT", "/v1/policies/wide", "{\"algorithm\":\"fixed-window\",\"limit\":9,\"window\":\"1h\"}");
        String k = "route:/api/orders|ip:2001:db8::/64";
        String target = "/v1/policies/demo/overrides?key=" + key(k);
        assertThat(admin("PUT", target, "{\"policy\":\"wide\"}").status()).isEqualTo(201);
        assertThat(admin("GET", "/v1/policies/demo/overrides", "").body()).contains("\"" + k + "\":\"wide\"");
        assertThat(admin("DELETE", target, "").status()).isEqualTo(204);
    }

    /**
     * Found by a hostile review: {@code ?key=a&key=b} was joined into the key {@code a,b} and answered 201, and
     * {@code ?key=%ED%A0%80} (an encoded lone surrogate) was decoded to U+FFFD and answered 201: the override landed
     * on a key the operator never named. Each parameter must appear once and be valid UTF-8; the refusal names the
     * parameter and the problem, never the value, and nothing is written.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "PUT    | /v1/policies/demo/overrides?key=a&key=b      | key: given 2 times; send it once",
        "PUT    | /v1/policies/demo/overrides?key=%ED%A0%80    | " + NOT_UTF8,
        "PUT    | /v1/policies/demo/overrides?key=%FF          | " + NOT_UTF8,
        "PUT    | /v1/policies/demo/overrides?key=x%C0%AF      | " + NOT_UTF8,
        "PUT    | /v1/policies/demo/overrides?key=a&kye=b      | 'kye': not a parameter of this resource (it takes key)",
        "DELETE | /v1/policies/demo/overrides?key=a&key=a      | key: given 2 times; send it once",
        "GET    | /v1/policies/demo/overrides?key=%ED%A0%80    | " + NOT_UTF8,
        "GET    | /v1/policies/demo/overrides?kye=x            | 'kye': not a parameter of this resource (it takes key)",
        "PUT    | /v1/policies/de%FFmo                         | name: " + NOT_UTF8_PROBLEM,
        "GET    | /v1/policies/%ED%A0%80                       | name: " + NOT_UTF8_PROBLEM,
        "DELETE | /v1/policies/demo?force=true                 | 'force': not a parameter of this resource (it takes none)",
        "GET    | /v1/policies?page=2                          | 'page': not a parameter of this resource (it takes none)",
        "PUT    | /v1/policies/de%FFmo/overrides?key=k         | name: " + NOT_UTF8_PROBLEM})
    void aParameterGivenTwiceOrNotUtf8Is400NamingItAndWritesNothing(String method, String target, String detail) {
        String overridesBefore = admin("GET", "/v1/policies/demo/overrides", "").body();
        String policiesBefore = admin("GET", "/v1/policies", "").body();
        String body = target.contains("/overrides") ? "{\"policy\":\"gold\"}"
                : "{\"algorithm\":\"fixed-window\",\"limit\":1,\"window\":\"1h\"}";
        PeerHttp.Response r = admin(method, target, method.equals("PUT") ? body : null);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(r.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
                + "\"detail\":\"" + detail + "\"}");
        assertThat(admin("GET", "/v1/policies/demo/overrides", "").body()).isEqualTo(overridesBefore);
        assertThat(admin("GET", "/v1/policies", "").body()).isEqualTo(policiesBefore);
    }

    @Test
    void aSemicolonIsPartOfTheKeyAndAPlusIsASpace() {
        admin("PUT", "/v1/policies/semi", "{\"algorithm\":\"fixed-window\",\"limit\":9,\"window\":\"1h\"}");
        assertThat(admin("PUT", "/v1/policies/demo/overrides?key=a;b", "{\"policy\":\"semi\"}").status())
                .isEqualTo(201);
        assertThat(admin("PUT", "/v1/policies/demo/overrides?key=c+d%2Be", "{\"policy\":\"semi\"}").status())
                .isEqualTo(201);
        assertThat(admin("GET", "/v1/policies/demo/overrides", "").body()).contains("\"a;b\":\"semi\"")
                .contains("\"c d+e\":\"semi\"").doesNotContain("\"a\":");
        assertThat(admin("DELETE", "/v1/policies/demo/overrides?key=a%3Bb", "").status()).isEqualTo(204);
        assertThat(admin("DELETE", "/v1/policies/demo/overrides?key=c%20d%2Be", "").status()).isEqualTo(204);
    }
}
