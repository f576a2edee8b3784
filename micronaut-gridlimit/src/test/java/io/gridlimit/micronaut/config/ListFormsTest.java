package io.gridlimit.micronaut.config;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.MapPropertySource;
import io.micronaut.context.env.PropertiesPropertySourceLoader;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every list syntax Micronaut reads binds, at every level, and a list set in a higher-precedence source replaces the
 * whole list of lower ones (README "Configuration reference"). Sources are read by Micronaut's own loaders and given
 * Micronaut's orders: {@code application.yml} -300, a {@code MICRONAUT_CONFIG_FILES} file -250, environment
 * variables -200, system properties -100. Each case asserts the bound values exactly. No grid starts (fake limiter).
 */
class ListFormsTest {
    private static final int APPLICATION = -300;
    private static final int CONFIG_FILE = -250;
    private static final int SYSTEM = -100;
    private static final String DEMO = "gridlimit.policies.demo.algorithm=fixed-window\n"
            + "gridlimit.policies.demo.limit=5\ngridlimit.policies.demo.window=10s\n";
    /** A jar's defaults: every route setting away from its default, so that an inherited one shows. */
    private static final String JAR = "gridlimit:\n"
            + "  policies:\n    demo: {algorithm: sliding-window-log, limit: 5, window: 10s}\n"
            + "  plans:\n    tiers: {header: X-Plan, policies: {gold: demo}}\n"
            + "  routes:\n"
            + "    - pattern: /demo/hello\n      methods: [GET]\n      policy: demo\n"
            + "      key: ['header:X-Api-Key']\n      cost: 2\n      on-missing-key: skip\n      plan: tiers\n"
            + "    - {pattern: /demo/other, policy: demo}\n"
            + "  exempt: [/health/**, /prometheus]\n"
            + "  client-ip: {trusted-proxies: [10.0.0.0/8, 192.168.0.0/16]}\n"
            + "  hazelcast: {members: [127.0.0.1, '127.0.0.1:5702'], interfaces: [127.0.0.1]}\n";

