package io.gridlimit.app;

import io.micronaut.context.env.Environment;
import io.micronaut.runtime.Micronaut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Starts the service as {@link Micronaut#run(Class[], String...)} does, except that a boot stopped by a port already in
 * use or by a configuration file that is not valid YAML logs one ERROR line naming the property or the file
 * ({@link StartupProblems}) and exits with status 1, instead of Micronaut's stack trace. Invalid GridLimit
 * configuration is the library's to report, in the same way and in any service
 * ({@code io.gridlimit.micronaut.config.GridLimitContextConfigurer}). Every other start-up failure, and any
 * failure in the {@code test} environment, is Micronaut's to report.
 */
final class ServiceLauncher extends Micronaut {
    private static final Logger LOG = LoggerFactory.getLogger(Application.class);

    @Override
    protected void handleStartupException(Environment environment, Throwable exception) {
        Optional<String> sentence = StartupProblems.sentence(exception, environment);
        if (sentence.isPresent() && !environment.getActiveNames().contains(Environment.TEST)) {
            LOG.error(sentence.get());
            System.exit(1);
        }
        super.handleStartupException(environment, exception);
    }
}
