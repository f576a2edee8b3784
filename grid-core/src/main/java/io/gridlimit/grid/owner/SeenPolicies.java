package io.gridlimit.grid.owner;

import io.gridlimit.grid.wire.MemberContext;
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
 * The policies a member has seen, by name (not the grid's policy catalog, {@code PolicyCatalog}, which holds the
 * versioned policies an operator changes): what the split-brain merge ({@link ConservativeMergePolicy}) and the
 * state-loss count ({@link StateLossListener}) need to read a stored state, since Hazelcast hands them a value
 * without its policy (a token bucket state does not carry its capacity or rate, a log state not its limit).
 *
 * <p>One per member, kept in the member's {@code Config} user context under {@link #USER_CONTEXT_KEY}.
 * They fill themselves: every decision run on the member ({@code DecideProcessor}) and every decision asked through a
 * {@link io.gridlimit.grid.HazelcastRateLimiter} on the member remembers its policy (the latest parameters per name win); an
 * application may also {@link #remember} its configured policies at boot, so that a member that has not yet
 * decided for a policy knows it too. Thread-safe.
 */
public final class SeenPolicies {
    /** Key under which a member's {@code Config} user context holds its seen policies. */
    public static final String USER_CONTEXT_KEY = "io.gridlimit.grid.SeenPolicies"; // unchanged when the class moved

    /** Most earlier parameter sets, and most catalog versions, remembered per policy name. */
    public static final int HISTORY = 8;

    private final ConcurrentHashMap<String, Policy> byName = new ConcurrentHashMap<>();
    /** Per name, the distinct parameter sets remembered, most recent first (at most {@link #HISTORY}). */
    private final ConcurrentHashMap<String, Policy[]> history = new ConcurrentHashMap<>();
    /** Per name, the catalog versions known, highest first (at most {@link #HISTORY}). */
    private final ConcurrentHashMap<String, Versioned[]> versions = new ConcurrentHashMap<>();

    /** Creates an empty set (usually reached through {@link #of(HazelcastInstance)} instead). */
    public SeenPolicies() {
    }

    /**
     * Returns the seen policies of a member, creating it on first use.
     *
     * @param member a running member (on a client the set is local to the client and unused)
     * @return the member's seen policies, never null
     * @throws NullPointerException if {@code member} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static SeenPolicies of(HazelcastInstance member) {
        return of(Objects.requireNonNull(member, "member").getConfig().getUserContext());
    }

    /**
     * Returns the seen policies a member started from {@code config} will use, creating it if absent.
     *
     * @param config a member configuration
     * @return the seen policies, never null
     * @throws NullPointerException if {@code config} is null
     * @throws IllegalStateException if the user context holds something else under {@link #USER_CONTEXT_KEY}
     */
    public static SeenPolicies of(Config config) {
        return of(Objects.requireNonNull(config, "config").getUserContext());
    }

    private static SeenPolicies of(ConcurrentMap<String, Object> context) {
        Object found = context.get(USER_CONTEXT_KEY);
        if (found == null) {
            found = context.computeIfAbsent(USER_CONTEXT_KEY, k -> new SeenPolicies());
        }
        if (found instanceof SeenPolicies seen) {
            return seen;
        }
        throw new IllegalStateException("the user context entry " + USER_CONTEXT_KEY + " holds a "
                + found.getClass().getName() + ", not a SeenPolicies");
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
            history.compute(policy.name(), (n, h) -> pushFront(h, policy));
        }
    }

    private static Policy[] pushFront(Policy[] h, Policy policy) {
        List<Policy> next = new ArrayList<>(HISTORY);
        next.add(policy);
        if (h != null) {
            for (Policy p : h) {
                if (next.size() < HISTORY && !p.equals(policy)) {
                    next.add(p);
                }
            }
        }
        return next.toArray(new Policy[0]);
    }

    /**
     * Returns the parameter sets remembered under a name, most recent first: the candidates a carry-over
     * ({@link io.gridlimit.algorithm.CarryOver}) reads an unfamiliar state with.
     *
     * @param policyName a policy name
     * @return at most {@link #HISTORY} policies, most recently remembered first; empty when none
     */
    public List<Policy> recent(String policyName) {
        Policy[] h = history.get(policyName);
        return h == null ? List.of() : List.of(h);
    }

    /**
     * A policy as a version of the grid's policy catalog ({@link PolicyCatalog}) defines it.
     *
     * @param version the catalog version, >= 1
     * @param policy the policy of that version
     */
    public record Versioned(long version, Policy policy) {
    }

    /**
     * Remembers a catalog version of a policy (kept among the {@link #HISTORY} highest versions of its name) and
     * returns the newest version known: what the owner of a key decides with (SPEC §11), whichever version the
     * asking replica sent.
     *
     * @param version the version, >= 1
     * @param policy the policy of that version
     * @return the highest version known under the policy's name, never older than {@code version}'s
     * @throws NullPointerException if {@code policy} is null
     */
    public Versioned rememberVersion(long version, Policy policy) {
        Versioned[] known = versions.get(policy.name());
        if (known != null && known[0].version() >= version && contains(known, version)) {
            return known[0];
        }
        return versions.compute(policy.name(), (n, v) -> insert(v, new Versioned(version, policy)))[0];
    }

    /**
     * @param policyName a policy name
     * @return the highest catalog version known under that name, or null when none
     */
    public Versioned newest(String policyName) {
        Versioned[] known = versions.get(policyName);
        return known == null ? null : known[0];
    }

    private static boolean contains(Versioned[] known, long version) {
        for (Versioned v : known) {
            if (v.version() == version) {
                return true;
            }
        }
        return known.length == HISTORY && known[HISTORY - 1].version() > version; // older than all kept: ignore
    }

    private static Versioned[] insert(Versioned[] known, Versioned added) {
        List<Versioned> next = new ArrayList<>(HISTORY + 1);
        if (known != null) {
            next.addAll(List.of(known));
        }
        if (next.stream().noneMatch(v -> v.version() == added.version())) {
            next.add(added);
        }
        next.sort((x, y) -> Long.compare(y.version(), x.version()));
        return next.subList(0, Math.min(HISTORY, next.size())).toArray(new Versioned[0]);
    }

    /**
     * Returns the catalog versions known under a name below {@code version}, newest first, then the other
     * parameter sets remembered ({@link #recent}): the earlier policies a carry-over tries.
     *
     * @param policyName a policy name
     * @param version the version being applied
     * @return the earlier policies, newest first; empty when none
     */
    public List<Policy> earlier(String policyName, long version) {
        List<Policy> out = new ArrayList<>();
        Versioned[] known = versions.get(policyName);
        if (known != null) {
            for (Versioned v : known) {
                if (v.version() < version) {
                    out.add(v.policy());
                }
            }
        }
        for (Policy p : recent(policyName)) {
            if (!out.contains(p)) {
                out.add(p);
            }
        }
        return out;
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
        if (mapName == null || !mapName.startsWith(MemberContext.MAP_PREFIX)) {
            return null;
        }
        return byName.get(mapName.substring(MemberContext.MAP_PREFIX.length()));
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
        return "SeenPolicies" + byName.keySet();
    }
}
