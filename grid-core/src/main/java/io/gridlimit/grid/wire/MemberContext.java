package io.gridlimit.grid.wire;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.time.ClusterTimeSource;
import io.gridlimit.time.TimeSource;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;

/**
 * Internal to grid-core: not API; public for grid-core's packages. The names every member agrees on: the policy
 * maps' prefix and the {@code Config} user context's time source, which the owner's processors read (docs/SPEC.md
 * §2, §8). {@link io.gridlimit.grid.GridLimitHazelcast} publishes them as API ({@code MAP_PREFIX},
 * {@code TIME_SOURCE_KEY}, {@code mapName}, {@code timeSourceOf}); they live here so that the owner, catalog and
 * asynchronous packages need nothing of the package that wires them. Stateless and thread-safe.
 */
public final class MemberContext {
    /** Prefix of every policy map: the map of policy {@code p} is {@code gridlimit.p}. */
    public static final String MAP_PREFIX = "gridlimit.";
    /** Key under which a member's {@code Config} user context holds the {@link TimeSource} of its decisions. */
    public static final String TIME_SOURCE_KEY = "io.gridlimit.time.TimeSource";

    private MemberContext() {
    }

    /**
     * @param policyName the policy name
     * @return {@code "gridlimit." + policyName}
     * @throws NullPointerException if {@code policyName} is null
     */
    public static String mapName(String policyName) {
        return MAP_PREFIX + Objects.requireNonNull(policyName, "policyName");
    }

    /**
     * The time source the member's decisions read: the one its {@code Config} user context holds under
     * {@link #TIME_SOURCE_KEY}, else (the default) a {@link ClusterTimeSource} of the member, which is then kept
     * there.
     *
     * @param member a running member
     * @return the member's time source, never null
     * @throws IllegalStateException if {@code member} is null (no instance was injected) or the user context
     *     holds something else under the key
     */
    public static TimeSource timeSourceOf(HazelcastInstance member) {
        if (member == null) {
            throw new IllegalStateException("no HazelcastInstance was injected: GridLimit processors run on a member");
        }
        ConcurrentMap<String, Object> context = member.getConfig().getUserContext();
        Object found = context.get(TIME_SOURCE_KEY);
        if (found instanceof TimeSource source) {
            return source;
        }
        if (found != null) {
            throw new IllegalStateException("the user context entry " + TIME_SOURCE_KEY + " holds a "
                    + found.getClass().getName() + ", not a TimeSource");
        }
        TimeSource created = ClusterTimeSource.of(member);
        Object raced = context.putIfAbsent(TIME_SOURCE_KEY, created);
        return raced instanceof TimeSource source ? source : created;
    }
}
