package io.gridlimit.replay;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * The seam that lets the library's configuration be read without a grid: in a context that sets
 * {@value #PROPERTY} (only {@link ReplayConfig} does), the application's {@link RateLimiter} is an in-process
 * {@link LocalRateLimiter} that is never asked anything, so {@code GridStartup} resolves it and no Hazelcast member
 * or client starts (the library's own tests replace the limiter the same way); the catalog stays off, since it is
 * used only with the Hazelcast limiter. Everything else (the property check, the binding, the mapping onto
 * grid-core's policies, the plan check) is the library's, as the service runs it.
 */
@Factory
@Requires(property = ConfigOnly.PROPERTY, value = "true")
public class ConfigOnly {
    /** The property that selects this limiter; outside {@code gridlimit.*}, so it is no GridLimit setting. */
    public static final String PROPERTY = "gridlimit-replay.config-only";

    /** Micronaut creates the factory. */
    public ConfigOnly() {
    }

    /** @return a limiter that is never asked: replay decisions run on {@link Replayer}'s own limiters */
    @Singleton
    @Replaces(RateLimiter.class)
    public RateLimiter unusedLimiter() {
        return new LocalRateLimiter(1, new ManualTimeSource(0));
    }
}
