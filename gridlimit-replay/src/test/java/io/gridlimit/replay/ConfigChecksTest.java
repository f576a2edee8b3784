package io.gridlimit.replay;

import io.gridlimit.micronaut.config.BootFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The replay's configuration-only context (without the HTTP server, management, metrics and the library's doors,
 * {@link ReplayConfig#LEFT_OUT}) binds and checks exactly as the whole context: the same configuration from a good
 * file, the same refusal from a bad one, read through both.
 */
class ConfigChecksTest {
    @TempDir
    Path dir;

    /** Every part of the library's configuration set, the HTTP and grid settings among them. */
    private static final String EVERYTHING = """
            gridlimit:
              headers: both
              failure-mode: closed
              grid-timeout: 50ms
              exempt: [/health/**, /status]
              http:
                header-timeout: 5s
                problem-errors: true
              local:
                expected-replicas: 2
                max-keys: 5000
              leases:
                enabled: true
                capacity-share: 20
              catalog:
                enabled: false
              hazelcast:
                cluster-name: orders
                max-keys-per-member: 2000
              client-ip:
                trusted-proxies: [10.0.0.0/8]
                ipv6-prefix: 56
              plans:
                tier:
                  header: X-Plan
                  policies: {gold: gold}
              policies:
                free: {algorithm: fixed-window, limit: 1, window: 1m}
                gold: {algorithm: token-bucket, capacity: 4, refill-tokens: 1, refill-period: 1m}
                day: {algorithm: sliding-window-log, limit: 100, window: 1d, shadow: true}
              routes:
                - {pattern: /api/**, policy: free, plan: tier, key: "header:X-User", on-missing-key: reject}
                - {pattern: /api/**, methods: [POST], policy: day, key: [client-ip, "header:User-Agent"], cost: 2}
            """;

    @Test
    void aGoodConfigurationBindsAsInTheWholeContext() throws IOException {
        Path file = Files.writeString(dir.resolve("application.yml"), EVERYTHING);
        try (ReplayConfig.Loaded lean = ReplayConfig.load(file);
             ReplayConfig.Loaded whole = ReplayConfig.load(file, ReplayConfig.class.getClassLoader())) {
            assertThat(lean.config().routes()).hasSize(2);
            assertThat(lean.config()).isEqualTo(whole.config());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "gridlimit.policies.api.limt=3",
        "gridlimit.policies.api.limit=0",
        "gridlimit.policies.api.algorithm=leaky-bucket",
        "gridlimit.policies.api.window=soon",
        "gridlimit.routes[0].policy=nowhere",
        "gridlimit.routes[0].key=header:",
        "gridlimit.routes[0].on-mising-key=skip",
        "gridlimit.client-ip.trusted-proxies[0]=10.1.2.3/8",
        "gridlimit.client-ip.trusted-proxies[0]=0.0.0.0/0",
        "gridlimit.http.header-timeout=0s",
        "gridlimit.http.problem-errors=maybe",
        "gridlimit.hazelcast.max-keys-per-member=1",
        "gridlimit.hazelcast.clustername=x",
        "gridlimit.local.expected-replicas=0",
        "gridlimit.failure-mode=sometimes",
        "gridlimit.plans.tier.header=X-Plan\ngridlimit.plans.tier.policies.gold=nowhere\ngridlimit.routes[0].plan=tier",
        "gridlimit.filter.order=3",
        "gridlimit.exempt[0]=/**",
    })
    void aBadConfigurationIsRefusedAsInTheWholeContext(String bad) throws IOException {
        String base = """
                gridlimit.policies.api.algorithm=fixed-window
                gridlimit.policies.api.limit=3
                gridlimit.policies.api.window=1m
                gridlimit.routes[0].pattern=/api/**
                gridlimit.routes[0].policy=api
                """;
        Path file = Files.writeString(dir.resolve("application.properties"), override(base, bad));
        Throwable lean = catchThrowable(() -> ReplayConfig.load(file).close());
        Throwable whole = catchThrowable(() -> ReplayConfig.load(file, ReplayConfig.class.getClassLoader()).close());
        assertThat(whole).as("the whole context refuses " + bad).isNotNull();
        assertThat(lean).as("the replay's context refuses " + bad).isNotNull();
        // the sentence the replay prints and the service logs (the rest names the beans on the way)
        assertThat(BootFailure.reason(lean)).isPresent().isEqualTo(BootFailure.reason(whole));
    }

    /** The base properties with the bad ones in place of those of the same name, or added. */
    private static String override(String base, String bad) {
        StringBuilder out = new StringBuilder();
        for (String line : base.split("\n")) {
            if (!bad.contains(line.substring(0, line.indexOf('=') + 1))) {
                out.append(line).append('\n');
            }
        }
        return out.append(bad).append('\n').toString();
    }
}
