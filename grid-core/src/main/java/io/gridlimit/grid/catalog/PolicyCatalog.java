package io.gridlimit.grid.catalog;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.map.IMap;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.CatalogCopy;
import io.gridlimit.grid.catalog.CatalogSupport;
import io.gridlimit.grid.catalog.CatalogUpdateProcessor;
import io.gridlimit.grid.catalog.LocalOverrides;
import io.gridlimit.grid.catalog.RouteReferences;
import io.gridlimit.grid.owner.OwnerPolicy;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import io.gridlimit.grid.owner.SeenPolicies;

/**
 * The grid's policy catalog (docs/SPEC.md §11): versioned policies and per-key overrides that live in the cluster
 * and change without a redeploy, read by every replica from a local copy.
 *
 * <ul>
 *   <li><b>Policies</b> are {@link PolicyRecord}s in the IMap {@link #POLICIES_MAP} (with the policy maps'
 *   backups). Every change is one {@link CatalogUpdateProcessor} on the owner of the policy's entry, comparing the
 *   version (compare-and-set); a deletion leaves a tombstone so versions only grow.</li>
 *   <li><b>Overrides</b> map (policy, key) to another policy, in the IMap {@link #OVERRIDES_MAP} (key
 *   {@code <policy>|<key>}, value the other policy's name; policy names hold no {@code |}), changed with the map's
 *   atomic {@code putIfAbsent} / {@code replace} / {@code remove}; bounded by {@link #maxOverrides()}.</li>
 *   <li><b>Local copies.</b> Each instance holds both maps in memory, kept current by entry listeners (events
 *   reach every replica in milliseconds; a client reloads both after reconnecting), so a lookup on the decision
 *   path ({@link #versionOf}, {@link #policy}, {@link #overrideFor}) reads local memory only: no network round
 *   trip, never blocking. On a member, every version seen is also handed to the member's {@link SeenPolicies},
 *   from which the owner of a key decides with the newest version it knows ({@link OwnerPolicy}).</li>
 *   <li><b>References.</b> Each replica registers which policies its routes name ({@link #registerReferences}) in
 *   the IMap {@link #REFERENCES_MAP} under its own id, with a TTL of {@link #REFERENCE_TTL_SECONDS} s refreshed
 *   every third of it, so that a deletion can be refused while any live replica names the policy.</li>
 * </ul>
 * Changes block on the grid: call them off the event loop (the admin API runs them on the blocking executor).
 * Changes are accepted only while every member reads the catalog's wire types ({@link CatalogSupport}). Thread-safe.
 *
 * <p>The parts: {@link CatalogCopy} (the policies' local copy), {@link LocalOverrides} (the overrides' local copy)
 * and {@link RouteReferences} (this replica's references); the compare-and-set changes are
 * {@link CatalogUpdateProcessor}s.
 */
public final class PolicyCatalog implements AutoCloseable {
    /** The IMap of the policy records. */
    public static final String POLICIES_MAP = "gridlimit-catalog";
    /** The IMap of the per-key overrides. */
    public static final String OVERRIDES_MAP = "gridlimit-overrides";
    /** The IMap of the replicas' route references. */
    public static final String REFERENCES_MAP = "gridlimit-references";
    /** Seconds a replica's references live unless refreshed. */
    public static final int REFERENCE_TTL_SECONDS = 30;
    /** Most policy names the catalog holds, deletions included: a new name beyond it is refused. */
    public static final int MAX_POLICIES = 10_000;
    /** Default most overrides the catalog holds. */
    public static final int DEFAULT_MAX_OVERRIDES = 100_000;
    private final HazelcastInstance instance;
    /** Run after each (re)connection's reload, on the reload thread. */
    private final List<Runnable> onConnect = new CopyOnWriteArrayList<>();
    private final CatalogCopy local;
    private final LocalOverrides localOverrides = new LocalOverrides();
    private final int maxOverrides;
    private final String replicaId;
    private volatile UUID policyListener;
    private volatile UUID overrideListener;
    private final UUID lifecycleListener;
    private final RouteReferences references;

