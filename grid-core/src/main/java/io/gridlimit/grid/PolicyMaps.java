package io.gridlimit.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Policy;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The IMap of each policy ({@code gridlimit.<policy>}, SPEC §8) with the {@link AsyncSubmitter} chosen for it,
 * looked up once per policy name; on a member, every policy asked for is remembered in the member's
 * {@link SeenPolicies} (which the merge policy and the state-loss listener read). Thread-safe.
 */
final class PolicyMaps {
    private final HazelcastInstance instance;
    private final ConcurrentHashMap<String, PolicyMap> maps = new ConcurrentHashMap<>();
    /** The policies the member has seen; null on a client. */
    private final SeenPolicies seen;

    /** @param instance a member or a client */
    PolicyMaps(HazelcastInstance instance) {
        this.instance = instance;
        this.seen = isMember() ? SeenPolicies.of(instance) : null;
    }

    /** @return true when the instance is a member (it owns entries), false for a client */
    boolean isMember() {
        return instance.getLocalEndpoint() instanceof Member;
    }

    /**
     * @param policy a policy, remembered in the member's seen policies
     * @return its map and submitter
     */
    PolicyMap get(Policy policy) {
        if (seen != null) {
            seen.remember(policy);
        }
        return get(policy.name());
    }

    /**
     * @param policyName a policy name
     * @return its map and submitter
     */
    PolicyMap get(String policyName) {
        PolicyMap found = maps.get(policyName);
        if (found != null) {
            return found;
        }
        return maps.computeIfAbsent(policyName, n -> {
            IMap<String, LimiterState> map = instance.getMap(GridLimitHazelcast.mapName(n));
            return new PolicyMap(map, AsyncSubmitter.forMap(map));
        });
    }

    /**
     * A policy's map and the async path chosen for it.
     *
     * @param map the IMap {@code gridlimit.<policy>}
     * @param async how async decisions are sent to it
     */
    record PolicyMap(IMap<String, LimiterState> map, AsyncSubmitter async) {
    }
}
