package io.gridlimit.envoy;

import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.util.Collections;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** gridlimit.envoy-rls.*: off by default, loopback by default, and every bad value stops the boot naming it. */
class EnvoyRlsSettingsTest {
    private static Map<String, Object> props(Object... more) {
        Map<String, Object> p = Rls.properties("envoy-settings", "example1.yaml");
        p.put("gridlimit-test.switchable-grid", "true");
        for (int i = 0; i < more.length; i += 2) {
            p.put((String) more[i], more[i + 1]);
        }
        return p;
    }

    private static String bootError(Map<String, Object> p) {
        try (ApplicationContext c = ApplicationContext.run(p)) {
            throw new AssertionError("booted");
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t.getCause() != null && !t.getMessage().contains("Invalid GridLimit configuration")) {
                t = t.getCause();
            }
            return t.getMessage();
        }
    }

    @Test
    void offByDefault() {
        Map<String, Object> p = props();
        p.remove("gridlimit.envoy-rls.enabled");
        int port = Integer.parseInt((String) p.get("gridlimit.envoy-rls.port"));
        try (ApplicationContext c = ApplicationContext.run(p)) {
            assertThat(c.containsBean(EnvoyRlsServer.class)).isFalse();
            assertThat(c.containsBean(EnvoyRlsSettings.class)).isFalse();
            // nothing listens on the port, even though it is configured
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                    .isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void enabledInAnyCaseTurnsItOnAndAnythingButTrueOrFalseStopsBoot() {
        // found by attack: TRUE or True left the port silently closed (the beans required the exact text "true")
        for (String on : List.of("TRUE", "True", " true ")) {
            Map<String, Object> p = props("gridlimit.envoy-rls.enabled", on);
            try (ApplicationContext c = ApplicationContext.run(p);
                 Rls client = Rls.client(c, Integer.parseInt((String) p.get("gridlimit.envoy-rls.port")))) {
                assertThat(c.getBean(EnvoyRlsServer.class).port()).isEqualTo(c.getBean(EnvoyRlsSettings.class).port());
                assertThat(Rls.statuses(client.call("mongo_cps", Rls.d("database", "users"))))
                        .containsExactly("OK 499/500 per SECOND");
            }
        }
        try (ApplicationContext c = ApplicationContext.run(props("gridlimit.envoy-rls.enabled", "FALSE"))) {
            assertThat(c.containsBean(EnvoyRlsServer.class)).isFalse();
        }
        // yes, on, 1 were read as off
        for (String bad : List.of("yes", "on", "1")) {
            assertThat(bootError(props("gridlimit.envoy-rls.enabled", bad)))
                    .contains("gridlimit.envoy-rls.enabled: '" + bad + "' is not");
        }
    }

    /**
     * SPEC §12: in a YAML file {@code yes} is YAML's {@code true} (YAML 1.1, which Micronaut's parser reads) before
     * GridLimit sees it, so the port opens; only the text {@code 'yes'} (quoted there, or an environment variable or
     * system property) is refused.
     */
    @Test
    void inAYamlFileYesIsTrueAsYamlReadsItButTheTextYesStopsBoot() throws java.io.IOException {
        Map<String, Object> p = props();
        p.remove("gridlimit.envoy-rls.enabled");
        try (ApplicationContext c = ApplicationContext.builder().properties(p)
                .propertySources(yaml("gridlimit:\n  envoy-rls:\n    enabled: yes\n")).start();
             Rls client = Rls.client(c, Integer.parseInt((String) p.get("gridlimit.envoy-rls.port")))) {
            assertThat(Rls.statuses(client.call("mongo_cps", Rls.d("database", "users"))))
                    .containsExactly("OK 499/500 per SECOND");
        }
        assertThatThrownBy(() -> ApplicationContext.builder().properties(p)
                .propertySources(yaml("gridlimit:\n  envoy-rls:\n    enabled: 'yes'\n")).start().close())
                .hasMessageContaining("Invalid GridLimit configuration: gridlimit.envoy-rls.enabled: 'yes' is not "
                        + "true or false");
    }

    /**
     * {@code config-files} is a list like every other (README "Configuration reference"): an entry set in a higher
     * source replaces the lower source's whole list, so the jar's second file (here one that does not exist) is not
     * read, where a merge would keep it.
     */
    @Test
    void configFilesSetInAHigherSourceReplaceTheLowerList() throws java.io.IOException {
        Map<String, Object> p = props();
        p.remove("gridlimit.envoy-rls.config-files");
        try (ApplicationContext c = ApplicationContext.builder().properties(p)
                .propertySources(yaml("gridlimit:\n  envoy-rls:\n    config-files: [" + Rls.file("example2.yaml")
                                + ", /nonexistent/ratelimit.yaml]\n"),
                        io.micronaut.context.env.PropertySource.of("system", Map.of(
                                "gridlimit.envoy-rls.config-files[0]", Rls.file("example1.yaml")), -100))
                .start()) {
            assertThat(c.getBean(EnvoyRlsProperties.class).getConfigFiles()).containsExactly(Rls.file("example1.yaml"));
            assertThat(c.getBean(EnvoyRlsSettings.class).rules().domains().keySet()).containsExactly("mongo_cps");
        }
    }

    private static io.micronaut.context.env.PropertySource yaml(String text) throws java.io.IOException {
        return io.micronaut.context.env.PropertySource.of("envoy.yml", new io.micronaut.context.env.yaml
                .YamlPropertySourceLoader().read("envoy", new java.io.ByteArrayInputStream(
                text.getBytes(java.nio.charset.StandardCharsets.UTF_8))), -250);
    }

    @Test
    void enabledItListensOnLoopbackByDefault() throws Exception {
        try (ApplicationContext c = ApplicationContext.run(props())) {
            EnvoyRlsSettings s = c.getBean(EnvoyRlsSettings.class);
            assertThat(s.host()).isEqualTo("127.0.0.1");
            assertThat(s.loopbackOnly()).isTrue();
            assertThat(c.getBean(EnvoyRlsServer.class).port()).isEqualTo(s.port());
            new Socket(InetAddress.getLoopbackAddress(), s.port()).close();
            // and only there: this host's other addresses refuse the connection
            List<InetAddress> others = otherAddresses();
            for (InetAddress other : others) {
                assertThatThrownBy(() -> new Socket(other, s.port()).close()).as(other.toString())
                        .isInstanceOf(ConnectException.class);
            }
            // unset port and host: 8083 on loopback (read without opening it: 8083 may be taken on this machine)
            EnvoyRlsProperties raw = new EnvoyRlsProperties();
            raw.setConfigFiles(List.of(Rls.file("example1.yaml")));
            EnvoyRlsSettings defaults = new EnvoyRlsSettings(raw, c);
            assertThat(defaults.port()).isEqualTo(8083);
            assertThat(defaults.host()).isEqualTo("127.0.0.1");
            raw.setHost("0.0.0.0");
            assertThat(new EnvoyRlsSettings(raw, c).loopbackOnly()).isFalse();
        }
    }

    /** @return this host's IPv4 addresses that are not loopback (none on a host with loopback only) */
    private static List<InetAddress> otherAddresses() throws SocketException {
        List<InetAddress> out = new java.util.ArrayList<>();
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(n.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                    out.add(a);
                }
            }
        }
        return out;
    }

    @Test
    void badPortAndHostStopBootNamingThem() {
        assertThat(bootError(props("gridlimit.envoy-rls.port", "70000", "gridlimit.envoy-rls.host", "localhost")))
                .contains("gridlimit.envoy-rls.port: '70000' is not a port in [1, 65535]")
                .contains("gridlimit.envoy-rls.host: 'localhost' is not an IP address literal (write e.g. "
                        + "127.0.0.1, ::1 or 0.0.0.0)");
        // port 0 (an ephemeral port Envoy could never be pointed at) and other spellings
        for (String bad : List.of("0", "-1", "8083.0", "0x1F93")) {
            assertThat(bootError(props("gridlimit.envoy-rls.port", bad)))
                    .contains("gridlimit.envoy-rls.port: '" + bad + "' is not");
        }
        assertThat(bootError(props("gridlimit.envoy-rls.port", "9999", "gridlimit.decision-api.port", "9999")))
                .contains("gridlimit.envoy-rls.port: '9999' is also gridlimit.decision-api.port; the gRPC service "
                        + "needs a port of its own");
        // the service's default internal port, unset
        assertThat(bootError(props("gridlimit.envoy-rls.port", "8081", "gridlimit.service.enabled", "true")))
                .contains("gridlimit.envoy-rls.port: '8081' is also gridlimit.decision-api.port");
    }

    @Test
    void reloadIntervalIsOneSecondByDefaultZeroTurnsItOffAndOtherValuesOutsideTheRangeStopBoot() {
        Map<String, Object> p = props();
        p.remove("gridlimit.envoy-rls.reload-interval");
        try (ApplicationContext c = ApplicationContext.run(p)) {
            assertThat(c.getBean(EnvoyRlsSettings.class).reloadInterval()).isEqualTo(java.time.Duration.ofSeconds(1));
            assertThat(c.getBean(EnvoyRlsRules.class).running()).isTrue();
        }
        for (String off : List.of("0", "0s", "0ms")) {
            try (ApplicationContext c = ApplicationContext.run(props("gridlimit.envoy-rls.reload-interval", off))) {
                assertThat(c.getBean(EnvoyRlsSettings.class).reloadInterval()).isZero();
                assertThat(c.getBean(EnvoyRlsRules.class).running()).as(off).isFalse();
            }
        }
        try (ApplicationContext c = ApplicationContext.run(props("gridlimit.envoy-rls.reload-interval", "100ms"))) {
            assertThat(c.getBean(EnvoyRlsSettings.class).reloadInterval()).isEqualTo(java.time.Duration.ofMillis(100));
        }
        for (String bad : List.of("99ms", "61s", "2m", "-1s")) {
            assertThat(bootError(props("gridlimit.envoy-rls.reload-interval", bad))).as(bad)
                    .contains("gridlimit.envoy-rls.reload-interval: '" + bad + "' is outside [100ms, 1m]; write 0 "
                            + "to turn reloading off");
        }
        assertThat(bootError(props("gridlimit.envoy-rls.reload-interval", "soon")))
                .contains("gridlimit.envoy-rls.reload-interval: 'soon' is not a duration (write e.g. 100ms, 1s or 1m); "
                        + "write 0 to turn reloading off");
    }

    @Test
    void anUnknownNameOrARefusedFileStopsBoot() {
        assertThat(bootError(props("gridlimit.envoy-rls.prot", "8083")))
                .contains("gridlimit.envoy-rls.prot: unknown property; did you mean gridlimit.envoy-rls.port?");
        assertThat(bootError(props("gridlimit.envoy-rls.config-files", List.of(Rls.file("refused.yaml")))))
                .contains("domain 'refused', descriptor k (descriptors[0]): rate_limit.unit: 'fortnight' is not a "
                        + "unit (second, minute, hour, day, week, month or year)");
        Map<String, Object> none = props();
        none.remove("gridlimit.envoy-rls.config-files");
        assertThat(bootError(none)).contains("gridlimit.envoy-rls.config-files: is empty");
    }

    @Test
    void aPortInUseStopsBootNamingTheProperty() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(bootError(props("gridlimit.envoy-rls.port", Integer.toString(taken.getLocalPort()))))
                    .contains("gridlimit.envoy-rls.port: cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
        assertThat(Ports.freePort()).isPositive();
    }

    @Test
    void compatibilitySettingsAreCheckedAndTheirAliasesNamed() {
        String mode = RlsCompatibility.MODE_PROPERTY;
        assertThat(bootError(props(mode, "Reference"))).contains(
                "gridlimit.envoy-rls.compatibility: 'Reference' is not gridlimit or reference");
        assertThat(bootError(props(RlsCompatibility.SHADOW_PROPERTY, "yes"))).contains(
                "gridlimit.envoy-rls.shadow-mode: 'yes' is not true or false");
        assertThat(bootError(props("shadow.mode", "on"))).contains(
                "SHADOW_MODE (alias of gridlimit.envoy-rls.shadow-mode): 'on' is not true or false");
        assertThat(bootError(props(RlsCompatibility.NEAR_LIMIT_PROPERTY, "1.5"))).contains(
                "gridlimit.envoy-rls.near-limit-ratio: '1.5' is not a decimal in [0, 1]");
        assertThat(bootError(props("near.limit.ratio", "-0.1"))).contains(
                "NEAR_LIMIT_RATIO (alias of gridlimit.envoy-rls.near-limit-ratio): '-0.1' is not a decimal in [0, 1]");
        // the reference's headers under GridLimit's own answers: refused, never silently ignored
        assertThat(bootError(props("limit.response.headers.enabled", "true"))).contains(
                "LIMIT_RESPONSE_HEADERS_ENABLED (alias of gridlimit.envoy-rls.response-headers.enabled): 'true' "
                        + "applies only under gridlimit.envoy-rls.compatibility: reference");
        assertThat(bootError(props(mode, "reference", RlsCompatibility.LIMIT_HEADER_PROPERTY, "X Limit")))
                .contains("gridlimit.envoy-rls.response-headers.limit-header: 'X Limit' is not a header name");
        assertThat(bootError(props(mode, "reference", "limit.remaining.header", "ratelimit-limit"))).contains(
                "LIMIT_REMAINING_HEADER (alias of gridlimit.envoy-rls.response-headers.remaining-header): "
                        + "'ratelimit-limit' is the name of another of the three headers");
        // a name clashing with a later header's default, and a framing header (found by attack: both booted)
        assertThat(bootError(props(mode, "reference", RlsCompatibility.LIMIT_HEADER_PROPERTY,
                "RateLimit-Remaining"))).contains("gridlimit.envoy-rls.response-headers.limit-header: "
                + "'RateLimit-Remaining' is the name of another of the three headers");
        assertThat(bootError(props(mode, "reference", "limit.limit.header", "ratelimit-reset"))).contains(
                "LIMIT_LIMIT_HEADER (alias of gridlimit.envoy-rls.response-headers.limit-header): 'ratelimit-reset' "
                        + "is the name of another of the three headers");
        assertThat(bootError(props(mode, "reference", RlsCompatibility.RESET_HEADER_PROPERTY, "Content-Length")))
                .contains("'Content-Length' is a header of the message's framing or connection");
        // an unknown name under a section is an unknown property (found here: it was "'{colour=red}' is not a whole
        // number", naming the section)
        for (String section : List.of("response-headers", "tls")) {
            assertThat(bootError(props(mode, "reference", "gridlimit.envoy-rls." + section + ".colour", "red")))
                    .contains("gridlimit.envoy-rls." + section + ".colour: unknown property");
        }
        // under reference, a rule of GridLimit's algorithm extension cannot be counted as the reference counts
        assertThat(bootError(props(mode, "reference", "gridlimit.envoy-rls.config-files",
                List.of(Rls.file("buckets.yaml"))))).contains("domain 'buckets', descriptor api_key: "
                + "rate_limit.gridlimit picks token-bucket, which gridlimit.envoy-rls.compatibility: reference "
                + "cannot count (envoyproxy/ratelimit counts fixed windows only)");
        // the property wins over its alias, and the defaults are the reference's names
        Map<String, Object> p = props(mode, "reference", RlsCompatibility.HEADERS_PROPERTY, " TRUE ",
                "limit.response.headers.enabled", "false", "limit.reset.header", "X-Reset");
        try (Rls rls = Rls.client(ApplicationContext.run(p), Integer.parseInt((String) p.get(
                "gridlimit.envoy-rls.port")))) {
            assertThat(rls.context.getBean(EnvoyRlsSettings.class).compatibility()).isEqualTo(
                    new RlsCompatibility(true, false, true, "RateLimit-Limit", "RateLimit-Remaining", "X-Reset",
                            new java.math.BigDecimal("0.8")));
        }
    }

    @Test
    void mergeDomainConfigMergesOneDomainOverFilesByPropertyOrByTheReferencesVariable() {
        List<String> files = List.of(EnvoyReferenceTest.reference("merge_domain_key1.yaml"),
                EnvoyReferenceTest.reference("merge_domain_key2.yaml"));
        for (String property : List.of(EnvoyRlsSettings.MERGE_PROPERTY, "merge.domain.config",
                EnvoyRlsSettings.MERGE_PROPERTY + " ")) {
            // merge.domain.config is how Micronaut's environment source shows MERGE_DOMAIN_CONFIG; found by attack:
            // " true " passed the check but bound as false (the last case: the property's value with spaces)
            boolean spaced = property.endsWith(" ");
            Map<String, Object> p = props("gridlimit.envoy-rls.config-files", files, property.trim(),
                    spaced ? " true " : "TRUE");
            try (Rls rls = Rls.client(ApplicationContext.run(p),
                    Integer.parseInt((String) p.get("gridlimit.envoy-rls.port")))) {
                assertThat(rls.context.getBean(EnvoyRlsSettings.class).mergeDomainConfig()).isTrue();
                assertThat(Rls.statuses(rls.call("merged", Rls.d("key1", "value1"), Rls.d("key2", "value2"))))
                        .as(property).containsExactly("OK 9/10 per MINUTE", "OK 19/20 per MINUTE");
            }
        }
        assertThat(bootError(props("gridlimit.envoy-rls.config-files", files))).contains(
                "domain 'merged' is also defined in");
        assertThat(bootError(props("gridlimit.envoy-rls.config-files", files, "merge.domain.config", "yes")))
                .contains("MERGE_DOMAIN_CONFIG (alias of gridlimit.envoy-rls.merge-domain-config): 'yes' is not "
                        + "true or false");
        assertThat(bootError(props("gridlimit.envoy-rls.config-files", files,
                EnvoyRlsSettings.MERGE_PROPERTY, "yes"))).contains("gridlimit.envoy-rls.merge-domain-config");
    }

    @Test
    void whatLeavesARouteLessProtectedIsLoggedAtWarnAtBoot() {
        ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(EnvoyRlsSettings.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
                new ch.qos.logback.core.read.ListAppender<>();
        seen.start();
        log.addAppender(seen);
        try (ApplicationContext c = ApplicationContext.run(props("gridlimit.envoy-rls.config-files",
                List.of(EnvoyReferenceTest.reference("resolutions.yaml"))))) {
            List<String> warnings = c.getBean(EnvoyRlsSettings.class).rules().warnings();
            assertThat(warnings).hasSize(4);
            assertThat(seen.list).filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN)
                    .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .containsExactlyElementsOf(warnings.stream().map(w -> "Envoy configuration: " + w).toList());
        } finally {
            log.detachAppender(seen);
        }
    }
}