    private PolicyCatalog(HazelcastInstance instance, int maxOverrides) {
        this.instance = instance;
        this.maxOverrides = maxOverrides;
        boolean member = instance.getLocalEndpoint() instanceof Member;
        this.local = new CatalogCopy(member ? SeenPolicies.of(instance) : null);
        this.replicaId = instance.getLocalEndpoint().getUuid().toString();
        this.lifecycleListener = member ? null : instance.getLifecycleService().addLifecycleListener(e -> {
            if (e.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                Thread reload = new Thread(this::reloadQuietly, "gridlimit-catalog-reload");
                reload.setDaemon(true);
                reload.start();
            }
        });
        if (member) {
            connect();
        } else {
            reloadQuietly(); // a client still connecting loads when it connects
        }
        this.references = new RouteReferences(instance, replicaId);
    }

    /**
     * Starts the catalog of an instance: registers the listeners, then loads both maps (blocking: call at boot). A
     * client not yet connected loads them when it connects; until then the copy is empty.
     *
     * @param instance a running member or client, configured with {@link io.gridlimit.grid.GridLimitHazelcast}
     * @return the catalog; close it before the instance
     * @throws NullPointerException if {@code instance} is null
     */
    public static PolicyCatalog start(HazelcastInstance instance) {
        return start(instance, DEFAULT_MAX_OVERRIDES);
    }

    /**
     * Starts the catalog with a bound on the overrides.
     *
     * @param instance a running member or client, configured with {@link io.gridlimit.grid.GridLimitHazelcast}
     * @param maxOverrides most overrides, in [1, 10^8]
     * @return the catalog; close it before the instance
     * @throws IllegalArgumentException if {@code maxOverrides} is out of range
     */
    public static PolicyCatalog start(HazelcastInstance instance, int maxOverrides) {
        Objects.requireNonNull(instance, "instance");
        if (maxOverrides < 1 || maxOverrides > 100_000_000) {
            throw new IllegalArgumentException("maxOverrides must be in [1, 100000000], got " + maxOverrides);
        }
        return new PolicyCatalog(instance, maxOverrides);
    }

    // The maps are looked up on each use (Hazelcast caches the proxies): a client still connecting cannot create one.
    private IMap<String, PolicyRecord> policies() {
        return instance.getMap(POLICIES_MAP);
    }

    private IMap<String, String> overrides() {
        return instance.getMap(OVERRIDES_MAP);
    }

    /**
     * Runs a task after every later (re)connection of a client, once its copy is reloaded (on a thread of its own):
     * for what must reach the grid but could not at boot, such as seeding. Never run on a member.
     *
     * @param task a blocking task is fine
     */
    public void onReconnect(Runnable task) {
        onConnect.add(Objects.requireNonNull(task, "task"));
    }

    /** @return most overrides the catalog accepts */
    public int maxOverrides() {
        return maxOverrides;
    }

    private void reloadQuietly() {
        try {
            connect();
        } catch (RuntimeException e) {
            return; // offline: the next connection brings the copy up to date
        }
        for (Runnable task : onConnect) {
            try {
                task.run();
            } catch (RuntimeException e) {
                // the task reports its own failure; the next connection runs it again
            }
        }
    }

    /** Registers the listeners (once), then loads both maps. */
    private synchronized void connect() {
        if (policyListener == null) {
            policyListener = policies().addEntryListener(local, true);
        }
        if (overrideListener == null) {
            overrideListener = overrides().addEntryListener(localOverrides, true);
        }
        reload();
    }

    private void reload() {
        for (Map.Entry<String, PolicyRecord> e : policies().entrySet()) {
            local.apply(e.getValue());
        }
        localOverrides.reload(Map.copyOf(overrides()));
    }

