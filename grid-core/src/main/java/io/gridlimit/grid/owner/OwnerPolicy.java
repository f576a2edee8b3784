package io.gridlimit.grid.owner;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.CarryOver;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.owner.SeenPolicies;
import java.util.List;

/**
 * Internal to grid-core: not API; public for the bench module's batch processor, which decides as
 * {@link DecideProcessor} does.
 *
 * <p>What the owner of a key decides with (docs/SPEC.md §4, §11): the newest version of the policy it knows,
 * whichever version the asking replica sent, and the key's state carried over to it where the stored state was
 * written under another period, window or algorithm ({@link CarryOver}). The owner's knowledge is its
 * {@link SeenPolicies}: the versions that decisions brought to it and those its local copy of the grid's
 * {@link PolicyCatalog} holds. Runs on the partition thread: it reads only local memory, never the grid. Stateless
 * and thread-safe.
 */
public final class OwnerPolicy {
    private OwnerPolicy() {
    }

    /**
     * The owner's policy and state for one decision.
     *
     * @param policy the policy to decide with
     * @param version its catalog version, 0 when not from the catalog
     * @param state the state to decide on (the stored one, or the carried one), null when none
     * @param carried true when {@code state} is a carry-over, to be written even if nothing is admitted
     */
    public record Resolved(Policy policy, long version, LimiterState state, boolean carried) {
    }

    /**
     * Resolves the policy and state of one decision.
     *
     * @param memberOrNull the owner (its {@link SeenPolicies}); null in tests on a plain entry
     * @param sent the policy the asking replica sent
     * @param sentVersion its catalog version, 0 when not from the catalog
     * @param stored the stored state, or null
     * @param nowNanos the owner's reading
     * @return the resolution, never null
     */
    public static Resolved resolve(HazelcastInstance memberOrNull, Policy sent, long sentVersion, LimiterState stored,
                            long nowNanos) {
        SeenPolicies seen = memberOrNull == null ? null : SeenPolicies.of(memberOrNull);
        Policy policy = sent;
        long version = 0;
        if (seen != null) {
            if (sentVersion > 0) {
                SeenPolicies.Versioned newest = seen.rememberVersion(sentVersion, sent);
                policy = newest.policy();
                version = newest.version();
            }
            seen.remember(policy); // for the split-brain merge and the state-loss count
        } else if (sentVersion > 0) {
            version = sentVersion;
        }
        if (!CarryOver.needed(stored, policy)) {
            return new Resolved(policy, version, stored, false);
        }
        List<Policy> earlier = seen == null ? List.of() : seen.earlier(policy.name(), version == 0 ? Long.MAX_VALUE
                : version);
        LimiterState carried = CarryOver.carry(stored, earlier, policy, nowNanos);
        return new Resolved(policy, version, carried, true);
    }
}
