package io.gridlimit.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} that moves only when told to: for tests (GridLimit's own and its users'). It may be set
 * backwards to simulate a clock correction (SPEC §2).
 *
 * <p>It also counts its readings ({@link #reads()}), so a test can check how often decisions read the time
 * (SPEC §8: once per decision, never on a backup). Thread-safe: readings, moves and the count are atomic.
 */
public final class ManualTimeSource implements TimeSource {
    private final AtomicLong nowNanos;
    private final AtomicLong reads = new AtomicLong();

    /**
     * Creates a time source frozen at the given reading.
     *
     * @param startNanos the first reading, nanoseconds since the epoch (any {@code long})
     */
    public ManualTimeSource(long startNanos) {
        this.nowNanos = new AtomicLong(startNanos);
    }

    /**
     * Creates a time source frozen at the given instant.
     *
     * @param start the first reading
     * @return a new time source, never null
     * @throws NullPointerException if {@code start} is null
     */
    public static ManualTimeSource startingAt(Instant start) {
        return new ManualTimeSource(SystemTimeSource.toEpochNanos(start));
    }

    /**
     * Returns the current reading and counts the read.
     *
     * @return nanoseconds since the epoch, as last set or advanced
     */
    @Override
    public long nowNanos() {
        reads.incrementAndGet();
        return nowNanos.get();
    }

    /**
     * Returns the current reading without counting a read.
     *
     * @return nanoseconds since the epoch
     */
    public long peekNanos() {
        return nowNanos.get();
    }

    /**
     * Sets the reading, forwards or backwards.
     *
     * @param nanos nanoseconds since the epoch (any {@code long})
     */
    public void setNanos(long nanos) {
        nowNanos.set(nanos);
    }

    /**
     * Moves the reading by a signed number of nanoseconds, saturating at the bounds of a {@code long}.
     *
     * @param deltaNanos nanoseconds to add; negative steps back
     * @return the new reading in nanoseconds since the epoch
     */
    public long advanceNanos(long deltaNanos) {
        return nowNanos.updateAndGet(n -> {
            long r = n + deltaNanos;
            if (((n ^ r) & (deltaNanos ^ r)) < 0) {
                return deltaNanos < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            return r;
        });
    }

    /**
     * Moves the reading by a duration, saturating.
     *
     * @param delta the (possibly negative) duration to add
     * @return the new reading in nanoseconds since the epoch
     * @throws NullPointerException if {@code delta} is null
     */
    public long advance(Duration delta) {
        long deltaNanos;
        try {
            deltaNanos = delta.toNanos();
        } catch (ArithmeticException e) {
            deltaNanos = delta.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return advanceNanos(deltaNanos);
    }

    /**
     * Returns how many times {@link #nowNanos()} was called since creation or the last {@link #resetReads()}.
     *
     * @return the number of readings, >= 0
     */
    public long reads() {
        return reads.get();
    }

    /**
     * Sets the read count back to zero.
     *
     * @return the count before the reset
     */
    public long resetReads() {
        return reads.getAndSet(0);
    }

    @Override
    public String toString() {
        return "ManualTimeSource{nowNanos=" + nowNanos.get() + "}";
    }
}
