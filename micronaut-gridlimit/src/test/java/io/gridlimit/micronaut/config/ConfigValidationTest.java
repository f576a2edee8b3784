package io.gridlimit.micronaut.config;

import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every invalid configuration stops the boot with one message naming the property path and the bad value. Each
 * case starts an application context (the grid never starts: the configuration fails first). Note that list
 * entries merge field by field with lower-priority sources (the service's application.yml has routes[0]), so a
 * route missing a field is tested at index 1.
 */
class ConfigValidationTest {
    private static final String P = "gridlimit.policies.";
    private static final String R = "gridlimit.routes";

    static Stream<Arguments> invalid() {
        return Stream.of(
                arguments("unknown algorithm", Map.of(P + "x.algorithm", "token-buckets", P + "x.limit", "5"),
                        P + "x.algorithm", "token-buckets"),
                arguments("zero limit", window("x", "fixed-window", "0", "10s"), P + "x.limit", "'0'"),
                arguments("negative capacity", bucket("x", "-5", "1", "1s"), P + "x.capacity", "'-5'"),
                arguments("zero refill tokens", bucket("x", "10", "0", "1s"), P + "x.refill-tokens", "'0'"),
                arguments("log limit out of range", window("x", "sliding-window-log", "100001", "10s"),
                        P + "x.limit", "'100001'"),
                arguments("quantity beyond 10^15", bucket("x", "1000000000000001", "1", "1s"), P + "x.capacity",
                        "'1000000000000001'"),
                arguments("window beyond 365 days", window("x", "fixed-window", "5", "366d"), P + "x.window",
                        "'366d'"),
                arguments("window below 1 ms", window("x", "fixed-window", "5", "999us"), P + "x.window",
                        "'999us'"),
                arguments("non-numeric limit", window("x", "sliding-window-counter", "abc", "10s"), P + "x.limit",
                        "'abc'"),
                arguments("fractional limit", window("x", "fixed-window", "2.5", "10s"), P + "x.limit", "'2.5'"),
                arguments("non-numeric refill tokens", bucket("x", "10", "lots", "1s"), P + "x.refill-tokens",
                        "'lots'"),
                arguments("malformed duration", bucket("x", "10", "1", "10x"), P + "x.refill-period", "'10x'"),
                arguments("bare number duration", window("x", "fixed-window", "5", "10"), P + "x.window", "'10'"),
                arguments("missing parameter", Map.of(P + "x.algorithm", "gcra", P + "x.capacity", "5",
                        P + "x.refill-period", "1s"), P + "x.refill-tokens", "missing"),
                arguments("parameter of another algorithm", Map.of(P + "x.algorithm", "fixed-window",
                        P + "x.limit", "5", P + "x.window", "1s", P + "x.capacity", "9"), P + "x.capacity", "'9'"),
                arguments("bad band value", Map.of(P + "t.bands.burst.algorithm", "gcra",
                        P + "t.bands.burst.capacity", "0", P + "t.bands.burst.refill-tokens", "1",
                        P + "t.bands.burst.refill-period", "1s"), P + "t.bands.burst.capacity", "'0'"),
                arguments("bad shadow flag", Map.of(P + "x.algorithm", "fixed-window", P + "x.limit", "5",
                        P + "x.window", "1s", P + "x.shadow", "maybe"), P + "x.shadow", "'maybe'"),
                arguments("route naming an unknown policy", route(Map.of("pattern", "/a", "policy", "nope")),
                        R + "[0].policy", "'nope'"),
                arguments("route without pattern", Map.of(P + "demo.algorithm", "sliding-window-log",
                        P + "demo.limit", "5", P + "demo.window", "10s", R, List.of(
                                Map.of("pattern", "/a", "policy", "demo"), Map.of("policy", "demo"))),
                        R + "[1].pattern", "missing"),
                arguments("route pattern without slash", route(Map.of("pattern", "a/**", "policy", "demo")),
                        R + "[0].pattern", "'a/**'"),
                arguments("header key source without a name",
                        route(Map.of("pattern", "/a", "policy", "demo", "key", List.of("header:"))),
                        R + "[0].key[0]", "'header:'"),
                arguments("bare header key source",
                        route(Map.of("pattern", "/a", "policy", "demo", "key", List.of("client-ip", "header"))),
                        R + "[0].key[1]", "'header'"),
                arguments("unknown key source",
                        route(Map.of("pattern", "/a", "policy", "demo", "key", List.of("cookie"))),
                        R + "[0].key[0]", "'cookie'"),
                arguments("zero cost", route(Map.of("pattern", "/a", "policy", "demo", "cost", "0")),
                        R + "[0].cost", "'0'"),
                arguments("cost above the quota", route(Map.of("pattern", "/a", "policy", "demo", "cost", "6")),
                        R + "[0].cost", "'6'"),
                arguments("bad on-missing-key", route(Map.of("pattern", "/a", "policy", "demo",
                        "on-missing-key", "ignore")), R + "[0].on-missing-key", "'ignore'"),
                arguments("bad method", route(Map.of("pattern", "/a", "policy", "demo", "methods",
                        List.of("GET", "FETCH"))), R + "[0].methods[1]", "'FETCH'"),
                arguments("malformed CIDR", Map.of("gridlimit.client-ip.trusted-proxies",
                        List.of("10.0.0.0/8", "10.0.0.0/33")), "gridlimit.client-ip.trusted-proxies[1]",
                        "'10.0.0.0/33'"),
                arguments("host name as proxy", Map.of("gridlimit.client-ip.trusted-proxies",
                        List.of("proxy.example")), "gridlimit.client-ip.trusted-proxies[0]", "'proxy.example'"),
                arguments("ipv6 prefix out of range", Map.of("gridlimit.client-ip.ipv6-prefix", "129"),
                        "gridlimit.client-ip.ipv6-prefix", "'129'"),
                arguments("bad headers mode", Map.of("gridlimit.headers", "fancy"), "gridlimit.headers", "'fancy'"),
                arguments("bad failure mode", Map.of("gridlimit.failure-mode", "maybe"), "gridlimit.failure-mode",
                        "'maybe'"),
                arguments("zero local max-keys", Map.of("gridlimit.local.max-keys", "0"),
                        "gridlimit.local.max-keys", "'0'"),
                arguments("non-numeric local max-keys", Map.of("gridlimit.local.max-keys", "lots"),
                        "gridlimit.local.max-keys", "'lots'"),
                arguments("zero expected replicas", Map.of("gridlimit.local.expected-replicas", "0"),
                        "gridlimit.local.expected-replicas", "'0'"),
                arguments("too many expected replicas", Map.of("gridlimit.local.expected-replicas", "10001"),
                        "gridlimit.local.expected-replicas", "'10001'"),
                arguments("zero grid timeout", Map.of("gridlimit.grid-timeout", "0ms"), "gridlimit.grid-timeout",
                        "'0ms'"),
                arguments("bad hazelcast mode", Map.of("gridlimit.hazelcast.mode", "cloud"),
                        "gridlimit.hazelcast.mode", "'cloud'"),
                arguments("bad hazelcast port", Map.of("gridlimit.hazelcast.port", "70000"),
                        "gridlimit.hazelcast.port", "'70000'"),
                arguments("missing hazelcast config file", Map.of("gridlimit.hazelcast.config-file",
                        "/nonexistent/hazelcast.yaml"), "gridlimit.hazelcast.config-file",
                        "'/nonexistent/hazelcast.yaml'"),
                arguments("exempt pattern without slash", Map.of("gridlimit.exempt", List.of("health")),
                        "gridlimit.exempt[0]", "'health'"),
                arguments("@RateLimited naming an unknown policy", Map.of("gridlimit-test.bad-annotation", "true"),
                        "@RateLimited on BadAnnotationController#bad", "'no-such-policy'"),
                arguments("@RateLimited with a nameless header key", Map.of("gridlimit-test.bad-annotation", "true"),
                        "@RateLimited on BadAnnotationController#bad: key", "'header:'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidConfigurationStopsTheBoot(String name, Map<String, Object> properties, String path, String value) {
        Map<String, Object> all = new HashMap<>(properties);
        all.putIfAbsent("gridlimit.hazelcast.port", Integer.toString(Ports.freePort()));
        all.putIfAbsent("micronaut.application.name", "gl-validation");
        assertThatThrownBy(() -> ApplicationContext.run(all).close())
                .hasMessageContaining("Invalid GridLimit configuration")
                .hasMessageContaining(path)
                .hasMessageContaining(value);
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"gl-empty-bands-map", "gl-empty-bands-list"})
    void anEmptyBandListStopsTheBoot(String environment) {
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("gridlimit.hazelcast.port",
                Integer.toString(Ports.freePort()), "micronaut.application.name", "gl-validation"), environment).close())
                .hasMessageContaining("Invalid GridLimit configuration")
                .hasMessageContaining("gridlimit.policies.empty.bands: '" + (environment.endsWith("map") ? "{}" : "[]")
                        + "' is not a map of settings, or is empty");
    }

    private static Map<String, Object> window(String policy, String algorithm, String limit, String window) {
        return Map.of(P + policy + ".algorithm", algorithm, P + policy + ".limit", limit, P + policy + ".window",
                window);
    }

    private static Map<String, Object> bucket(String policy, String capacity, String refillTokens, String period) {
        return Map.of(P + policy + ".algorithm", "token-bucket", P + policy + ".capacity", capacity,
                P + policy + ".refill-tokens", refillTokens, P + policy + ".refill-period", period);
    }

    private static Map<String, Object> route(Map<String, Object> route) {
        return Map.of(P + "demo.algorithm", "sliding-window-log", P + "demo.limit", "5", P + "demo.window", "10s",
                R, List.of(route));
    }
}
