package io.gridlimit.micronaut.config.sources;

import io.micronaut.context.env.Environment;
import io.micronaut.context.env.PropertySourceLoader;
import io.micronaut.core.naming.NameUtils;
import io.micronaut.core.reflect.ClassUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * YAML configuration files that Micronaut has no parser for. Micronaut reads YAML with SnakeYAML
 * ({@code org.yaml:snakeyaml}), which it does not bring itself: without it {@code application.yml} (and
 * {@code application.yaml}, {@code application-<environment>.yml}, in the classpath or in {@code ./config/}) is
 * silently ignored, so GridLimit would then stop the boot for settings the user did write; a YAML file named by
 * {@code MICRONAUT_CONFIG_FILES} (or {@code -Dmicronaut.config.files}) fails inside Micronaut with a
 * {@code NoClassDefFoundError}. Either way the boot stops with one sentence naming the file and the dependency to add.
 * Stateless.
 */
public final class YamlFiles {
    private static final Set<String> EXTENSIONS = Set.of("yml", "yaml");
    private static final String MISSING = " is a YAML configuration file, but no YAML parser is on the classpath, so "
            + "Micronaut %s it; add the dependency org.yaml:snakeyaml (runtime scope)";

    private YamlFiles() {
    }

    /**
     * The YAML files named by {@code MICRONAUT_CONFIG_FILES} or {@code micronaut.config.files}, when SnakeYAML is
     * absent.
     *
     * @param classLoader the application's class loader
     * @return one message per file ({@code MICRONAUT_CONFIG_FILES: '/etc/x.yml' is a YAML configuration file, …}),
     *     empty when SnakeYAML is present or no such file is named
     */
    public static List<String> unreadableConfigFiles(ClassLoader classLoader) {
        List<String> errors = new ArrayList<>();
        if (ClassUtils.isPresent("org.yaml.snakeyaml.Yaml", classLoader)) {
            return errors;
        }
        String property = System.getProperty(Environment.PROPERTY_SOURCES_KEY);
        String variable = System.getenv("MICRONAUT_CONFIG_FILES");
        for (String[] named : List.of(new String[] {"micronaut.config.files", property},
                new String[] {"MICRONAUT_CONFIG_FILES", variable})) {
            if (named[1] == null) {
                continue;
            }
            for (String file : named[1].split(",")) {
                if (EXTENSIONS.contains(NameUtils.extension(file).toLowerCase(Locale.ROOT))) {
                    errors.add(named[0] + ": '" + file + "'" + String.format(MISSING, "cannot read"));
                }
            }
        }
        return errors;
    }

    /**
     * The {@code application} YAML files Micronaut skipped for want of a YAML parser: in the classpath and in
     * {@code ./config/}, the environment's own ones included.
     *
     * @param environment the started environment (its active names and property source loaders)
     * @return one message per file, empty when a YAML loader is enabled or there is no such file
     */
    static List<String> ignored(Environment environment) {
        List<String> errors = new ArrayList<>();
        for (PropertySourceLoader loader : environment.getPropertySourceLoaders()) {
            if (loader.isEnabled() && loader.getExtensions().stream().anyMatch(EXTENSIONS::contains)) {
                return errors;
            }
        }
        List<String> names = new ArrayList<>(List.of(Environment.DEFAULT_NAME));
        environment.getActiveNames().forEach(n -> names.add(Environment.DEFAULT_NAME + "-" + n));
        for (String name : names) {
            for (String extension : List.of("yml", "yaml")) {
                String file = name + "." + extension;
                environment.getResource(file).ifPresent(url -> errors.add(file + " (" + url + ")"
                        + String.format(MISSING, "ignores")));
                if (Files.isRegularFile(Path.of("config", file))) {
                    errors.add(Path.of("config", file).toAbsolutePath() + String.format(MISSING, "ignores"));
                }
            }
        }
        return errors;
    }
}
