package io.gridlimit.micronaut.config;

import io.gridlimit.micronaut.config.sources.ConfiguredLists;
import io.gridlimit.micronaut.config.sources.YamlFiles;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.ApplicationContextBuilder;
import io.micronaut.context.ApplicationContextConfigurer;
import io.micronaut.context.annotation.ContextConfigurer;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.BeanContextException;
import io.micronaut.context.exceptions.BeanInstantiationException;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.context.exceptions.DependencyInjectionException;
import io.micronaut.context.exceptions.NoSuchBeanException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.runtime.Micronaut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * GridLimit's part in building every application context of an application that depends on the library (found by
 * Micronaut's service loading, so {@code ApplicationContext.run}, {@code @MicronautTest} and {@code Micronaut.run}
 * alike):
 *
 * <ul>
 *   <li>Before the environment reads its files: a YAML file named by {@code MICRONAUT_CONFIG_FILES} while SnakeYAML
 *       is absent, where Micronaut would fail with a {@code NoClassDefFoundError}, turns the reading of files off
 *       and stops the boot once the context is configured, with one sentence naming the file and the dependency
 *       ({@link YamlFiles}).</li>
 *   <li>Once the environment has read them, before any bean is created: every GridLimit list is resolved from the
 *       property sources as written and published, so that a list set in a higher source replaces the lower ones'
 *       whole ({@link ConfiguredLists}).</li>
 *   <li>When the application starts through a {@code main} ({@link Micronaut#run}, the {@code Application} class
 *       Micronaut generates): a boot stopped by a GridLimit refusal ({@link BootFailure}) logs its one sentence as one
 *       ERROR line, without the trace that repeats it once per bean on the path to it, and the process exits with
 *       status 1. In the {@code test} environment, and from {@code ApplicationContext.run}, the failure is thrown
 *       as before and nothing exits. This replaces an exit code mapping the application set with
 *       {@link Micronaut#mapError} for the same exception classes.</li>
 * </ul>
 *
 * <p>One instance per context builder (Micronaut creates it there); not thread-safe.
 */
@ContextConfigurer
public final class GridLimitContextConfigurer implements ApplicationContextConfigurer {
    private static final Logger LOG = LoggerFactory.getLogger(BootFailure.class);
    /** The exception classes a refusal reaches {@code Micronaut}'s start-up handler as (it maps exact classes). */
    private static final List<Class<? extends Throwable>> FAILURES = List.of(ConfigurationException.class,
            BeanInstantiationException.class, DependencyInjectionException.class, BeanContextException.class,
            NoSuchBeanException.class);

    private @Nullable ApplicationContextBuilder builder;
    private List<String> unreadable = List.of();

    /** Creates the configurer; Micronaut's service loading does, once per context builder. */
    public GridLimitContextConfigurer() {
    }

    /**
     * Remembers the builder; when a YAML configuration file cannot be read, turns the reading of files off so that
     * the refusal comes from {@link #configure(ApplicationContext)}, where it can be one line.
     *
     * @param builder the context's builder, under construction (a {@link Micronaut} not yet initialised)
     */
    @Override
    public void configure(ApplicationContextBuilder builder) {
        this.builder = builder;
        unreadable = YamlFiles.unreadableConfigFiles(GridLimitContextConfigurer.class.getClassLoader());
        if (!unreadable.isEmpty()) {
            builder.enableDefaultPropertySources(false);
        }
    }

    /**
     * Under a {@code main}, maps a GridLimit refusal to one ERROR line and exit status 1; publishes the lists.
     *
     * @param context the configured context, its environment started, no bean created yet
     * @throws ConfigurationException naming each YAML file of {@code MICRONAUT_CONFIG_FILES} when SnakeYAML is absent
     */
    @Override
    public void configure(ApplicationContext context) {
        if (builder instanceof Micronaut main) {
            Set<String> environments = Set.copyOf(context.getEnvironment().getActiveNames());
            Function<Throwable, Integer> exit = failure -> {
                BootFailure.reason(failure).filter(r -> !environments.contains(Environment.TEST)).ifPresent(r -> {
                    LOG.error(r);
                    System.exit(1);
                });
                return 1; // Micronaut's own: log the failure and exit 1, or throw it in the test environment
            };
            FAILURES.forEach(type -> main.mapError(type, exit::apply));
        }
        if (!unreadable.isEmpty()) {
            throw new ConfigurationException(BootFailure.PREFIX + String.join("; ", unreadable));
        }
        if (context.getEnvironment().isRunning()) { // configured before its start: the config factory publishes
            ConfiguredLists.publish(context);
        }
    }
}
