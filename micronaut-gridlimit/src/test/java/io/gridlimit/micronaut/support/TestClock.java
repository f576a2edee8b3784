package io.gridlimit.micronaut.support;

import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.time.Instant;

/**
 * Replaces the {@link TimeSource} bean with a {@link ManualTimeSource} in contexts that set
 * {@code gridlimit-test.manual-clock=true}; the embedded member's decisions then read it (see GridFactory).
 */
@Factory
@Requires(property = "gridlimit-test.manual-clock", value = "true")
public class TestClock {
    /** 2026-01-01T00:00:00Z: aligned to every window of 1 s, 10 s, 1 min and 1 h. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** @return the manual clock, frozen at {@link #START} */
    @Singleton
    @Replaces(TimeSource.class)
    public ManualTimeSource manualTimeSource() {
        return ManualTimeSource.startingAt(START);
    }
}
