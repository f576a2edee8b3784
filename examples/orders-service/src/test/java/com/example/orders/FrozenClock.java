package com.example.orders;

import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import jakarta.inject.Singleton;

import java.time.Instant;

/**
 * The tests' clock, as GridLimit's README advises: the embedded member decides with this {@link TimeSource}, frozen
 * at the start of a minute, so the one-minute fixed window of {@code orders} never ends in the middle of a test (on
 * the wall clock, four requests that straddle a minute boundary start a new window and the fourth passes).
 */
@Factory
class FrozenClock {
    /** 2026-01-01T00:00:00Z, the start of a minute. */
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Singleton
    @Replaces(TimeSource.class)
    ManualTimeSource frozenClock() {
        return ManualTimeSource.startingAt(START);
    }
}
