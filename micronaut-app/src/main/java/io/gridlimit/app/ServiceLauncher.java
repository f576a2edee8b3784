package io.gridlimit.app;

import io.gridlimit.micronaut.config.BootFailure;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.Micronaut;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Starts the service as {@link Micronaut#run(Class[], String...)} does, except that a boot stopped by invalid GridLimit
 * configuration logs the refusal once, as one ERROR line naming the property and the value ({@link BootFailure}), and
 * exits with status 1, instead of Micronaut's stack trace that repeats it once per bean on the path to it. Every other
 * start-up failure, and any failure in the {@code test} environment, is Micronaut's to report.
 */
final class ServiceLauncher extends Micronaut {
    private static final Logger LOG = LoggerFactory.getLogger(Application.class);

    @Override
    protected void handleStartupException(Environment environment, Throwable exception) {
        Optional<String> reason = BootFailure.reason(exception);
        if (reason.isPresent() && !environment.getActiveNames().contains(Environment.TEST)) {
            LOG.error(reason.get());
            System.exit(1);
        }
        super.handleStartupException(environment, exception);
    }
}
