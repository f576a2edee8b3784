package io.gridlimit.time;

/**
 * The clock a decision reads, once, on the member that owns the key (SPEC §2).
 *
 * <p>Readings are epoch-based nanoseconds that all members agree on, because state migrates between members:
 * never {@code System.nanoTime()}. Implementations are thread-safe.
 */
@FunctionalInterface
public interface TimeSource {
    /**
     * Reads the current time.
     *
     * @return nanoseconds since 1970-01-01T00:00Z; may step backwards when the clock is corrected
     */
    long nowNanos();
}
