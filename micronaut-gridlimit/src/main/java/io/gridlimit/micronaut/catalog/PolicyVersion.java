package io.gridlimit.micronaut.catalog;

import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.micronaut.core.annotation.Nullable;
import java.util.Objects;

/**
 * One version of a policy in the grid's policy catalog (docs/SPEC.md §11), as the admin API shows it: the policy's
 * name, its version (from 1, +1 per change, so an {@code ETag}), where that version comes from, who made it, and
 * the policy, or none when this version deleted it (a tombstone: versions only grow, and a policy created again
 * continues them). A copy of grid-core's record for a reader of {@link PolicyAdmin}. Immutable and thread-safe.
 *
 * @param name the policy name, never null
 * @param version the version, >= 1
 * @param origin where this version comes from, never null
 * @param changedBy who made this version (the admin API's caller, or the seeding replica), or null
 * @param policy the policy; null when this version deleted it
 */
public record PolicyVersion(String name, long version, Origin origin, @Nullable String changedBy,
                            @Nullable Policy policy) {
    /** Where a version comes from. */
    public enum Origin {
        /** Seeded from the configuration of a replica: configuration may change it again. */
        CONFIGURATION,
        /** Changed through the admin API: the catalog owns the policy, configuration no longer changes it. */
        API
    }

    /**
     * @throws NullPointerException if {@code name} or {@code origin} is null
     * @throws IllegalArgumentException if {@code version < 1}
     */
    public PolicyVersion {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(origin, "origin");
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, got " + version);
        }
    }

    /** @return true unless this version deleted the policy */
    public boolean live() {
        return policy != null;
    }

    /**
     * @param r a catalog record, or null
     * @return its version, or null for null
     */
    static @Nullable PolicyVersion of(@Nullable PolicyRecord r) {
        if (r == null) {
            return null;
        }
        Origin origin = switch (r.origin()) {
            case CONFIGURATION -> Origin.CONFIGURATION;
            case API -> Origin.API;
        };
        return new PolicyVersion(r.name(), r.version(), origin, r.changedBy(), r.policy());
    }
}
