package io.gridlimit.micronaut.decide;

import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.time.SystemTimeSource;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the {@link LocalFallback} of {@code failure-mode: local} on this replica's wall clock
 * ({@link SystemTimeSource#systemUtc()}). To decide local fallbacks on another clock (tests: a manual one), replace
 * the bean: {@code @Replaces(value = LocalFallback.class, factory = LocalFallbackFactory.class)}.
 */
@Factory
public class LocalFallbackFactory {
    private static final Logger LOG = LoggerFactory.getLogger(LocalFallback.class);

    /**
     * @param config the checked configuration: its policies and {@code gridlimit.local.*}
     * @return the local fallback (derived policies built now; an empty map until the grid first fails)
     */
    @Singleton
    public LocalFallback localFallback(GridLimitConfig config) {
        return warnWithoutShare(config, new LocalFallback(config.policies().values(), config.local(),
                SystemTimeSource.systemUtc()));
    }

    /**
     * Logs once, at creation and under {@code failure-mode: local} only, the policies that have no local share
     * (docs/SPEC.md §5): while the grid does not answer, their requests get 503 as under {@code closed}.
     *
     * @param config the checked configuration
     * @param fallback the fallback built from it
     * @return {@code fallback}
     */
    public static LocalFallback warnWithoutShare(GridLimitConfig config, LocalFallback fallback) {
        if (config.failureMode() == FailureMode.LOCAL && !fallback.withoutShare().isEmpty()) {
            LOG.warn("policies {} have a quota or refill too small to divide by gridlimit.local.expected-replicas={}: "
                    + "they have no local share, so while the grid does not answer their requests get 503 (as failure-mode closed)",
                    fallback.withoutShare(), fallback.expectedReplicas());
        }
        return fallback;
    }
}
