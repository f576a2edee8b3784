package io.gridlimit.grid.lease;

import io.gridlimit.grid.lease.LeaseSettings;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The daemon thread that runs the holder's sweep (docs/SPEC.md §13, "Life": grants retired at their spend time,
 * idle keys forgotten) every sizing window, at least every millisecond. Thread-safe.
 */
final class LeaseSweeper implements AutoCloseable {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final ScheduledExecutorService sweeper;

    /**
     * @param sweep the sweep
     * @param windowNanos the sizing window ({@link LeaseSettings#windowNanos()})
     */
    LeaseSweeper(Runnable sweep, long windowNanos) {
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gridlimit-leases");
            t.setDaemon(true);
            return t;
        });
        long periodNanos = Math.max(NANOS_PER_MILLI, windowNanos);
        sweeper.scheduleWithFixedDelay(sweep, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /** Stops the thread. */
    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
