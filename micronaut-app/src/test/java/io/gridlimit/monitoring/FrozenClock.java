package io.gridlimit.monitoring;

import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Instant;

/**
 * Replaces the {@link TimeSource} bean with a {@link ManualTimeSource} that never moves, in contexts that set
 * {@value #PROPERTY}{@code =true}: the embedded member's decisions read it (GridFactory), so a test's allowed and
 * denied counts are exact whatever the machine's speed.
 */
@Factory
@Requires(property = FrozenClock.PROPERTY, value = "true")
public class FrozenClock {
    /** The property that turns this clock on. */
    public static final String PROPERTY = "gridlimit-monitoring-test.frozen-clock";
    /** 2026-01-01T00:00:00Z: aligned to every window of 1 s, 10 s, 1 min and 1 h. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** @return the clock, frozen at {@link #START} */
    @Singleton
    @Replaces(TimeSource.class)
    public ManualTimeSource frozenClock() {
        return ManualTimeSource.startingAt(START);
    }
}
