package io.gridlimit.micronaut.catalog;

import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.micronaut.core.annotation.Nullable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What an admin API does with the grid's policy catalog (docs/SPEC.md §11), in the library's and grid-core's api
 * types ({@link Policy}, {@link PolicyVersion}): read a policy's current version, list them, create or replace one
 * against the version the caller expects (compare-and-set), delete one, find what still names it, and read, set or
 * remove the override of one key. An application gets it from {@link PolicySource#admin()}, present while the
 * catalog is in use; it never needs grid-core's grid package.
 *
 * <p>Reads ({@link #records()}, {@link #record}, {@link #overridesOf}, {@link #overridesTo}) come from this replica's
 * local copy: no network round trip. {@link #readOverride} and {@link #referencesTo} read the grid, and every change
 * blocks on it: call them off the event loop. A change throws {@link IllegalStateException} while a member of the
 * cluster runs a GridLimit without the catalog (a rolling upgrade), its message saying so; other failures of the
 * grid are Hazelcast's runtime exceptions, and then nothing or all of the change was written. Thread-safe.
 */
public final class PolicyAdmin {
    /** {@code expectedVersion} of {@link #put} and {@link #delete}: whatever the current version. */
    public static final long ANY_VERSION = PolicyCatalog.ANY_VERSION;
    /** {@code expectedVersion} of {@link #put}: only when the catalog holds no live policy of that name. */
    public static final long NO_VERSION = PolicyCatalog.NO_VERSION;
    /** Most policy names the catalog holds, deletions included: a new name beyond it is {@link Status#FULL}. */
    public static final int MAX_POLICIES = PolicyCatalog.MAX_POLICIES;

    private final PolicyCatalog catalog;

    /** @param catalog the catalog in use */
    PolicyAdmin(PolicyCatalog catalog) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
    }

    /** What became of a change of a policy. */
    public enum Status {
        /** Written: a new version. */
        APPLIED,
        /** Nothing to write: the catalog already holds that policy. */
        UNCHANGED,
        /** The expected version is not the current one: nothing written. */
        CONFLICT,
        /** A deletion of a policy the catalog does not hold. */
        NOT_FOUND,
        /** A new policy name beyond {@link #MAX_POLICIES}: nothing written. */
        FULL
    }

    /**
     * The outcome of a change of a policy.
     *
     * @param status what became of it, never null
     * @param before the version before, or null when the name was never in the catalog (and for {@link Status#FULL})
     * @param after the version after (the current one when nothing was written; a tombstone after a deletion), or
     *     null when there is none (and for {@link Status#FULL})
     */
    public record Change(Status status, @Nullable PolicyVersion before, @Nullable PolicyVersion after) {
        /** @throws NullPointerException if {@code status} is null */
        public Change {
            Objects.requireNonNull(status, "status");
        }
    }

    /** What became of a change of an override. */
    public enum OverrideStatus {
        /** Written. */
        APPLIED,
        /** The expected current target is not the current one: nothing written. */
        CONFLICT,
        /** A removal of an override that does not exist. */
        NOT_FOUND,
        /** A new override beyond {@link #maxOverrides()}: nothing written. */
        FULL
    }

    /** @return the live policies' current versions (local copy), by name; never null */
    public List<PolicyVersion> records() {
        List<PolicyVersion> out = new ArrayList<>();
        for (PolicyRecord r : catalog.records()) {
            out.add(PolicyVersion.of(r));
        }
        return List.copyOf(out);
    }

    /**
     * @param name a policy name
     * @return its current version (local copy), or empty when the catalog has no such policy or deleted it
     */
    public Optional<PolicyVersion> record(String name) {
        return catalog.record(name).map(PolicyVersion::of);
    }

    /**
     * Creates or replaces a policy. The catalog owns it from now on: configuration no longer changes it.
     *
     * @param policy the new policy
     * @param expectedVersion {@link #ANY_VERSION}, {@link #NO_VERSION}, or the version (>= 1) it must replace
     * @param changedBy who makes the change (recorded and shown), or null
     * @return the change: {@link Status#APPLIED}, {@link Status#UNCHANGED}, {@link Status#CONFLICT} (nothing
     *     written), or {@link Status#FULL} for a new name when the catalog holds {@link #MAX_POLICIES} names; the
     *     local copy already holds its result
     * @throws IllegalStateException if a member of the cluster does not read the catalog (a rolling upgrade)
     */
    public Change put(Policy policy, long expectedVersion, @Nullable String changedBy) {
        return change(catalog.put(policy, expectedVersion, changedBy));
    }

    /**
     * Deletes a policy (a tombstone: a later creation continues its versions). Check what names it first
     * ({@link #referencesTo}, {@link #overridesTo}).
     *
     * @param name the policy name
     * @param expectedVersion {@link #ANY_VERSION} or the version (>= 1) it must delete
     * @param changedBy who makes the change, or null
     * @return the change: {@link Status#APPLIED}, {@link Status#CONFLICT} or {@link Status#NOT_FOUND}
     * @throws IllegalStateException if a member of the cluster does not read the catalog
     */
    public Change delete(String name, long expectedVersion, @Nullable String changedBy) {
        return change(catalog.delete(name, expectedVersion, changedBy));
    }

    private static Change change(PolicyCatalog.Change c) {
        Status status = switch (c.status()) {
            case APPLIED -> Status.APPLIED;
            case UNCHANGED -> Status.UNCHANGED;
            case CONFLICT -> Status.CONFLICT;
            case NOT_FOUND -> Status.NOT_FOUND;
            case FULL -> Status.FULL;
        };
        return new Change(status, PolicyVersion.of(c.before()), PolicyVersion.of(c.after()));
    }

    /**
     * The routes of live replicas that name a policy (read from the grid; blocking).
     *
     * @param name a policy name
     * @return one entry per route, {@code "<route> on replica <id>"}, sorted; empty when none
     */
    public List<String> referencesTo(String name) {
        return catalog.referencesTo(name);
    }

    /**
     * The overrides that send a key to a policy (local copy).
     *
     * @param target a policy name
     * @return per such override, the policy it is set under (a policy with several appears once per override);
     *     empty when none
     */
    public List<String> overridesTo(String target) {
        List<String> under = new ArrayList<>();
        for (String k : catalog.overridesTargeting(target)) {
            under.add(k.substring(0, k.indexOf('|'))); // <policy>|<key>: a policy name holds no '|'
        }
        return List.copyOf(under);
    }

    /**
     * @param name a policy name
     * @return the overrides under that policy, key to the other policy's name (local copy); never null
     */
    public Map<String, String> overridesOf(String name) {
        return catalog.overridesOf(name);
    }

    /**
     * The current override of one key, read from the grid (not the local copy; blocking).
     *
     * @param name the policy a rule names
     * @param key the grid key
     * @return the name of the policy that decides the key instead, or null when there is no override
     */
    public @Nullable String readOverride(String name, String key) {
        return catalog.readOverride(name, key);
    }

    /**
     * Sets the override of one key: the key's requests under {@code name} are decided by {@code target}, on their
     * own state. Atomic against the expected current target.
     *
     * @param name the policy a rule names
     * @param key the grid key
     * @param target the policy that decides the key instead
     * @param expectedTarget the current target it must replace, {@code ""} when there must be none, or null for
     *     whatever is there
     * @return {@link OverrideStatus#APPLIED}, {@link OverrideStatus#CONFLICT}, or {@link OverrideStatus#FULL} for a
     *     new override when the catalog holds {@link #maxOverrides()}
     * @throws IllegalStateException if a member of the cluster does not read the catalog
     */
    public OverrideStatus putOverride(String name, String key, String target, @Nullable String expectedTarget) {
        return overrideStatus(catalog.putOverride(name, key, target, expectedTarget));
    }

    /**
     * Removes the override of one key.
     *
     * @param name the policy a rule names
     * @param key the grid key
     * @param expectedTarget the current target it must remove, or null for whatever is there
     * @return {@link OverrideStatus#APPLIED}, {@link OverrideStatus#CONFLICT} or {@link OverrideStatus#NOT_FOUND}
     * @throws IllegalStateException if a member of the cluster does not read the catalog
     */
    public OverrideStatus removeOverride(String name, String key, @Nullable String expectedTarget) {
        return overrideStatus(catalog.removeOverride(name, key, expectedTarget));
    }

    private static OverrideStatus overrideStatus(PolicyCatalog.OverrideStatus s) {
        return switch (s) {
            case APPLIED -> OverrideStatus.APPLIED;
            case CONFLICT -> OverrideStatus.CONFLICT;
            case NOT_FOUND -> OverrideStatus.NOT_FOUND;
            case FULL -> OverrideStatus.FULL;
        };
    }

    /** @return the most overrides the catalog holds ({@code gridlimit.catalog.max-overrides}) */
    public int maxOverrides() {
        return catalog.maxOverrides();
    }
}
