package io.gridlimit.envoy;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * Provides the {@link GiveBack} the Envoy service uses: a {@link ReservationGiveBack}, so that requests are
 * all-or-nothing (docs/SPEC.md §12). Replace the bean
 * ({@code @Replaces(value = GiveBack.class, factory = GiveBackFactory.class)}) to change it.
 */
@Factory
@Requires(condition = EnvoyRlsEnabled.class)
public class GiveBackFactory {
    /**
     * @param limiter the application's limiter
     * @param local the failure-mode local decider
     * @param metrics GridLimit's meters
     * @return the give-back of all-or-nothing decisions and late admissions
     */
    @Singleton
    public GiveBack giveBack(RateLimiter limiter, LocalFallback local, GridLimitMetrics metrics) {
        return new ReservationGiveBack(limiter, local, metrics);
    }
}
