package io.gridlimit.replay;

import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.PropertySourceLoader;
import io.micronaut.context.env.PropertiesPropertySourceLoader;
import io.micronaut.context.env.yaml.YamlPropertySourceLoader;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a service's configuration file exactly as the service does (issue 24 §2): the file becomes the one property
 * source of a Micronaut context holding the library's beans (read by Micronaut's own YAML or properties loader, with
 * its location, so the library's check of keys written twice reads it too); the library's
 * {@code GridLimitConfigFactory} checks and binds it, and {@link PolicySource} checks the plans, so a misspelt or
 * impossible setting stops the replay with the service's own message. No grid starts ({@link ConfigOnly}); grid
 * settings are checked as the service checks them but never used, and a missing cluster name is not needed (the
 * application name defaults to {@value #APPLICATION_NAME} below the file). Environment variables and system
 * properties are not read, so the replay depends on the file alone. Stateless.
 */
public final class ReplayConfig {
    /**
     * The settings of the GridLimit service (micronaut-app: its switch, decision API and admin API) and of its Envoy
     * door (gridlimit-envoy), which a service's configuration file holds beside the library's: the replay has
     * neither, so they are left out instead of being refused as unknown.
     */
    public static final List<String> SERVICE_PREFIXES = List.of("gridlimit.service.", "gridlimit.decision-api.",
            "gridlimit.admin-api.", "gridlimit.envoy-rls.");

    /** The application name the context has unless the file sets {@code micronaut.application.name}. */
    public static final String APPLICATION_NAME = "gridlimit-replay";

    /**
     * The beans a configuration-only context leaves out, by the package of their generated definition: the HTTP
     * server and its doors (the library's filter, its Netty hooks, problem bodies, health), the management endpoints,
     * metrics, serialisation, reactive and scheduling support. None of them binds or checks a setting; leaving them
     * out spares about 0.3 to 0.5 s of start-up (issue 24 §7; bench/README.md "Replay speed"). {@code ConfigChecksTest}
     * reads good and bad configurations through this context and through a whole one and asserts the same
     * configuration or the same refusal.
     */
    static final List<String> LEFT_OUT = List.of("io.micronaut.http.", "io.micronaut.web.", "io.micronaut.management.",
            "io.micronaut.health.", "io.micronaut.discovery.", "io.micronaut.configuration.metrics.",
            "io.micronaut.serde.", "io.micronaut.json.", "io.micronaut.jackson.", "io.micronaut.reactor.",
            "io.micronaut.buffer.", "io.micronaut.runtime.http.", "io.micronaut.runtime.server.",
            "io.micronaut.runtime.graceful.", "io.micronaut.scheduling.", "io.micronaut.websocket.",
            "io.gridlimit.micronaut.filter.", "io.gridlimit.micronaut.netty.", "io.gridlimit.micronaut.problem.",
            "io.gridlimit.micronaut.health.");

    private ReplayConfig() {
    }

    /**
     * The class loader of a configuration-only context: the application's, except that the generated bean
     * definitions of {@link #LEFT_OUT} cannot be found through it. Micronaut's service loading, which lists every
     * definition on the class path and loads each through the context's class loader, skips a definition whose class
     * is not found; so the context and the library's check of known names (which reads every definition for the
     * {@code gridlimit.*} names it declares; those left out declare none) both go without them. Everything else is
     * found as the application's class loader finds it, and every class is defined by that loader.
     */
    static final class ConfigClassLoader extends ClassLoader {
        ConfigClassLoader(ClassLoader parent) {
            super("gridlimit-replay-config", parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (isLeftOut(name)) {
                throw new ClassNotFoundException(name + " is left out of the replay's configuration context");
            }
            return super.loadClass(name, resolve);
        }

        /**
         * @param name a binary class name
         * @return true for a generated bean definition ({@code $Name$Definition…}) in a package of {@link #LEFT_OUT}
         */
        static boolean isLeftOut(String name) {
            int dot = name.lastIndexOf('.');
            return dot >= 0 && name.startsWith("$", dot + 1) && name.contains("$Definition")
                    && LEFT_OUT.stream().anyMatch(name::startsWith);
        }
    }

    /**
     * A read configuration: the checked {@link GridLimitConfig} and the library's {@link PolicySource} (the plans,
     * SPEC §11), with the context that holds them (no grid, no server), open until closed.
     *
     * @param config the checked configuration, as the service's {@code GridLimitConfig} bean would be
     * @param policies chooses each rule's policy per request (plans; no catalog without a grid)
     * @param context the context, closed by {@link #close()}
     * @param ignored the settings of the service and of its Envoy door ({@link #SERVICE_PREFIXES}) the file held,
     *     left out unread since the replay has neither, in file order
     */
    public record Loaded(GridLimitConfig config, PolicySource policies, ApplicationContext context,
                         List<String> ignored) implements AutoCloseable {
        /** Closes the context. */
        @Override
        public void close() {
            context.close();
        }
    }

    /**
     * Reads and checks a configuration file.
     *
     * @param file an {@code application.yml}/{@code .yaml} or {@code .properties} file
     * @return the checked configuration and the plans, open until closed
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if the file name ends in neither {@code .yml}, {@code .yaml} nor
     *     {@code .properties}
     * @throws io.micronaut.context.exceptions.ConfigurationException (or another
     *     {@link io.micronaut.context.exceptions.BeanContextException}) with the library's message when a setting is
     *     refused
     */
    public static Loaded load(Path file) throws IOException {
        return load(file, new ConfigClassLoader(ReplayConfig.class.getClassLoader()));
    }

    /**
     * Reads and checks a configuration file in a context whose bean definitions are found through
     * {@code classLoader}
     * ({@link ConfigClassLoader}, or for a test the application's class loader: the whole context).
     *
     * @param file as {@link #load(Path)}
     * @param classLoader the context's class loader
     * @return as {@link #load(Path)}
     * @throws IOException as {@link #load(Path)}
     */
    static Loaded load(Path file, ClassLoader classLoader) throws IOException {
        String name = file.getFileName().toString();
        PropertySourceLoader loader = name.endsWith(".yml") || name.endsWith(".yaml") ? new YamlPropertySourceLoader()
                : name.endsWith(".properties") ? new PropertiesPropertySourceLoader() : null;
        if (loader == null) {
            throw new IllegalArgumentException("--config: '" + file + "' is neither a .yml, .yaml nor .properties "
                    + "file");
        }
        Map<String, Object> values;
        try (InputStream in = Files.newInputStream(file)) {
            values = new LinkedHashMap<>(loader.read(name, in));
        }
        List<String> ignored = new ArrayList<>();
        values.keySet().removeIf(key -> {
            boolean service = SERVICE_PREFIXES.stream().anyMatch(key::startsWith);
            if (service) {
                ignored.add(key);
            }
            return service;
        });
        String location = file.toAbsolutePath().toString();
        PropertySource fromFile = PropertySource.of(location, values, PropertySource.Origin.of(location), -250);
        // metrics and management endpoints are the service's, never the replay's: off, so start-up skips them
        PropertySource defaults = PropertySource.of("gridlimit-replay", Map.of(ConfigOnly.PROPERTY, "true",
                "micronaut.application.name", APPLICATION_NAME, "micronaut.metrics.enabled", "false",
                "endpoints.all.enabled", "false"), -1000);
        ApplicationContext context = ApplicationContext.builder()
                .classLoader(classLoader)
                .deduceEnvironment(false)
                .deduceCloudEnvironment(false)
                .banner(false)
                .enableDefaultPropertySources(false)
                .propertySources(defaults, fromFile)
                .build();
        try {
            context.start();
            return new Loaded(context.getBean(GridLimitConfig.class), context.getBean(PolicySource.class), context,
                    List.copyOf(ignored));
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }
}
