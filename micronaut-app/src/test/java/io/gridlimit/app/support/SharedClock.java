package io.gridlimit.app.support;

import io.gridlimit.time.ManualTimeSource;
import io.gridlimit.time.TimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Replaces the {@link TimeSource} bean with a named {@link ManualTimeSource} in service test contexts that set
 * {@code gridlimit-svc-test.clock=<name>}. Contexts naming the same clock share one instance, so two members of one
 * test cluster read the same time wherever a key lives.
 */
@Factory
@Requires(property = SharedClock.PROPERTY)
public class SharedClock {
    /** The property naming the clock a context uses. */
    public static final String PROPERTY = "gridlimit-svc-test.clock";
    /** 2026-01-01T00:00:00Z: aligned to every window of 1 s, 10 s, 1 min and 1 h. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private static final Map<String, ManualTimeSource> CLOCKS = new ConcurrentHashMap<>();

    /**
     * Returns the clock of a name, creating it frozen at {@link #START} on first use.
     *
     * @param name the clock's name
     * @return the shared clock, never null
     */
    public static ManualTimeSource named(String name) {
        return CLOCKS.computeIfAbsent(name, n -> ManualTimeSource.startingAt(START));
    }

    /**
     * The context's clock.
     *
     * @param name {@code gridlimit-svc-test.clock}
     * @return the shared clock of that name
     */
    @Singleton
    @Replaces(TimeSource.class)
    public ManualTimeSource manualTimeSource(@Property(name = PROPERTY) String name) {
        return named(name);
    }
}
