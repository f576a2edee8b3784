package io.gridlimit.envoy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsConfigReader;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/SPEC.md §12, "Reload": the files are checked every {@code reload-interval} (100 ms here), a valid new set is
 * applied within the bound (awaited at most 5 s, never slept), an invalid one is refused with the boot's message
 * while the old rules decide, and both are counted. One member on a manual clock, each test at a fresh minute, so
 * every count below is exact: {@code user} is limited per minute, and the window never rolls during a test.
 */
class EnvoyReloadTest {
    static final long MINUTE_NANOS = Duration.ofMinutes(1).toNanos();

    @TempDir
    Path dir;
    Rls rls;
    final ListAppender<ILoggingEvent> log = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(EnvoyRlsRules.class);

    @BeforeEach
    void listen() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stop() {
        logger.detachAppender(log);
        if (rls != null) {
            rls.close();
        }
    }

    static String rules(String domain, long perMinute) {
        return "domain: " + domain + "\ndescriptors:\n  - key: user\n    rate_limit:\n      unit: minute\n"
                + "      requests_per_unit: " + perMinute + "\n";
    }

    private Map<String, Object> properties(String cluster, Path configured) {
        Map<String, Object> p = Rls.properties(cluster);
        p.put("gridlimit.envoy-rls.config-files", List.of(configured.toString()));
        p.put("gridlimit.envoy-rls.reload-interval", "100ms");
        return p;
    }

    private void start(String cluster, Path configured) {
        rls = Rls.start(properties(cluster, configured));
        ManualTimeSource clock = rls.context.getBean(ManualTimeSource.class);
        clock.setNanos((clock.peekNanos() / MINUTE_NANOS + 1) * MINUTE_NANOS);
    }

    private double reloads(String result) {
        return rls.context.getBean(MeterRegistry.class).get(EnvoyRlsRules.RELOADS).tag("result", result).counter()
                .count();
    }

    private EnvoyRlsRules rules() {
        return rls.context.getBean(EnvoyRlsRules.class);
    }

