package io.gridlimit.grid;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.CompositeState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.MergeStates;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The policies a member has seen, by name: what the split-brain merge ({@link ConservativeMergePolicy}) and the
 * state-loss count ({@link StateLossListener}) need to read a stored state, since Hazelcast hands them a value
 * without its policy (a token bucket state does not carry its capacity or rate, a log state not its limit).
 *
 * <p>One catalog per member, kept in the member's {@code Config} user context under {@link #USER_CONTEXT_KEY}.
 * It fills itself: every decision run on the member ({@code DecideProcessor}) and every decision asked through a
 * {@link HazelcastRateLimiter} on the member remembers its policy (the latest parameters per name win); an
 * application may also {@link #remember} its configured policies at boot, so that a member that has not yet
 * decided for a policy knows it too. Thread-safe.
 */
public final class PolicyCatalog {
    /** Key under which a member's {@code Config} user context holds its catalog. */
    public static final String USER_CONTEXT_KEY = "io.gridlimit.grid.PolicyCatalog";

    private final ConcurrentHashMap<String, Policy> byName = new ConcurrentHashMap<>();

    /** Creates an empty catalog (usually reached through {@link #of(HazelcastInstance)} instead). */
    public PolicyCatalog() {
    }

    /**
     * Returns the catalog of a member, creating it on first use.
     *
     * @param member a running member (on a client the catalog is local to the client and unused)
     * @return the member's catalog, never null
     * @throws NullPointerException if {@code member} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static PolicyCatalog of(HazelcastInstance member) {
        return of(Objects.requireNonNull(member, "member").getConfig().getUserContext());
    }

    /**
     * Returns the catalog a member started from {@code config} will use, creating it if absent.
     *
     * @param config a member configuration
     * @return the catalog, never null
     * @throws NullPointerException if {@code config} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static PolicyCatalog of(Config config) {
        return of(Objects.requireNonNull(config, "config").getUserContext());
    }

    private static PolicyCatalog of(ConcurrentMap<String, Object> context) {
        Object found = context.get(USER_CONTEXT_KEY);
        if (found == null) {
            found = context.computeIfAbsent(USER_CONTEXT_KEY, k -> new PolicyCatalog());
        }
        if (found instanceof PolicyCatalog catalog) {
            return catalog;
        }
        throw new IllegalStateException("the user context entry " + USER_CONTEXT_KEY + " holds a "
                + found.getClass().getName() + ", not a PolicyCatalog");
    }

    /**
     * Remembers a policy under its name, replacing an earlier one of the same name.
     *
     * @param policy the policy
     * @throws NullPointerException if {@code policy} is null
     */
    public void remember(Policy policy) {
        Policy known = byName.get(policy.name());
        if (known != policy && !policy.equals(known)) {
            byName.put(policy.name(), policy);
        }
    }

    /**
     * @param policyName a policy name
     * @return the policy last remembered under that name, or null
     */
    public Policy policy(String policyName) {
        return byName.get(policyName);
    }

    /**
     * @param mapName a map name, {@code gridlimit.<policy>}
     * @return the policy of that map, or null when unknown or not a GridLimit map
     */
    public Policy forMap(String mapName) {
        if (mapName == null || !mapName.startsWith(GridLimitHazelcast.MAP_PREFIX)) {
            return null;
        }
        return byName.get(mapName.substring(GridLimitHazelcast.MAP_PREFIX.length()));
    }

    /** @return a snapshot of the known policies */
    public Collection<Policy> policies() {
        return List.copyOf(byName.values());
    }

    /**
     * Finds the policy that both states were written under when the map (hence the policy name) is unknown: the
     * known policies whose bands read both states (same algorithm and refill period or window; for a composite
     * state every band name present). When several match, they must agree on every band parameter (names aside
     * for single-band policies), else the answer is ambiguous.
     *
     * @param a a state, or null
     * @param b a state, or null
     * @return the policy, or null when none or several different ones match
     */
    public Policy resolve(LimiterState a, LimiterState b) {
        List<Policy> candidates = new ArrayList<>();
        for (Policy p : byName.values()) {
            if ((a == null || reads(p, a)) && (b == null || reads(p, b))) {
                candidates.add(p);
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        Policy first = candidates.get(0);
        for (int i = 1; i < candidates.size(); i++) {
            if (!sameParameters(first, candidates.get(i))) {
                return null;
            }
        }
        return first;
    }

    private static boolean reads(Policy p, LimiterState state) {
        LimiterState s = state instanceof io.gridlimit.algorithm.ReservedState r ? r.inner() : state;
        if (s instanceof CompositeState c) {
            if (!p.isComposite()) {
                return false;
            }
            for (String name : c.bandNames()) {
                Band band = p.bands().stream().filter(b -> b.name().equals(name)).findFirst().orElse(null);
                if (band == null || !MergeStates.fits(c.bandState(name), band)) {
                    return false;
                }
            }
            return true;
        }
        return !p.isComposite() && MergeStates.fits(s, p.bands().get(0));
    }

    private static boolean sameParameters(Policy x, Policy y) {
        if (x.isComposite() != y.isComposite() || x.bands().size() != y.bands().size()) {
            return false;
        }
        for (int i = 0; i < x.bands().size(); i++) {
            Band bx = x.bands().get(i);
            Band by = y.bands().get(i);
            if (!(x.isComposite() ? bx.equals(by) : bx.equals(by.withName(bx.name())))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "PolicyCatalog" + byName.keySet();
    }
}
