package io.gridlimit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.cluster.RequireDockerOnCi;
import io.gridlimit.nemesis.check.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The nemesis in CI (issue 25, item 5): a short seeded run, about a minute of load from three client processes
 * while a kill, a pause and a partition are injected in a seeded order, every decision checked by the
 * {@link io.gridlimit.nemesis.check.Checker} against docs/SPEC.md §15; it fails on any violation or lost state.
 * {@code bench/nemesis.sh} runs the same class with longer settings, given as system properties (failsafe passes
 * Maven's {@code -D} on): {@code nemesis.minutes} (1), {@code nemesis.seed} (25), {@code nemesis.kinds}
 * ({@code kill,pause,partition}), {@code nemesis.history} ({@code target/nemesis/history.jsonl}),
 * {@code nemesis.clients} (3), {@code nemesis.threads} (2 per client), {@code nemesis.rate} (150 requests/s),
 * {@code nemesis.heartbeatSeconds} (10: {@code hazelcast.max.no.heartbeat.seconds}), {@code nemesis.minClusterSize}
 * (0) and {@code nemesis.faketime} (the host's {@code libfaketime.so.1}, for {@code clock}).
 *
 * <p>Docker as for {@code ClusterReliabilityIT}: skipped without it, except under {@code CI=true}.
 */
@ExtendWith(RequireDockerOnCi.class)
@Testcontainers(disabledWithoutDocker = true)
class NemesisIT {
    @Test
    void everyDecisionUnderFaultsFitsItsBound() throws Exception {
        List<String> kinds = Arrays.stream(System.getProperty("nemesis.kinds", "kill,pause,partition").split(","))
                .map(String::trim).filter(k -> !k.isEmpty()).toList();
        assertThat(Nemesis.KINDS).as("fault kinds").containsAll(kinds);
        String faketime = System.getProperty("nemesis.faketime", "");
        Path history = Path.of(System.getProperty("nemesis.history", "target/nemesis/history.jsonl"));
        Files.createDirectories(history.toAbsolutePath().getParent());
        NemesisRun run = new NemesisRun(Double.parseDouble(System.getProperty("nemesis.minutes", "1")),
                Long.getLong("nemesis.seed", 25), kinds, history, Integer.getInteger("nemesis.clients", 3),
                Integer.getInteger("nemesis.threads", 2), Integer.getInteger("nemesis.rate", 150),
                Integer.getInteger("nemesis.heartbeatSeconds", 10), Integer.getInteger("nemesis.minClusterSize", 0),
                faketime.isBlank() ? null : Path.of(faketime));
        Report report = run.run();
        String last = report.lastLine();
        assertThat(List.of(last.replaceAll(".* kinds=(\\S*) .*", "$1").split(","))).as("kinds injected: " + last)
                .containsAll(kinds);
        assertThat(report.decisions()).as("decisions checked").isGreaterThan(1_000);
        assertThat(report.violations()).as("violations (see the report above)").isZero();
        assertThat(report.lost()).as("lost states (see the report above)").isZero();
    }
}
