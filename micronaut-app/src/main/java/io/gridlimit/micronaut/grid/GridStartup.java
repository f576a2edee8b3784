package io.gridlimit.micronaut.grid;

import io.gridlimit.api.RateLimiter;
import io.micronaut.context.annotation.Context;

/**
 * Resolves the {@link RateLimiter} bean at startup, so the embedded member joins (or the client connects) before
 * the server takes requests, and a grid that cannot start stops the boot. Goes through the bean lookup, so a
 * replaced limiter ({@code @Replaces(RateLimiter.class)}) starts no grid.
 */
@Context
public class GridStartup {
    private final RateLimiter limiter;

    /** @param limiter the application's rate limiter */
    public GridStartup(RateLimiter limiter) {
        this.limiter = limiter;
    }

    /** @return the limiter resolved at startup */
    public RateLimiter limiter() {
        return limiter;
    }
}