    /**
     * Adds a listener called with every newer record this copy takes (on a Hazelcast event thread, or the thread
     * that made the change): for logging, metrics and derived views. Keep it short and non-blocking.
     *
     * @param listener the listener
     */
    public void onChange(Consumer<PolicyRecord> listener) {
        local.onChange(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Returns the live record of a policy from the local copy.
     *
     * @param name a policy name
     * @return the record, or empty when the catalog has no such policy (or deleted it)
     */
    public Optional<PolicyRecord> record(String name) {
        PolicyRecord r = local.get(name);
        return r != null && r.live() ? Optional.of(r) : Optional.empty();
    }

    /**
     * Returns the record of a name from the local copy, a deletion (tombstone) included.
     *
     * @param name a policy name
     * @return the record, or empty when the name was never in the catalog
     */
    public Optional<PolicyRecord> anyRecord(String name) {
        return Optional.ofNullable(local.get(name));
    }

    /** @return the live records of the local copy, by name */
    public List<PolicyRecord> records() {
        return local.live();
    }

    /**
     * The current policy of a name, from the local copy: one map read.
     *
     * @param name a policy name
     * @return the policy, or null when the catalog has none of that name
     */
    public Policy policy(String name) {
        PolicyRecord r = local.get(name);
        return r == null ? null : r.policy();
    }

    /**
     * The catalog version of a policy, when it is the catalog's current one for its name (local copy).
     *
     * @param policy a policy
     * @return the version, >= 1; 0 when the catalog holds another policy, a deletion or nothing under that name
     */
    public long versionOf(Policy policy) {
        return local.versionOf(policy);
    }

    /**
     * The override of a key under a policy, from the local copy: one map read.
     *
     * @param policyName the policy a rule names
     * @param key the grid key
     * @return the name of the policy that decides this key instead, or null
     */
    public String overrideFor(String policyName, String key) {
        return localOverrides.get(policyName, key);
    }

    /**
     * @param policyName a policy name
     * @return the overrides under that policy, key to the other policy's name (local copy)
     */
    public Map<String, String> overridesOf(String policyName) {
        return localOverrides.of(policyName);
    }

    /**
     * @param policyName a policy name
     * @return the override map keys whose target is that policy (local copy), as {@code <policy>|<key>}
     */
    public List<String> overridesTargeting(String policyName) {
        return localOverrides.targeting(policyName);
    }

    /** @return the number of overrides in the local copy */
    public int overrideCount() {
        return localOverrides.size();
    }

    /** What became of a change. */
    public enum Status {
        /** Written: a new version. */
        APPLIED,
        /**
         * Nothing to write: the same policy already, or (a seed) a record that stands: one of the same or a higher
         * generation, or one the admin API changed or deleted.
         */
        UNCHANGED,
        /** The expected version did not match the current one: nothing written. */
        CONFLICT,
        /** A deletion of a policy the catalog does not hold. */
        NOT_FOUND,
        /** A new policy name beyond {@link #MAX_POLICIES}: nothing written. */
        FULL
    }

    /**
     * The outcome of a change.
     *
     * @param status what became of it
     * @param before the record before, or null when the name was never in the catalog
     * @param after the record after (the current one when nothing was written), or null
     */
    public record Change(Status status, PolicyRecord before, PolicyRecord after) {
    }

    /** {@code expectedVersion} of {@link #put} and {@link #delete}: whatever the current version. */
    public static final long ANY_VERSION = CatalogUpdateProcessor.ANY;
    /** {@code expectedVersion} of {@link #put}: only when the catalog holds no live policy of that name. */
    public static final long NO_VERSION = CatalogUpdateProcessor.ABSENT;

    /**
     * Creates or replaces a policy (the admin API). The catalog owns it from now on: configuration no longer
     * changes it.
     *
     * @param policy the new policy
     * @param expectedVersion {@link #ANY_VERSION}, {@link #NO_VERSION}, or the version it must replace
     * @param changedBy the caller's identity, or null
     * @return the change; the local copy already holds its result; {@link Status#FULL} (nothing written) for a new
     *     name when the catalog holds {@link #MAX_POLICIES} names
     * @throws IllegalStateException if a member of the cluster does not read the catalog (a rolling upgrade)
     */
    public Change put(Policy policy, long expectedVersion, String changedBy) {
        if (local.fullFor(policy.name(), MAX_POLICIES)) {
            return new Change(Status.FULL, null, null);
        }
        return change(new CatalogUpdateProcessor(policy.name(), CatalogUpdateProcessor.Op.PUT, expectedVersion,
                changedBy, policy));
    }

    /**
     * Deletes a policy (a tombstone: the next creation continues its versions). The caller checks references
     * first ({@link #referencesTo}).
     *
     * @param name the policy name
     * @param expectedVersion {@link #ANY_VERSION} or the version it must delete
     * @param changedBy the caller's identity, or null
     * @return the change
     * @throws IllegalStateException if a member of the cluster does not read the catalog
     */
    public Change delete(String name, long expectedVersion, String changedBy) {
        return change(new CatalogUpdateProcessor(name, CatalogUpdateProcessor.Op.DELETE, expectedVersion, changedBy,
                null));
    }

    /**
     * Seeds a configured policy (docs/SPEC.md §11), decided on the owner of its record in one step: created with
     * {@code generation} when the catalog lacks it; changed when configuration seeded it with a lower generation
     * (whatever its parameters); otherwise left standing ({@link Status#UNCHANGED}): a record of the same or a
     * higher generation, or one the admin API changed or deleted. Compare {@link Change#after()} with the
     * configured policy to report a disagreement. While a member of the cluster does not read generations
     * ({@link #readsGenerations()} false: a rolling upgrade from a GridLimit before them), the seed carries none
     * and follows that version's rule: a record configuration seeded with generation 0 is changed when its
     * parameters differ, one of a higher generation never.
     *
     * @param policy the configured policy
     * @param generation this replica's configuration generation ({@code gridlimit.catalog.generation}), >= 0
     * @param changedBy the seeding replica, or null
     * @return the change
     * @throws IllegalArgumentException if {@code generation < 0}
     * @throws IllegalStateException if a member of the cluster does not read the catalog
     */
    public Change seed(Policy policy, long generation, String changedBy) {
        if (generation < 0) {
            throw new IllegalArgumentException("generation must be >= 0, got " + generation);
        }
        CatalogUpdateProcessor seed = new CatalogUpdateProcessor(policy.name(), CatalogUpdateProcessor.Op.SEED,
                CatalogUpdateProcessor.ANY, changedBy, policy);
        return change(readsGenerations() ? seed.withGeneration(generation) : seed);
    }

    /**
     * @return true when every member of the cluster reads configuration generations (member attribute
     *     {@code gridlimit.catalog-generations}, grid-core/docs/wire.md), so that a seed carries its generation
     */
    public boolean readsGenerations() {
        return CatalogSupport.generations(instance);
    }

    private Change change(CatalogUpdateProcessor processor) {
        requireSupport();
        CatalogUpdateProcessor.Result r = policies().executeOnKey(processor.name(), processor);
        local.apply(r.after());
        return new Change(Status.valueOf(r.status().name()), r.before(), r.after());
    }

    private void requireSupport() {
        if (!CatalogSupport.everyMember(instance)) {
            throw new IllegalStateException("a member of the cluster runs a GridLimit without the policy catalog: "
                    + "catalog changes are accepted once every member is upgraded (grid-core/docs/wire.md)");
        }
    }

    /** What an override change found. */
    public enum OverrideStatus {
        /** Written. */
        APPLIED,
        /** The expected current target did not match: nothing written. */
        CONFLICT,
        /** A removal of an override that does not exist. */
        NOT_FOUND,
        /** A new override beyond {@link #maxOverrides()}: nothing written. */
        FULL
    }

    /**
     * Sets the override of one key under a policy, atomically against the expected current target.
     *
     * @param policyName the policy a rule names
     * @param key the grid key
     * @param target the policy that decides the key instead
     * @param expectedTarget the current target it must replace, {@code ""} when there must be none, or null for
     *     whatever is there
     * @return what became of it; the local copy already holds the result
     */
    public OverrideStatus putOverride(String policyName, String key, String target, String expectedTarget) {
        requireSupport();
        String k = LocalOverrides.key(policyName, key);
        IMap<String, String> overrides = overrides();
        boolean exists = localOverrides.containsKey(k) || overrides.containsKey(k);
        if (!exists && overrides.size() >= maxOverrides) {
            return OverrideStatus.FULL;
        }
        boolean done;
        if (expectedTarget == null) {
            overrides.set(k, target);
            done = true;
        } else if (expectedTarget.isEmpty()) {
            done = overrides.putIfAbsent(k, target) == null;
        } else {
            done = overrides.replace(k, expectedTarget, target);
        }
        if (done) {
            localOverrides.put(k, target);
        }
        return done ? OverrideStatus.APPLIED : OverrideStatus.CONFLICT;
    }

    /**
     * Removes the override of one key.
     *
     * @param policyName the policy a rule names
     * @param key the grid key
     * @param expectedTarget the current target it must remove, or null for whatever is there
     * @return {@link OverrideStatus#APPLIED}, {@link OverrideStatus#CONFLICT} or {@link OverrideStatus#NOT_FOUND}
     */
    public OverrideStatus removeOverride(String policyName, String key, String expectedTarget) {
        requireSupport();
        String k = LocalOverrides.key(policyName, key);
        IMap<String, String> overrides = overrides();
        if (expectedTarget == null) {
            String removed = overrides.remove(k);
            localOverrides.remove(k);
            return removed == null ? OverrideStatus.NOT_FOUND : OverrideStatus.APPLIED;
        }
        boolean done = overrides.remove(k, expectedTarget);
        if (done) {
            localOverrides.remove(k);
            return OverrideStatus.APPLIED;
        }
        return overrides.containsKey(k) ? OverrideStatus.CONFLICT : OverrideStatus.NOT_FOUND;
    }

    /**
     * The current target of an override, read from the grid (not the local copy): for the admin API's answers.
     *
     * @param policyName the policy a rule names
     * @param key the grid key
     * @return the target, or null
     */
    public String readOverride(String policyName, String key) {
        String target = overrides().get(LocalOverrides.key(policyName, key));
        String k = LocalOverrides.key(policyName, key);
        if (target == null) {
            localOverrides.remove(k);
        } else {
            localOverrides.put(k, target);
        }
        return target;
    }

    /**
     * Registers what this replica's routes reference, and keeps the registration alive until {@link #close()}.
     *
     * @param referencesByPolicy per policy name, the routes (as their configuration paths) that name it
     */
    public void registerReferences(Map<String, ? extends Collection<String>> referencesByPolicy) {
        references.register(referencesByPolicy);
    }

    /**
     * The routes of live replicas that name a policy (read from the grid; blocking).
     *
     * @param policyName a policy name
     * @return one entry per route, {@code "<route> on replica <id>"}, sorted; empty when none
     */
    public List<String> referencesTo(String policyName) {
        return references.to(policyName);
    }

    /** @return this replica's id in {@link #REFERENCES_MAP}: its member or client UUID */
    public String replicaId() {
        return replicaId;
    }

    /**
     * Stops the listeners and the reference refresh, and removes this replica's references. Idempotent; the
     * instance keeps running.
     */
    @Override
    public void close() {
        references.stop();
        try {
            if (policyListener != null) {
                policies().removeEntryListener(policyListener);
            }
            if (overrideListener != null) {
                overrides().removeEntryListener(overrideListener);
            }
            if (lifecycleListener != null) {
                instance.getLifecycleService().removeLifecycleListener(lifecycleListener);
            }
            references.remove();
        } catch (RuntimeException e) {
            // the instance is shutting down: its listeners and entries go with it (references expire by TTL)
        }
    }
}
