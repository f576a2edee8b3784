package io.gridlimit.app;

import io.gridlimit.app.support.ServiceJvm;
import io.gridlimit.micronaut.support.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's {@code main}, started as its own JVM with a setting it refuses: one ERROR line names the property and
 * the value (or the port's property, or the file), no stack trace repeats it, and the exit status is 1.
 */
class ServiceLauncherTest {
    @TempDir
    Path dir;

    @Test
    void aMisspelledSettingStopsBootWithOneLine() throws Exception {
        assertOneLine(Map.of(), Map.of("gridlimit.rotes", "x"),
                "Invalid GridLimit configuration: gridlimit.rotes: unknown property; did you mean gridlimit.routes?");
    }

    @Test
    void aRouteWithoutAPolicyInAnOverrideFileStopsBootThoughTheJarsRouteHasOne() throws Exception {
        Path file = dir.resolve("override.yml");
        Files.writeString(file, "gridlimit:\n  routes: [{pattern: /nothing/**}]\n");
        assertOneLine(Map.of("MICRONAUT_CONFIG_FILES", file.toString()), Map.of(),
                "Invalid GridLimit configuration: gridlimit.routes[0].policy: missing");
    }

    @Test
    void anEnvironmentVariableForOneRouteSettingStopsBootPointingToAConfigFile() throws Exception {
        assertOneLine(Map.of("GRIDLIMIT_ROUTES_0_PATTERN", "/api/**"), Map.of(),
                "Invalid GridLimit configuration: GRIDLIMIT_ROUTES_0_PATTERN: an environment variable cannot set one "
                        + "entry of a list (GridLimit replaces a list whole); set the list in a configuration file "
                        + "(MICRONAUT_CONFIG_FILES=/path/to/override.yml, whose list replaces the whole list)");
    }

    @Test
    void anOverrideFileThatIsNotValidYamlStopsBootNamingTheFile() throws Exception {
        Path file = dir.resolve("broken.yml");
        Files.writeString(file, "gridlimit:\n  exempt: [/a\n  headers: both\n");
        assertOneLine(Map.of("MICRONAUT_CONFIG_FILES", file.toString()), Map.of(),
                "Invalid configuration file " + file + ": not valid YAML at line 3, column 10: expected ',' or ']', "
                        + "but got : (while parsing a flow sequence from line 2, column 11)");
    }

    /** Micronaut's own server logs its one line first ("Unable to start server. Port *:… already in use"). */
    @Test
    void aPortInUseStopsBootNamingItsProperty() throws Exception {
        int port = Ports.freePort();
        try (ServerSocket taken = new ServerSocket(port, 1, InetAddress.getByName("0.0.0.0"))) {
            assertOneLine(Map.of(), Map.of("micronaut.server.port", Integer.toString(port)), "Port " + port
                    + " is already in use (micronaut.server.port, MICRONAUT_SERVER_PORT): stop the process that holds "
                    + "it, or set micronaut.server.port to a free port", false);
        }
    }

    private static void assertOneLine(Map<String, String> environment, Map<String, String> properties,
                                      String sentence) throws Exception {
        assertOneLine(environment, properties, sentence, true);
    }

    private static void assertOneLine(Map<String, String> environment, Map<String, String> properties,
                                      String sentence, boolean first) throws Exception {
        String out;
        int status;
        try (ServiceJvm service = ServiceJvm.start(environment, properties)) {
            status = service.awaitExit();
            out = service.output();
        }
        List<String> lines = out.lines().filter(l -> l.contains(sentence.substring(0, 40))).toList();
        assertThat(status).as(out).isEqualTo(1);
        assertThat(lines).as(out).hasSize(1);
        assertThat(lines.get(0)).as(out).contains("ERROR").endsWith(" - " + sentence);
        if (first) {
            assertThat(out.lines().filter(l -> l.contains("ERROR") || l.contains("WARN")).findFirst()).as(out)
                    .contains(lines.get(0));
        }
        assertThat(out).doesNotContain("\tat ");
    }
}
