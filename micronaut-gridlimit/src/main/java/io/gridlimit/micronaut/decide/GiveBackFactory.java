package io.gridlimit.micronaut.decide;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** Creates the {@link GiveBack} the {@link Decider} uses; replace the bean to observe or change give-backs. */
@Factory
public class GiveBackFactory {
    /**
     * @param limiter the application's limiter
     * @param local the failure-mode local decider
     * @param metrics GridLimit's meters
     * @return the give-back of all-or-nothing requests and late admissions ({@link ReservationGiveBack})
     */
    @Singleton
    public GiveBack giveBack(RateLimiter limiter, LocalFallback local, GridLimitMetrics metrics) {
        return new ReservationGiveBack(limiter, local, metrics);
    }
}
