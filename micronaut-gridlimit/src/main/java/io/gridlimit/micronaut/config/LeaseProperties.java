package io.gridlimit.micronaut.config;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
                              @Bindable(defaultValue = "500ms") Duration window,
                              @Bindable(defaultValue = "8") @Min(1) @Max(1_000_000_000) long minUnits,
                              @Bindable(defaultValue = "10") @Min(2) @Max(1_000_000) long capacityShare,
                              @Bindable(defaultValue = "10000") @Min(1) @Max(10_000_000) int maxKeys) {
    private static final long MIN_NANOS = 1_000_000L;
    private static final long MAX_LIFE_NANOS = 10_000_000_000L;
    private static final long MAX_WINDOW_NANOS = 1_000_000_000L;

    /**
     * The settings for the limiter.
     *
     * @return the settings, or null when leases are off
     * @throws IllegalStateException if {@link #problems()} is not empty (boot refuses that first)
     */
    public io.gridlimit.grid.lease.LeaseSettings settings() {
        if (!enabled) {
            return null;
        }
        if (!problems().isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems()));
        }
        return new io.gridlimit.grid.lease.LeaseSettings(maxLife.toNanos(), window.toNanos(), minUnits, capacityShare,
                maxKeys);
    }

    /**
     * The durations out of range, checked at boot with the rest of the configuration ({@link GridLimitConfigFactory}).
     *
     * @return one message per bad value, naming the property and the value; empty when all is well
     */
    public List<String> problems() {
        return problems((property, d) -> d.toString().substring(2).toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * {@link #problems()}, quoting each bad value as {@code written} gives it.
     *
     * @param written the value as written for a property path (the bound duration when it is not known)
     * @return one message per bad value, naming the property and the value; empty when all is well
     */
    public List<String> problems(java.util.function.BiFunction<String, Duration, String> written) {
        List<String> out = new ArrayList<>();
        check(out, written, "gridlimit.leases.max-life", maxLife, MAX_LIFE_NANOS, "[1ms, 10s]");
        check(out, written, "gridlimit.leases.window", window, MAX_WINDOW_NANOS, "[1ms, 1s]");
        return out;
    }

    private static void check(List<String> out, java.util.function.BiFunction<String, Duration, String> written,
                              String property, Duration d, long maxNanos, String range) {
        if (d.isNegative() || d.compareTo(Duration.ofNanos(maxNanos)) > 0 || d.toNanos() < MIN_NANOS) {
            out.add(property + ": '" + written.apply(property, d) + "' is out of range " + range);
        }
    }
}
