package io.gridlimit.grid;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Internal to grid-core: not API; it may change in any release. The test seams of a {@link HazelcastRateLimiter}
 * for code outside this package that measures a limiter (the bench module's lease accuracy run): the holder's
 * monotonic clock of quota leases (docs/SPEC.md §13), and the sweeper thread that retires ended grants. An
 * application never needs it: {@link HazelcastRateLimiter.Builder} without it reads {@code System.nanoTime} and runs
 * the sweeper. Stateless and thread-safe.
 */
public final class GridTestHooks {
    private GridTestHooks() {
    }

    /**
     * Makes a builder's limiter read the holder side's lease clock from {@code ticker} instead of
     * {@code System.nanoTime} (the owner still decides with its own time source).
     *
     * @param builder the builder, changed in place
     * @param ticker the holder's monotonic clock, nanoseconds
     * @param sweeper whether the sweeper thread runs (false: the caller retires grants itself, as grid-core's tests do)
     * @return {@code builder}
     * @throws NullPointerException if {@code builder} or {@code ticker} is null
     */
    public static HazelcastRateLimiter.Builder leaseTicker(HazelcastRateLimiter.Builder builder, LongSupplier ticker,
                                                           boolean sweeper) {
        return Objects.requireNonNull(builder, "builder").leaseTicker(ticker).leaseSweeper(sweeper);
    }
}
