package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.RateLimiter;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.lease.LeaseStats;

/**
 * What a library, a service or a door needs from the grid beyond {@link RateLimiter}'s decisions: the Hazelcast
 * instance for cluster status and for dropping a map, a policy's map prepared and its owned keys counted, the
 * lease counts, and the policy catalog wired in (docs/SPEC.md §8, §11, §13). It is the one seam to the grid:
 * code outside grid-core asks {@link #of(RateLimiter)} for it and never casts a limiter to
 * {@link HazelcastRateLimiter}, so a replaced limiter (a test's, or an application's {@code @Replaces}) simply
 * has no grid operations.
 *
 * <p>Implemented by {@link HazelcastRateLimiter}. Implementations are thread-safe.
 */
public interface GridOperations {
    /**
     * The grid operations of a limiter.
     *
     * @param limiter the application's limiter
     * @return the limiter itself as grid operations when it works on a Hazelcast grid, else empty (an in-process or
     *     test limiter); never null
     * @throws NullPointerException if {@code limiter} is null
     */
    static Optional<GridOperations> of(RateLimiter limiter) {
        Objects.requireNonNull(limiter, "limiter");
        return limiter instanceof GridOperations grid ? Optional.of(grid) : Optional.empty();
    }

    /**
     * @return the Hazelcast instance (member or client) decisions go through, never null; not owned by the
     *     limiter: closing the limiter leaves it running
     */
    HazelcastInstance instance();

    /**
     * Returns how many keys of a policy this member owns (Hazelcast's {@code LocalMapStats} owned entry count of
     * the map {@code gridlimit.<policy>}): the active keys held here, counting expired entries not yet swept. On a
     * member the call also creates the map's proxy, so callers use it at startup to prepare a policy's map before
     * the first request. For a metrics gauge.
     *
     * @param policyName the policy name
     * @return the count, at least 0; empty on a client, which owns no entries (and creates no proxy here)
     * @throws NullPointerException if {@code policyName} is null
     * @throws IllegalStateException if the limiter is closed
     */
    OptionalLong localOwnedKeyCount(String policyName);

    /**
     * What this replica's quota leases did (docs/SPEC.md §13).
     *
     * @return monotonic counts since the limiter was built, or null when leases are off
     */
    LeaseStats leaseStats();

    /**
     * Makes decisions of the catalog's current policies carry their version (docs/SPEC.md §11): the owner of a key
     * then decides with the newest version it knows, and each {@code Decision.policyVersion()} states the version
     * used. A policy that is not the catalog's current one of its name is decided as given, without a version.
     *
     * @param catalog the grid's policy catalog of this limiter's instance, or null to stop using one
     * @return these grid operations
     */
    GridOperations useCatalog(PolicyCatalog catalog);
}
