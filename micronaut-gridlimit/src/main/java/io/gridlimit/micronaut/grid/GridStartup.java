package io.gridlimit.micronaut.grid;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.context.annotation.Context;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the {@link RateLimiter} bean at startup, so the embedded member joins (or the client connects) before
 * the server takes requests, and a grid that cannot start stops the boot. Goes through the bean lookup, so a
 * replaced limiter ({@code @Replaces(RateLimiter.class)}) starts no grid.
 *
 * <p>For the Hazelcast limiter it also creates each configured policy's map proxy up front: a client creates a
 * proxy with a remote call, which must not happen on the event loop at the first request of a policy.
 */
@Context
public class GridStartup {
    private static final Logger LOG = LoggerFactory.getLogger(GridStartup.class);

    private final RateLimiter limiter;

    /**
     * @param limiter the application's rate limiter
     * @param policies the configured policies
     */
    public GridStartup(RateLimiter limiter, PolicyRegistry policies) {
        this.limiter = limiter;
        GridOperations.of(limiter).ifPresent(grid -> {
            for (Policy policy : policies.all()) {
                try {
                    grid.localOwnedKeyCount(policy.name());
                } catch (RuntimeException e) {
                    LOG.warn("could not prepare the map of policy '{}': {}", policy.name(), e.toString());
                }
            }
        });
    }

    /** @return the limiter resolved at startup */
    public RateLimiter limiter() {
        return limiter;
    }
}
