package io.gridlimit.micronaut.config;

import io.micronaut.context.exceptions.ConfigurationException;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;

/**
 * Finds, in the exception a failed Micronaut start-up threw, the one sentence that says which GridLimit setting is
 * wrong. Every refusal of the configuration (docs/SPEC.md §9) is a {@link ConfigurationException} whose message starts
 * with {@link #PREFIX} and names the property and the value; Micronaut wraps it in one bean-instantiation exception
 * per bean on the path to it, each repeating the message, so its default start-up log prints the sentence once per
 * wrapper inside a stack trace. Under a {@code main} ({@code Micronaut.run}) the library's
 * {@link io.gridlimit.micronaut.config.GridLimitContextConfigurer} logs it once instead, as one ERROR line of
 * this class's logger, and exits with status 1; elsewhere (a test, {@code ApplicationContext.run}) find it with:
 *
 * <pre>{@code
 * BootFailure.reason(e).ifPresent(reason -> LOG.error(reason));
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class BootFailure {
    /** The start of every GridLimit configuration refusal's message. */
    public static final String PREFIX = "Invalid GridLimit configuration: ";

    private BootFailure() {
    }

    /**
     * The GridLimit configuration refusal in {@code failure}'s cause chain.
     *
     * @param failure what the start-up threw; may be null
     * @return the refusal's message (starting with {@link #PREFIX}: property, value and what is wrong), or empty when
     *         the chain holds no GridLimit configuration refusal
     */
    public static Optional<String> reason(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof ConfigurationException && t.getMessage() != null && t.getMessage().startsWith(PREFIX)) {
                return Optional.of(t.getMessage());
            }
        }
        return Optional.empty();
    }
}