    static Stream<Arguments> topLevelForms() {
        return Stream.of(
                arguments("properties, indexed", props("gridlimit.exempt[0]=/a\ngridlimit.exempt[1]=/b\n"
                        + "gridlimit.client-ip.trusted-proxies[0]=10.0.0.1\n"
                        + "gridlimit.client-ip.trusted-proxies[1]=10.0.0.2\n"
                        + "gridlimit.hazelcast.members[0]=127.0.0.1:6001\ngridlimit.hazelcast.members[1]=localhost\n"
                        + "gridlimit.hazelcast.interfaces[0]=127.0.0.1\n", APPLICATION)),
                arguments("properties, comma-separated", props("gridlimit.exempt=/a,/b\n"
                        + "gridlimit.client-ip.trusted-proxies=10.0.0.1,10.0.0.2\n"
                        + "gridlimit.hazelcast.members=127.0.0.1:6001,localhost\n"
                        + "gridlimit.hazelcast.interfaces=127.0.0.1\n", APPLICATION)),
                arguments("YAML flow lists", yaml("gridlimit:\n  exempt: [/a, /b]\n"
                        + "  client-ip: {trusted-proxies: [10.0.0.1, 10.0.0.2]}\n"
                        + "  hazelcast: {members: ['127.0.0.1:6001', localhost], interfaces: [127.0.0.1]}\n",
                        APPLICATION)),
                arguments("YAML block lists", yaml("gridlimit:\n  exempt:\n    - /a\n    - /b\n"
                        + "  client-ip:\n    trusted-proxies:\n      - 10.0.0.1\n      - 10.0.0.2\n"
                        + "  hazelcast:\n    members:\n      - 127.0.0.1:6001\n      - localhost\n"
                        + "    interfaces:\n      - 127.0.0.1\n", APPLICATION)),
                arguments("environment variables, comma-separated", env(Map.of("GRIDLIMIT_EXEMPT", "/a,/b",
                        "GRIDLIMIT_CLIENT_IP_TRUSTED_PROXIES", "10.0.0.1,10.0.0.2",
                        "GRIDLIMIT_HAZELCAST_MEMBERS", "127.0.0.1:6001,localhost",
                        "GRIDLIMIT_HAZELCAST_INTERFACES", "127.0.0.1"))),
                arguments("system properties, indexed, over the jar's YAML lists", yaml(JAR, APPLICATION).and(props("gridlimit.exempt[0]=/a\ngridlimit.exempt[1]=/b\n"
                        + "gridlimit.client-ip.trusted-proxies[0]=10.0.0.1\n"
                        + "gridlimit.client-ip.trusted-proxies[1]=10.0.0.2\n"
                        + "gridlimit.hazelcast.members[0]=127.0.0.1:6001\ngridlimit.hazelcast.members[1]=localhost\n"
                        + "gridlimit.hazelcast.interfaces=127.0.0.1\n", SYSTEM))),
                arguments("environment variables over the jar's YAML lists", yaml(JAR, APPLICATION).and(
                        env(Map.of("GRIDLIMIT_EXEMPT", "/a,/b", "GRIDLIMIT_CLIENT_IP_TRUSTED_PROXIES",
                                "10.0.0.1,10.0.0.2", "GRIDLIMIT_HAZELCAST_MEMBERS", "127.0.0.1:6001,localhost",
                                "GRIDLIMIT_HAZELCAST_INTERFACES", "127.0.0.1")))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("topLevelForms")
    void everyFormOfATopLevelListBindsExactly(String form, Sources sources) {
        try (ApplicationContext ctx = start(sources)) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.exempt()).containsExactly("/a", "/b");
            assertThat(c.clientIp().trustedProxies()).extracting(Object::toString)
                    .containsExactly("10.0.0.1/32", "10.0.0.2/32");
            assertThat(c.hazelcast().members()).containsExactly("127.0.0.1:6001", "localhost");
            assertThat(c.hazelcast().interfaces()).containsExactly("127.0.0.1");
        }
    }

    static Stream<Arguments> routeForms() {
        String keys = "gridlimit.routes[0].pattern=/api/**\ngridlimit.routes[0].policy=demo\n";
        return Stream.of(
                arguments("properties, indexed at every level", props(DEMO + keys
                        + "gridlimit.routes[0].key[0]=header:X-User\ngridlimit.routes[0].key[1]=client-ip\n"
                        + "gridlimit.routes[0].methods[0]=POST\ngridlimit.routes[0].methods[1]=PUT\n"
                        + "gridlimit.routes[1].pattern=/b\ngridlimit.routes[1].policy=demo\n", APPLICATION)),
                arguments("properties, indexed routes, comma-separated keys and methods", props(DEMO + keys
                        + "gridlimit.routes[0].key=header:X-User,client-ip\ngridlimit.routes[0].methods=POST,PUT\n"
                        + "gridlimit.routes[1].pattern=/b\ngridlimit.routes[1].policy=demo\n", APPLICATION)),
                arguments("YAML flow lists", yaml("gridlimit:\n  policies: {demo: {algorithm: fixed-window, "
                        + "limit: 5, window: 10s}}\n  routes: [{pattern: /api/**, policy: demo, key: ['header:X-User',"
                        + " client-ip], methods: [POST, PUT]}, {pattern: /b, policy: demo}]\n", APPLICATION)),
                arguments("YAML block lists", yaml("gridlimit:\n  policies:\n    demo:\n      algorithm: fixed-window"
                        + "\n      limit: 5\n      window: 10s\n  routes:\n    - pattern: /api/**\n      policy: demo\n"
                        + "      key:\n        - header:X-User\n        - client-ip\n      methods:\n        - POST\n"
                        + "        - PUT\n    - pattern: /b\n      policy: demo\n", APPLICATION)),
                arguments("system properties, indexed, over the jar's routes", yaml(JAR, APPLICATION).and(
                        props("gridlimit.policies.demo.limit=5\n" + keys
                                + "gridlimit.routes[0].key[0]=header:X-User\ngridlimit.routes[0].key[1]=client-ip\n"
                                + "gridlimit.routes[0].methods[0]=POST\ngridlimit.routes[0].methods[1]=PUT\n"
                                + "gridlimit.routes[1].pattern=/b\ngridlimit.routes[1].policy=demo\n", SYSTEM))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routeForms")
    void everyFormOfRoutesAndTheirListsBindsExactly(String form, Sources sources) {
        try (ApplicationContext ctx = start(sources)) {
            List<RouteRule> routes = ctx.getBean(GridLimitConfig.class).routes();
            assertThat(routes).hasSize(2);
            RouteRule api = routes.get(0);
            assertThat(api.pattern()).isEqualTo("/api/**");
            assertThat(api.methods()).isEqualTo(Set.of("POST", "PUT"));
            assertThat(api.keys()).containsExactly(new KeySource(KeySource.Kind.HEADER, "X-User"),
                    new KeySource(KeySource.Kind.CLIENT_IP, null));
            assertThat(api.cost()).isEqualTo(1);
            assertThat(api.onMissingKey()).isEqualTo(OnMissingKey.REJECT);
            RouteRule b = routes.get(1);
            assertThat(b.pattern()).isEqualTo("/b");
            assertThat(b.methods()).isEmpty();
            assertThat(b.keys()).containsExactly(new KeySource(KeySource.Kind.CLIENT_IP, null));
            assertThat(ctx.getBeansOfType(RouteProperties.class)).extracting(RouteProperties::plan)
                    .containsOnlyNulls();
        }
    }

    /**
     * The attack (issue 21): an override file's one route inherited the jar's routes[0] methods [GET], so POST went
     * unlimited; its key, cost, on-missing-key and plan leaked in too, and the jar's routes[1] survived.
     */
    @Test
    void anOverrideFilesRoutesReplaceTheJarsWithNothingLeftBehind() {
        try (ApplicationContext ctx = start(yaml(JAR, APPLICATION).and(yaml("gridlimit:\n  policies:\n"
                + "    api: {algorithm: fixed-window, limit: 2, window: 1h}\n"
                + "  routes: [{pattern: /nothing/**, policy: api}]\n", CONFIG_FILE)))) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.routes()).hasSize(1);
            RouteRule r = c.routes().get(0);
            assertThat(r.origin()).isEqualTo("gridlimit.routes[0]");
            assertThat(r.pattern()).isEqualTo("/nothing/**");
            assertThat(r.policy().name()).isEqualTo("api");
            assertThat(r.methods()).as("every method, POST included").isEmpty();
            assertThat(r.matches("POST", "/nothing/x")).isTrue();
            assertThat(r.keys()).containsExactly(new KeySource(KeySource.Kind.CLIENT_IP, null));
            assertThat(r.cost()).isEqualTo(1);
            assertThat(r.onMissingKey()).isEqualTo(OnMissingKey.REJECT);
            assertThat(ctx.getBeansOfType(RouteProperties.class)).containsExactly(
                    new RouteProperties(0, "/nothing/**", null, "api", null, 1, OnMissingKey.REJECT, null));
            assertThat(c.policies().keySet()).as("maps still merge").contains("demo", "api");
            assertThat(c.exempt()).as("a list the override does not set stays the jar's")
                    .containsExactly("/health/**", "/prometheus");
        }
    }

    @Test
    void anIndexedOverrideReplacesTheWholeListNotItsFirstEntries() {
        try (ApplicationContext ctx = start(yaml(JAR, APPLICATION).and(props(
                "gridlimit.routes[0].pattern=/x/**\ngridlimit.routes[0].policy=demo\n"
                        + "gridlimit.exempt[0]=/only\ngridlimit.client-ip.trusted-proxies[0]=10.9.9.9\n", CONFIG_FILE)))) {
            GridLimitConfig c = ctx.getBean(GridLimitConfig.class);
            assertThat(c.routes()).extracting(RouteRule::pattern).containsExactly("/x/**");
            assertThat(c.routes().get(0).methods()).isEmpty();
            assertThat(c.routes().get(0).cost()).isEqualTo(1);
            assertThat(c.exempt()).containsExactly("/only");
            assertThat(c.clientIp().trustedProxies()).extracting(Object::toString).containsExactly("10.9.9.9/32");
        }
    }

    @Test
    void aRouteWithoutAPolicyInAnOverrideIsRefusedThoughTheJarsRouteHasOne() {
        assertThatThrownBy(() -> start(yaml(JAR, APPLICATION).and(
                yaml("gridlimit: {routes: [{pattern: /nothing/**}]}", CONFIG_FILE))).close())
                .hasMessageContaining("Invalid GridLimit configuration: gridlimit.routes[0].policy: missing");
    }

    @Test
    void aListNumberedWithAGapIsRefusedNamingTheMissingEntry() {
        assertThatThrownBy(() -> start(yaml(JAR, APPLICATION).and(
                props("gridlimit.exempt[1]=/x\n", CONFIG_FILE))).close())
                .hasMessageContaining("gridlimit.exempt[0]: missing: 'over' sets gridlimit.exempt[1] but not "
                        + "gridlimit.exempt[0]; a list set in one place replaces the whole list of lower-precedence "
                        + "sources, so number its entries from 0 without gaps");
        assertThatThrownBy(() -> start(props(DEMO + "gridlimit.routes[0].pattern=/a\n"
                + "gridlimit.routes[0].policy=demo\ngridlimit.routes[0].key[1]=global\n", APPLICATION)).close())
                .hasMessageContaining("gridlimit.routes[0].key[0]: missing");
    }

    static Stream<Arguments> indexedEnvironmentVariables() {
        return Stream.of(
                arguments("GRIDLIMIT_ROUTES_0_PATTERN", "GRIDLIMIT_ROUTES_0_PATTERN: an environment variable "
                        + "cannot set one entry of a list (GridLimit replaces a list whole); set the list in a "
                        + "configuration file (MICRONAUT_CONFIG_FILES=/path/to/override.yml, whose list replaces the "
                        + "whole list)"),
                arguments("GRIDLIMIT_ROUTES_0_KEY_0", "GRIDLIMIT_ROUTES_0_KEY_0: an environment variable cannot set"),
                arguments("GRIDLIMIT_ROUTES_12_ON_MISSING_KEY", "GRIDLIMIT_ROUTES_12_ON_MISSING_KEY: an environment "
                        + "variable cannot set"),
                arguments("GRIDLIMIT_EXEMPT_0", "GRIDLIMIT_EXEMPT_0: an environment variable cannot set one entry "
                        + "of a list (GridLimit replaces a list whole); set the whole list (GRIDLIMIT_EXEMPT=a,b) or "
                        + "set the list in a configuration file"),
                arguments("GRIDLIMIT_CLIENT_IP_TRUSTED_PROXIES_0", "GRIDLIMIT_CLIENT_IP_TRUSTED_PROXIES_0: an "
                        + "environment variable cannot set one entry of a list (GridLimit replaces a list whole); set "
                        + "the whole list (GRIDLIMIT_CLIENT_IP_TRUSTED_PROXIES=a,b)"),
                arguments("GRIDLIMIT_ROUTES", "GRIDLIMIT_ROUTES: gridlimit.routes is a list of settings, which an "
                        + "environment variable cannot hold; set the list in a configuration file"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("indexedEnvironmentVariables")
    void anEnvironmentVariableForAnEntryOfAListStopsTheBootPointingToAFile(String variable, String message) {
        assertThatThrownBy(() -> start(yaml(JAR, APPLICATION).and(env(Map.of(variable, "/x")))).close())
                .hasMessageContaining("Invalid GridLimit configuration: ").hasMessageContaining(message);
    }

    @Test
    void aNumberedKeyMicronautWouldNeverBindIsRefused() {
        assertThatThrownBy(() -> start(props(DEMO + "gridlimit.routes.0.pattern=/a\n"
                + "gridlimit.routes.0.policy=demo\n", APPLICATION)).close())
                .hasMessageContaining("gridlimit.routes.0.pattern: gridlimit.routes is written as a map; it is a "
                        + "list (one '- pattern: …' per rule, or gridlimit.routes[0].pattern=…)");
        assertThatThrownBy(() -> start(props("gridlimit.exempt.0=/a\n", APPLICATION)).close())
                .hasMessageContaining("gridlimit.exempt.0: an entry of the list gridlimit.exempt is written "
                        + "gridlimit.exempt[0]");
    }

    /** Property sources in Micronaut's order of precedence (the last wins). */
    record Sources(PropertySource... sources) {
        Sources and(Sources more) {
            return new Sources(Stream.concat(Stream.of(sources), Stream.of(more.sources))
                    .toArray(PropertySource[]::new));
        }

        @Override
        public String toString() {
            return Stream.of(sources).sorted(Comparator.comparingInt(PropertySource::getOrder))
                    .map(PropertySource::getName).toList().toString();
        }
    }

    private static ApplicationContext start(Sources sources) {
        return ApplicationContext.builder().propertySources(sources.sources())
                .properties(Map.of("micronaut.application.name", "gl-lists", "gridlimit-test.limiter", "never"))
                .start();
    }

    /** A properties file's text as Micronaut's loader reads it; named 'application' at -300, else 'over'. */
    private static Sources props(String text, int order) {
        try {
            Map<String, Object> map = new PropertiesPropertySourceLoader().read("over",
                    new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            return new Sources(PropertySource.of(order == APPLICATION ? "application" : "over", map, order));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A YAML file's text as Micronaut's loader reads it; named 'jar' at -300, else 'override'. */
    private static Sources yaml(String text, int order) {
        try {
            Map<String, Object> map = new YamlPropertySourceLoader().read("yaml",
                    new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            return new Sources(PropertySource.of(order == APPLICATION ? "jar" : "override", map, order));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Environment variables as Micronaut's own source ({@code EnvironmentPropertySource}) holds them: its order -200,
     * and its renaming of an index ({@code GRIDLIMIT_ROUTES_0_PATTERN} is held as {@code GRIDLIMIT_ROUTES[0]PATTERN}).
     */
    private static Sources env(Map<String, Object> variables) {
        Map<String, Object> held = new java.util.LinkedHashMap<>();
        variables.forEach((k, v) -> held.put(k.replaceAll("_([0-9]{1,2})(?:_|$)", "[$1]"), v));
        return new Sources(new MapPropertySource("env", held) {
            @Override
            public int getOrder() {
                return -200;
            }

            @Override
            public PropertyConvention getConvention() {
                return PropertyConvention.ENVIRONMENT_VARIABLE;
            }
        });
    }
}
