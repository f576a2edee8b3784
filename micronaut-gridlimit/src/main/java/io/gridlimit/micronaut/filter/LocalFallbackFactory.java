package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.time.SystemTimeSource;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * Creates the {@link LocalFallback} of {@code failure-mode: local} on this replica's wall clock
 * ({@link SystemTimeSource#systemUtc()}). To decide local fallbacks on another clock (tests: a manual one), replace
 * the bean: {@code @Replaces(value = LocalFallback.class, factory = LocalFallbackFactory.class)}.
 */
@Factory
public class LocalFallbackFactory {
    /**
     * @param config the checked configuration: its policies and {@code gridlimit.local.*}
     * @return the local fallback (derived policies built now; an empty map until the grid first fails)
     */
    @Singleton
    public LocalFallback localFallback(GridLimitConfig config) {
        return new LocalFallback(config.policies().values(), config.local(), SystemTimeSource.systemUtc());
    }
}
