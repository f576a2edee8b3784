package io.gridlimit.grid.lease;

import io.gridlimit.internal.Preconditions;
import java.time.Duration;

/**
 * How a {@link io.gridlimit.grid.HazelcastRateLimiter} takes quota leases (docs/SPEC.md §13). Immutable and thread-safe.
 *
 * @param maxLifeNanos the longest life a lease is asked for, nanoseconds, in [1 ms, 10 s]; the owner grants at most
 *     the reservation hold of the policy ({@code C·P/R} for a bucket)
 * @param windowNanos the window in which a replica counts a key's units to size its lease, nanoseconds, in
 *     [1 ms, 1 s]
 * @param minUnits the least units a key must have asked in one window before it takes a lease, in [1, 10^15]
 * @param capacityShare a lease holds at most the least capacity of the policy's bands divided by this, in [2, 10^6]
 * @param maxKeys the most (policy, key) pairs a replica tracks for leases, in [1, 10^7]; others go to the owner
 *     one request at a time
 */
public record LeaseSettings(long maxLifeNanos, long windowNanos, long minUnits, long capacityShare, int maxKeys) {
    /**
     * The defaults: life at most 1 s, window 500 ms (so a lease lives 1 s), 8 units, a tenth of the capacity,
     * 10 000 keys. The window was chosen on a Zipf trace (bench/README.md, "Skewed workloads and quota leases"): 50 ms
     * leased too few keys to pay for tracking them.
     */
    public static final LeaseSettings DEFAULTS = new LeaseSettings(1_000_000_000L, 500_000_000L, 8, 10, 10_000);

    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException if a value is out of its range (the message names it and the value)
     */
    public LeaseSettings {
        Preconditions.checkRange("maxLifeNanos", maxLifeNanos, 1_000_000L, 10_000_000_000L);
        Preconditions.checkRange("windowNanos", windowNanos, 1_000_000L, 1_000_000_000L);
        Preconditions.checkRange("minUnits", minUnits, 1, io.gridlimit.api.Band.MAX_QUANTITY);
        Preconditions.checkRange("capacityShare", capacityShare, 2, 1_000_000);
        Preconditions.checkRange("maxKeys", maxKeys, 1, 10_000_000);
    }

    /**
     * The defaults with another life and window.
     *
     * @param maxLife the longest lease life, in [1 ms, 10 s]
     * @param window the sizing window, in [1 ms, 1 s]
     * @return new settings
     * @throws IllegalArgumentException if a value is out of its range
     */
    public static LeaseSettings of(Duration maxLife, Duration window) {
        return new LeaseSettings(saturatedNanos(maxLife), saturatedNanos(window), DEFAULTS.minUnits,
                DEFAULTS.capacityShare, DEFAULTS.maxKeys);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
