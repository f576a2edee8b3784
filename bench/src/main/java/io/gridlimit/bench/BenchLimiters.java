package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.HazelcastRateLimiter;

/**
 * The one place where the skewed benchmarks ({@link SkewedBenchmark}, {@link SkewedClusterBenchmark}) and
 * {@link LeaseAccuracy} build a GridLimit limiter, with or without quota leases (issue 14): the default builder
 * (coalescing on, the default callback pool), plus {@code leases(true)} for the lease rows.
 * Stateless; thread-safe.
 */
public final class BenchLimiters {
    /** System property: another lease sizing window in milliseconds for an experiment (default: the library's). */
    public static final String LEASE_WINDOW_PROPERTY = "gridlimit.bench.leaseWindowMillis";

    private BenchLimiters() {
    }

    /**
     * Builds a GridLimit limiter on a member or client.
     *
     * @param hz the member or client, configured with {@code GridLimitHazelcast}
     * @param leases true for quota leases on, false for today's limiter (one EntryProcessor per decision or per
     *     coalesced batch)
     * @return a new limiter, never null; the caller closes it
     * @throws NullPointerException if {@code hz} is null
     */
    public static HazelcastRateLimiter gridLimit(HazelcastInstance hz, boolean leases) {
        if (!leases) {
            return HazelcastRateLimiter.builder(hz).build();
        }
        String window = System.getProperty(LEASE_WINDOW_PROPERTY);
        if (window == null) {
            return HazelcastRateLimiter.builder(hz).leases(true).build(); // the default settings
        }
        // an experiment with another sizing window (a lease lives two windows, at most 1 s)
        java.time.Duration w = java.time.Duration.ofMillis(Long.parseLong(window));
        return HazelcastRateLimiter.builder(hz).leases(io.gridlimit.grid.lease.LeaseSettings.of(
                java.time.Duration.ofSeconds(1), w)).build();
    }
}
