package io.gridlimit.micronaut.userapp;

import io.micronaut.runtime.Micronaut;
import io.micronaut.runtime.exceptions.ApplicationStartupException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A user's own service started through its generated {@code main} ({@link ShopApplication}, {@code Micronaut.run}),
 * as its own JVM: a GridLimit refusal prints its one sentence once, as one ERROR line and first, without the
 * bean-path trace, and the process exits with status 1 (issue 21: the sentence came three times inside an 80-line
 * stack trace). The same holds for a YAML configuration file without SnakeYAML on the classpath: Micronaut ignored
 * {@code application.yml} (and GridLimit then blamed a missing application name the user did set) or failed with a
 * {@code NoClassDefFoundError} for a {@code MICRONAUT_CONFIG_FILES} one. In the test environment nothing exits.
 */
class UserMainBootFailureTest {
    @TempDir
    Path dir;

    @Test
    void aRefusalIsOneErrorLineAndExitStatusOne() throws Exception {
        Result r = run(classpath(false), Map.of(), "-Dgridlimit.rotes=x", "-Dmicronaut.application.name=shop");
        r.assertOneSentence("Invalid GridLimit configuration: gridlimit.rotes: unknown property; did you mean "
                + "gridlimit.routes?");
    }

    @Test
    void anApplicationYmlWithoutSnakeYamlStopsTheBootNamingTheFileAndTheDependency() throws Exception {
        Path resources = Files.createDirectories(dir.resolve("resources"));
        Files.writeString(resources.resolve("application.yml"), "micronaut:\n  application:\n    name: shop\n");
        Result r = run(resources + File.pathSeparator + classpath(true), Map.of());
        r.assertOneSentence("Invalid GridLimit configuration: application.yml (" + resources.resolve("application.yml")
                .toUri().toURL() + ") is a YAML configuration file, but no YAML parser is on the classpath, so "
                + "Micronaut ignores it; add the dependency org.yaml:snakeyaml (runtime scope)");
    }

    @Test
    void aConfigFileInYamlWithoutSnakeYamlStopsTheBootNamingTheFileAndTheDependency() throws Exception {
        Path file = dir.resolve("override.yml");
        Files.writeString(file, "gridlimit:\n  exempt: [/x]\n");
        Result r = run(classpath(true), Map.of("MICRONAUT_CONFIG_FILES", file.toString()),
                "-Dmicronaut.application.name=shop");
        r.assertOneSentence("Invalid GridLimit configuration: MICRONAUT_CONFIG_FILES: '" + file + "' is a YAML "
                + "configuration file, but no YAML parser is on the classpath, so Micronaut cannot read it; add the "
                + "dependency org.yaml:snakeyaml (runtime scope)");
    }

    @Test
    void inTheTestEnvironmentTheRefusalIsThrownAndNothingExits() {
        // run in this JVM under JUnit, so Micronaut deduces the test environment: exiting would end the test run
        assertThatThrownBy(() -> Micronaut.build(new String[0]).properties(Map.<String, Object>of("gridlimit.rotes", "x",
                "micronaut.application.name", "shop")).start().close())
                .isInstanceOf(ApplicationStartupException.class)
                .hasMessageContaining("Invalid GridLimit configuration: gridlimit.rotes: unknown property");
    }

    private record Result(int status, List<String> lines) {
        void assertOneSentence(String sentence) {
            String all = String.join("\n", lines);
            assertThat(status).as(all).isEqualTo(1);
            List<String> named = lines.stream().filter(l -> l.contains("Invalid GridLimit configuration")).toList();
            assertThat(named).as(all).hasSize(1);
            assertThat(named.get(0)).as(all).contains("ERROR").endsWith(" - " + sentence);
            assertThat(lines.stream().filter(l -> l.contains("ERROR") || l.contains("WARN")).findFirst())
                    .as("the sentence comes first").contains(named.get(0));
            assertThat(all).doesNotContain("\tat ").doesNotContain("Exception");
        }
    }

    /** The test's class path, without SnakeYAML when asked. */
    private static String classpath(boolean withoutYaml) {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !withoutYaml || !e.contains("snakeyaml")).reduce((a, b) -> a + File.pathSeparator + b)
                .orElseThrow();
    }

    /**
     * Starts {@link ShopApplication} as its own JVM, logging at INFO, without the machine's {@code GRIDLIMIT_*} and
     * {@code MICRONAUT_*} environment variables and with {@code environment} added, and waits for it to end.
     */
    private Result run(String classpath, Map<String, String> environment, String... properties)
            throws IOException, InterruptedException {
        Path logback = dir.resolve("logback.xml");
        Files.writeString(logback, "<configuration><appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                + "<encoder><pattern>%level %logger - %msg%n</pattern></encoder></appender>"
                + "<root level=\"INFO\"><appender-ref ref=\"OUT\"/></root></configuration>");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", classpath, "-Dlogback.configurationFile=" + logback));
        command.addAll(List.of(properties));
        command.add(ShopApplication.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // the machine's own GRIDLIMIT_* and MICRONAUT_* variables (.ci/run exports GRIDLIMIT_BASE_IMAGE for the
        // container tests, which the user's service rightly warns about) are not this test's configuration
        builder.environment().keySet().removeIf(name -> name.startsWith("GRIDLIMIT_") || name.startsWith("MICRONAUT_"));
        builder.environment().putAll(environment);
        Process p = builder.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8).lines().toList());
    }
}