    private List<String> calls(int times, String domain) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            out.addAll(statuses(rls.call(domain, d("user", "alice"))));
        }
        return out;
    }

    private void awaitReloads(String result, int count) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> reloads(result) == count);
    }

    private List<String> messages(Level level) {
        return log.list.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** The digest by hand (SPEC §12): SHA-256 of length-prefixed path and bytes, the first 12 hex digits. */
    private static String digest(Path file) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (byte[] part : List.of(file.toString().getBytes(StandardCharsets.UTF_8), Files.readAllBytes(file))) {
            sha.update((part.length + ":").getBytes(StandardCharsets.US_ASCII));
            sha.update(part);
        }
        return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
    }

    @Test
    void aFileEditedInPlaceAppliesTheNewLimitToTheSameKeys() throws Exception {
        Path file = Files.writeString(dir.resolve("reload.yaml"), rules("reload", 3));
        start("envoy-reload-edit", dir);
        String boot = digest(file);
        assertThat(rules().current().digest()).startsWith(boot);
        assertThat(calls(2, "reload")).containsExactly("OK 2/3 per MINUTE", "OK 1/3 per MINUTE");

        Files.writeString(file, rules("reload", 5)); // in place: the same file, truncated and rewritten
        awaitReloads("applied", 1);
        // the policy of the same name now allows 5 per minute; its window keeps the 2 already counted (SPEC §4)
        assertThat(calls(4, "reload")).containsExactly("OK 2/5 per MINUTE", "OK 1/5 per MINUTE",
                "OK 0/5 per MINUTE", "OVER_LIMIT 0/5 per MINUTE");
        assertThat(reloads("refused")).isZero();
        assertThat(messages(Level.INFO)).containsExactly("Envoy rate limit service: configuration " + digest(file)
                + " applied (was " + boot + "): 1 domain(s), 1 rule(s)");
        // nothing changed since: the checks see the set in force
        assertThat(rules().check()).isEqualTo(EnvoyRlsRules.Check.UNCHANGED);
    }

    @Test
    void aFileAddedIsServedAndAnUnchangedRuleKeepsItsPolicyAndState() throws Exception {
        Files.writeString(dir.resolve("a.yaml"), rules("kept", 3));
        start("envoy-reload-add", dir);
        Policy before = policy(rules().current(), "kept");
        assertThat(calls(1, "kept")).containsExactly("OK 2/3 per MINUTE");
        assertThat(calls(1, "added")).containsExactly("OK 0"); // an unknown domain: OK, nothing decided

        Files.writeString(dir.resolve("b.yaml"), rules("added", 2));
        awaitReloads("applied", 1);
        assertThat(policy(rules().current(), "kept")).isEqualTo(before);
        assertThat(calls(3, "kept")).containsExactly("OK 1/3 per MINUTE", "OK 0/3 per MINUTE",
                "OVER_LIMIT 0/3 per MINUTE");
        assertThat(calls(3, "added")).containsExactly("OK 1/2 per MINUTE", "OK 0/2 per MINUTE",
                "OVER_LIMIT 0/2 per MINUTE");
    }

    private static Policy policy(RlsConfig set, String domain) {
        return set.rules().stream().filter(r -> r.domain().equals(domain)).map(RlsRule::policy).findFirst()
                .orElseThrow();
    }

    /**
     * A Kubernetes ConfigMap volume: the listed directory's entries are symlinks into {@code ..data}, itself a
     * symlink to a timestamped directory; the kubelet writes a new timestamped directory and renames a new link over
     * {@code ..data} in one step. The listed file's own path and link never change.
     */
    @Test
    void aConfigMapSymlinkSwapIsApplied() throws Exception {
        Path first = Files.createDirectory(dir.resolve("..2026_12_03_07_00_00.000000001"));
        Files.writeString(first.resolve("edge.yaml"), rules("edge", 3));
        Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
        Files.createSymbolicLink(dir.resolve("edge.yaml"), Path.of("..data", "edge.yaml"));
        start("envoy-reload-configmap", dir);
        assertThat(calls(1, "edge")).containsExactly("OK 2/3 per MINUTE");

        Path second = Files.createDirectory(dir.resolve("..2026_12_03_07_01_00.000000002"));
        Files.writeString(second.resolve("edge.yaml"), rules("edge", 10));
        Path link = Files.createSymbolicLink(dir.resolve("..data_tmp"), second.getFileName());
        Files.move(link, dir.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        deleteTree(first);
        awaitReloads("applied", 1);
        assertThat(calls(1, "edge")).containsExactly("OK 8/10 per MINUTE");
        assertThat(reloads("refused")).isZero();
    }

    private static void deleteTree(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(directory);
    }

    @Test
    void anInvalidEditIsRefusedWithTheBootsMessageAndTheOldRulesDecide() throws Exception {
        Path file = Files.writeString(dir.resolve("reload.yaml"), rules("reload", 3));
        start("envoy-reload-refused", dir);
        String inForce = digest(file);
        assertThat(calls(1, "reload")).containsExactly("OK 2/3 per MINUTE");

        Files.writeString(file, rules("reload", 4_294_967_296L)); // above the proto's uint32
        awaitReloads("refused", 1);
        String boot = bootError(properties("envoy-reload-refused-boot", dir));
        assertThat(boot).isEqualTo("Invalid GridLimit configuration: " + file + ": domain 'reload', descriptor user "
                + "(descriptors[0]): rate_limit.requests_per_unit: '4294967296' is outside [0, 4294967295]");
        assertThat(rules().lastRefusal()).isEqualTo(boot);
        assertThat(messages(Level.WARN)).containsExactly("Envoy rate limit service: configuration " + digest(file)
                + " refused, " + inForce + " stays in force: " + boot);
        assertThat(calls(3, "reload")).containsExactly("OK 1/3 per MINUTE", "OK 0/3 per MINUTE",
                "OVER_LIMIT 0/3 per MINUTE");
        // the same refused files are judged once: further checks change nothing and count nothing
        assertThat(rules().check()).isEqualTo(EnvoyRlsRules.Check.UNCHANGED);
        assertThat(rules().check()).isEqualTo(EnvoyRlsRules.Check.UNCHANGED);
        assertThat(reloads("refused")).isEqualTo(1);
        assertThat(reloads("applied")).isZero();

        Files.writeString(file, rules("reload", 4)); // fixed: applied, with the 3 counted
        awaitReloads("applied", 1);
        assertThat(calls(2, "reload")).containsExactly("OK 0/4 per MINUTE", "OVER_LIMIT 0/4 per MINUTE");
        assertThat(RlsConfigReader.read(List.of(dir.toString())).digest()).isEqualTo(rules().current().digest());
    }

    /** @return the message of the innermost cause that carries GridLimit's configuration message */
    static String bootError(Map<String, Object> properties) {
        try (ApplicationContext c = ApplicationContext.run(properties)) {
            throw new AssertionError("booted");
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t.getCause() != null && !t.getMessage().startsWith("Invalid GridLimit configuration")) {
                t = t.getCause();
            }
            return t.getMessage();
        }
    }
}
