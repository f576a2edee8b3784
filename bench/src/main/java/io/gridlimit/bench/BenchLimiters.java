package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.grid.HazelcastRateLimiter;

/**
 * The one place where the skewed benchmarks ({@link SkewedBenchmark}, {@link SkewedClusterBenchmark}) and
 * {@link LeaseAccuracy} build a GridLimit limiter, with or without quota leases (issue 14): the default builder
 * (coalescing on, the default callback pool), plus {@code leases(true)} for the lease rows.
 *
 * <p>Leases are not on this branch yet: {@code gridLimit(hz, true)} throws until the line marked
 * {@code // LEASES:} (the {@code throw}) is replaced by the return statement written in its comment. Nothing else
 * in the bench needs to change: the lease rows, the accuracy check and {@code bench/run.sh} ask
 * {@link #leasesMerged()}.
 * Stateless; thread-safe.
 */
public final class BenchLimiters {
    /** The message of the exception thrown while leases are not merged. */
    public static final String LEASES_MISSING = "leases not merged yet";

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
     * @throws UnsupportedOperationException if {@code leases} is true and leases are not merged yet
     */
    public static HazelcastRateLimiter gridLimit(HazelcastInstance hz, boolean leases) {
        if (!leases) {
            return HazelcastRateLimiter.builder(hz).build();
        }
        // the next line is the one to change: replace it with the return statement in its comment
        throw new UnsupportedOperationException(LEASES_MISSING); // LEASES: return HazelcastRateLimiter.builder(hz).leases(true).build();
    }

    /**
     * Whether {@link #gridLimit} can build a leased limiter, found without a member: a null instance makes the
     * builder throw {@link NullPointerException}, while the unmerged seam throws
     * {@link UnsupportedOperationException} before touching it.
     *
     * @return true once the {@code // LEASES:} line is changed
     */
    public static boolean leasesMerged() {
        try {
            gridLimit(null, true).close();
            return true;
        } catch (UnsupportedOperationException notYet) {
            return false;
        } catch (NullPointerException builderReached) {
            return true;
        }
    }

    /**
     * Prints {@code merged} or {@code not-merged} ({@code bench/run.sh} uses it to leave the lease rows out of a
     * run until leases exist).
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        System.out.println(leasesMerged() ? "merged" : "not-merged");
    }
}
