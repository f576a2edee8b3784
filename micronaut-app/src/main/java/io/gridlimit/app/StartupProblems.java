package io.gridlimit.app;

import io.gridlimit.app.api.DecisionApiSettings;
import io.micronaut.context.env.Environment;
import io.micronaut.core.naming.NameUtils;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.BindException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One sentence for the start-up failures of the service that are not GridLimit refusals but a user meets first,
 * where Micronaut prints a stack trace: a port already in use (naming the property that sets it), and a
 * configuration file that is not valid YAML (naming the file, which SnakeYAML's message does not: it reads a stream).
 * Stateless.
 */
final class StartupProblems {
    private static final Pattern PORT = Pattern.compile(":([0-9]{1,5})$");

    private StartupProblems() {
    }

    /**
     * @param failure what the start-up threw
     * @param environment the environment of the failed start (its active names and properties)
     * @return the sentence, or empty when the failure is neither a port in use nor invalid YAML
     */
    static Optional<String> sentence(Throwable failure, Environment environment) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth++ < 32; t = t.getCause()) {
            if (t instanceof MarkedYAMLException yaml) {
                return Optional.of(yaml(yaml, environment));
            }
            if (t instanceof BindException) {
                return Optional.of(port(failure, environment));
            }
        }
        return Optional.empty();
    }

    private static String port(Throwable failure, Environment failed) {
        // a failed start stops the context's environment: read the settings again
        Environment environment = failed;
        try {
            environment = failed.isRunning() ? failed : failed.start();
        } catch (RuntimeException e) {
            // the settings cannot be read again: the sentence names no property
        }
        Matcher m = PORT.matcher(String.valueOf(failure.getMessage()).trim());
        if (!m.find()) {
            return "A port the service opens is already in use (" + failure.getMessage() + "): stop the process that "
                    + "holds it, or set micronaut.server.port or " + DecisionApiSettings.PORT_PROPERTY + " to a free port";
        }
        int port = Integer.parseInt(m.group(1));
        Map<String, Integer> ports = Map.of("micronaut.server.port",
                environment.getProperty("micronaut.server.port", Integer.class).orElse(8080),
                DecisionApiSettings.PORT_PROPERTY, environment.getProperty(DecisionApiSettings.PORT_PROPERTY,
                        Integer.class).orElse(DecisionApiSettings.DEFAULT_PORT));
        String property = ports.entrySet().stream().filter(e -> e.getValue() == port).map(Map.Entry::getKey)
                .sorted().findFirst().orElse(null);
        return "Port " + port + " is already in use" + (property == null ? "" : " (" + property + ", "
                + property.replaceAll("[.-]", "_").toUpperCase(Locale.ROOT) + ")") + ": stop the process that holds "
                + "it, or set " + (property == null ? "the port" : property) + " to a free port";
    }

    private static String yaml(MarkedYAMLException e, Environment environment) {
        String where = "";
        for (String candidate : candidates(environment)) {
            try (InputStream in = open(candidate, environment);
                 Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                new Yaml(new LoaderOptions()).composeAll(reader).forEach(Objects::requireNonNull);
            } catch (MarkedYAMLException again) {
                if (Objects.equals(again.getProblem(), e.getProblem()) && same(again.getProblemMark(),
                        e.getProblemMark())) {
                    where = candidate;
                    break;
                }
            } catch (IOException | RuntimeException unreadable) {
                // not the file Micronaut failed on
            }
        }
        Mark mark = e.getProblemMark();
        return "Invalid configuration file " + (where.isEmpty() ? "(one of the YAML files Micronaut reads)" : where)
                + ": not valid YAML" + (mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column "
                + (mark.getColumn() + 1)) + ": " + e.getProblem() + (e.getContext() == null ? "" : " ("
                + e.getContext() + (e.getContextMark() == null ? "" : " from line " + (e.getContextMark().getLine()
                + 1) + ", column " + (e.getContextMark().getColumn() + 1)) + ")");
    }

    private static boolean same(Mark a, Mark b) {
        return a == null ? b == null : b != null && a.getLine() == b.getLine() && a.getColumn() == b.getColumn();
    }

    /** The YAML files Micronaut reads: its config files, then the application's own in the classpath and ./config. */
    private static List<String> candidates(Environment environment) {
        List<String> files = new ArrayList<>();
        for (String named : new String[] {System.getProperty(Environment.PROPERTY_SOURCES_KEY),
                System.getenv("MICRONAUT_CONFIG_FILES")}) {
            for (String file : named == null ? new String[0] : named.split(",")) {
                if (NameUtils.extension(file).toLowerCase(Locale.ROOT).matches("ya?ml")) {
                    files.add(file);
                }
            }
        }
        List<String> names = new ArrayList<>(List.of(Environment.DEFAULT_NAME));
        environment.getActiveNames().forEach(n -> names.add(Environment.DEFAULT_NAME + "-" + n));
        for (String name : names) {
            for (String extension : List.of("yml", "yaml")) {
                environment.getResource(name + "." + extension).map(URL::toString).ifPresent(files::add);
                Path local = Path.of("config", name + "." + extension);
                if (Files.isRegularFile(local)) {
                    files.add(local.toAbsolutePath().toString());
                }
            }
        }
        return files;
    }

    private static InputStream open(String file, Environment environment) throws IOException {
        if (file.contains(":/") && !file.startsWith("file:")) {
            return new URL(file).openStream();
        }
        if (file.startsWith("classpath:")) {
            return environment.getResourceAsStream(file.substring("classpath:".length()))
                    .orElseThrow(() -> new IOException(file));
        }
        return Files.newInputStream(Path.of(file.replaceFirst("^file:", "")));
    }
}
