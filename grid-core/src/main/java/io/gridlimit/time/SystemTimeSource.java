package io.gridlimit.time;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@link TimeSource} that reads a wall clock: {@link Clock#instant()} as nanoseconds since the epoch.
 *
 * <p>Meant for a single process (one member, or a local limiter without a cluster). In a cluster use
 * {@link ClusterTimeSource}: state migrates between members and must be read against a time they agree on
 * (SPEC §2). The reading has the clock's precision (microseconds for {@link Clock#systemUTC()} on most JDK 17
 * platforms). An instant beyond the range of a {@code long} saturates at {@link Long#MIN_VALUE} or
 * {@link Long#MAX_VALUE} nanoseconds (the years 1677 and 2262). Immutable and thread-safe.
 */
public final class SystemTimeSource implements TimeSource {
    private static final SystemTimeSource UTC = new SystemTimeSource(Clock.systemUTC());
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Clock clock;

    private SystemTimeSource(Clock clock) {
        this.clock = clock;
    }

    /**
     * The system clock, {@link Clock#systemUTC()}.
     *
     * @return a shared instance, never null
     */
    public static SystemTimeSource systemUtc() {
        return UTC;
    }

    /**
     * A time source reading the given clock (its zone does not matter: only the instant is read).
     *
     * @param clock the clock to read
     * @return a new time source, never null
     * @throws NullPointerException if {@code clock} is null
     */
    public static SystemTimeSource of(Clock clock) {
        return new SystemTimeSource(Objects.requireNonNull(clock, "clock"));
    }

    /**
     * Reads the clock.
     *
     * @return nanoseconds since 1970-01-01T00:00Z, saturating at the bounds of a {@code long}
     */
    @Override
    public long nowNanos() {
        return toEpochNanos(clock.instant());
    }

    static long toEpochNanos(Instant instant) {
        long seconds = instant.getEpochSecond();
        long high = Math.multiplyHigh(seconds, NANOS_PER_SECOND);
        long low = seconds * NANOS_PER_SECOND;
        if ((high != 0 || low < 0) && (high != -1 || low >= 0)) {
            return seconds < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long sum = low + instant.getNano();
        // nano is in [0, 1e9): the sum can only overflow upwards
        return (low > 0 && sum < 0) ? Long.MAX_VALUE : sum;
    }

    @Override
    public String toString() {
        return "SystemTimeSource{" + clock + "}";
    }
}
