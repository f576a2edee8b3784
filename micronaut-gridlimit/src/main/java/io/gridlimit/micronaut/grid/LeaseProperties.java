package io.gridlimit.micronaut.grid;

import io.gridlimit.grid.LeaseSettings;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.bind.annotation.Bindable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/**
 * {@code gridlimit.leases}, quota leases (docs/SPEC.md §13; README "Quota leases"): off by default.
 *
 * @param enabled true to decide busy keys of token-bucket and GCRA policies in process from leased units
 * @param maxLife the longest life of a lease, in [1 ms, 10 s]
 * @param window the window in which a replica counts a key's units to size its lease, in [1 ms, 1 s]
 * @param minUnits the least units a key must have asked in one window before it takes a lease
 * @param capacityShare a lease holds at most the policy's least capacity divided by this
 * @param maxKeys the most (policy, key) pairs one replica tracks for leases
 */
@ConfigurationProperties("gridlimit.leases")
public record LeaseProperties(@Bindable(defaultValue = "false") boolean enabled,
                              @Bindable(defaultValue = "1s") Duration maxLife,
                              @Bindable(defaultValue = "50ms") Duration window,
                              @Bindable(defaultValue = "8") @Min(1) @Max(1_000_000_000) long minUnits,
                              @Bindable(defaultValue = "10") @Min(2) @Max(1_000_000) long capacityShare,
                              @Bindable(defaultValue = "10000") @Min(1) @Max(10_000_000) int maxKeys) {
    /**
     * The settings for the limiter.
     *
     * @return the settings, or null when leases are off
     * @throws ConfigurationException if a duration is out of its range (the message names the property and value)
     */
    public LeaseSettings settings() {
        if (!enabled) {
            return null;
        }
        long lifeNanos = nanos("gridlimit.leases.max-life", maxLife, 1_000_000L, 10_000_000_000L);
        long windowNanos = nanos("gridlimit.leases.window", window, 1_000_000L, 1_000_000_000L);
        return new LeaseSettings(lifeNanos, windowNanos, minUnits, capacityShare, maxKeys);
    }

    private static long nanos(String property, Duration d, long min, long max) {
        if (d.isNegative() || d.compareTo(Duration.ofNanos(max)) > 0 || d.toNanos() < min) {
            throw new ConfigurationException(property + ": '" + d + "' is out of range [" + Duration.ofNanos(min)
                    + ", " + Duration.ofNanos(max) + "]");
        }
        return d.toNanos();
    }
}
