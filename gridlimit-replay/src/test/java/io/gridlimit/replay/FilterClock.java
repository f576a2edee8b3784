package io.gridlimit.replay;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * In contexts that set {@code gridlimit-replay-test.filter}: the library's filter decides on a
 * {@link LocalRateLimiter} over a {@link ManualTimeSource} the test steps, so a running filter and the replay
 * decide the same requests on the same algorithms at the same times. No grid starts.
 */
@Factory
@Requires(property = "gridlimit-replay-test.filter", value = "true")
public class FilterClock {
    /** @return the clock the test steps */
    @Singleton
    @Replaces(TimeSource.class)
    public ManualTimeSource clock() {
        return new ManualTimeSource(0);
    }

    /**
     * @param clock the manual clock
     * @return the filter's limiter
     */
    @Singleton
    @Replaces(RateLimiter.class)
    public RateLimiter limiter(ManualTimeSource clock) {
        return new LocalRateLimiter(Integer.MAX_VALUE, clock);
    }
}
