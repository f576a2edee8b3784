package io.gridlimit.app;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's {@code main}, started as its own JVM with a misspelled setting: one ERROR line names the property and
 * the value, no stack trace repeats it, and the exit status is 1.
 */
class ServiceLauncherTest {
    @Test
    void aMisspelledSettingStopsBootWithOneLine() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Dgridlimit.rotes=x",
                Application.class.getName())
                .redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        List<String> lines = new String(out, StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("gridlimit.rotes")).toList();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(lines).as(new String(out, StandardCharsets.UTF_8)).hasSize(1);
        assertThat(lines.get(0)).contains("ERROR").endsWith(
                " - Invalid GridLimit configuration: gridlimit.rotes: unknown property; did you mean gridlimit.routes?");
        assertThat(new String(out, StandardCharsets.UTF_8)).doesNotContain("\tat io.micronaut");
    }
}
