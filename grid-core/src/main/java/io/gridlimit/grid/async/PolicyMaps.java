package io.gridlimit.grid.async;

import io.gridlimit.grid.wire.MemberContext;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.owner.SeenPolicies;
import io.gridlimit.grid.catalog.CatalogSupport;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter} and the holder side of leases
 * ({@code io.gridlimit.grid.lease}).
 *
 * <p>The IMap of each policy ({@code gridlimit.<policy>}, SPEC §8) with the {@link AsyncSubmitter} chosen for it,
 * looked up once per policy name; on a member, every policy asked for is remembered in the member's
 * {@link SeenPolicies} (which the merge policy and the state-loss listener read). Thread-safe.
 */
public final class PolicyMaps {
    private final HazelcastInstance instance;
    private final ConcurrentHashMap<String, PolicyMap> maps = new ConcurrentHashMap<>();
    /** The policies the member has seen; null on a client. */
    private final SeenPolicies seen;

    /** @param instance a member or a client */
    public PolicyMaps(HazelcastInstance instance) {
        this.instance = instance;
        this.seen = isMember() ? SeenPolicies.of(instance) : null;
    }

    /** The grid's policy catalog whose versions decisions carry, or null. */
    private volatile PolicyCatalog catalog;

    /** @param policyCatalog the catalog whose versions decisions carry (docs/SPEC.md §11), or null */
    public void useCatalog(PolicyCatalog policyCatalog) {
        this.catalog = policyCatalog;
    }

    /**
     * The catalog version a decision of {@code policy} carries: its version when it is the catalog's current policy
     * of its name and every member reads the catalog's wire types; else 0 (the form without a version).
     *
     * @param policy a policy
     * @return the version, or 0
     */
    /**
     * The catalog's current policy of {@code policy}'s name, or {@code policy} itself when the catalog has none (or
     * there is no catalog).
     *
     * @param policy a policy
     * @return the policy to use now, never null
     */
    public Policy current(Policy policy) {
        PolicyCatalog c = catalog;
        Policy now = c == null ? null : c.policy(policy.name());
        return now != null ? now : policy;
    }

    public long versionOf(Policy policy) {
        PolicyCatalog c = catalog;
        if (c == null) {
            return 0;
        }
        long version = c.versionOf(policy);
        return version > 0 && CatalogSupport.everyMember(instance) ? version : 0;
    }

    /** @return true when the instance is a member (it owns entries), false for a client */
    public boolean isMember() {
        return instance.getLocalEndpoint() instanceof Member;
    }

    /**
     * @param policy a policy, remembered in the member's seen policies
     * @return its map and submitter
     */
    public PolicyMap get(Policy policy) {
        if (seen != null) {
            seen.remember(policy);
        }
        return get(policy.name());
    }

    /**
     * @param policyName a policy name
     * @return its map and submitter
     */
    public PolicyMap get(String policyName) {
        PolicyMap found = maps.get(policyName);
        if (found != null) {
            return found;
        }
        return maps.computeIfAbsent(policyName, n -> {
            IMap<String, LimiterState> map = instance.getMap(MemberContext.mapName(n));
            return new PolicyMap(map, AsyncSubmitter.forMap(map));
        });
    }

    /**
     * A policy's map and the async path chosen for it.
     *
     * @param map the IMap {@code gridlimit.<policy>}
     * @param async how async decisions are sent to it
     */
    public record PolicyMap(IMap<String, LimiterState> map, AsyncSubmitter async) {
    }
}
