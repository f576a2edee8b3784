package io.gridlimit.micronaut.catalog;

import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.metrics.CatalogMetrics;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeds this replica's configured policies into the policy catalog and says where they disagree with it
 * (docs/SPEC.md §11, "Configuration and catalog").
 *
 * <p><b>Seeding.</b> Each configured policy is seeded with this replica's {@code gridlimit.catalog.generation}
 * ({@link PolicyCatalog#seed}: one step on the owner of the policy's record, which decides whether the record
 * changes). A record configuration seeded with a lower generation is changed (one INFO line); any other record
 * stands, and every replica, this one too, decides with it.
 *
 * <p><b>A disagreement</b> is a configured policy whose parameters differ from the catalog's current record (a
 * record of the same or a higher generation seeded with other parameters, or one the admin API changed or deleted).
 * It is reported three ways: a WARN naming the policy, the catalog's parameters with its version, origin and
 * generation, this replica's parameters and generation, and the remedy; the gauge
 * {@value CatalogMetrics#POLICY_DISAGREEMENT} (1 while the policy disagrees, else 0); and a readiness detail
 * ({@link #summary()}; readiness stays UP: a disagreeing replica still serves the cluster's limit). It is evaluated
 * at boot and again whenever the local copy takes a newer record, so a replica that a newer generation overtook says
 * so, and one that agrees again clears it (one INFO line). Each record version is warned about once. Thread-safe.
 */
@Singleton
public class PolicyDisagreements {
    private static final Logger LOG = LoggerFactory.getLogger(PolicyDisagreements.class);

    private final GridLimitConfig config;
    private final long generation;
    private final CatalogMetrics metrics;
    private volatile PolicyCatalog catalog;
    private volatile Set<String> routed = Set.of();
    /** The disagreeing policies, each with the record it differs from. */
    private final Map<String, PolicyRecord> disagreeing = new ConcurrentHashMap<>();
    /** Per policy, the catalog version last warned about; guarded by {@code this}. */
    private final Map<String, Long> warned = new HashMap<>();

    /**
     * @param config the checked configuration (its policies)
     * @param properties {@code gridlimit.catalog.*} (its generation)
     * @param metrics the catalog's meters
     */
    public PolicyDisagreements(GridLimitConfig config, CatalogProperties properties, CatalogMetrics metrics) {
        this.config = config;
        this.generation = properties.generation();
        this.metrics = metrics;
    }

    /**
     * Starts watching a catalog: registers the gauge of every configured policy and re-evaluates a policy whenever
     * the local copy takes a newer record of it. Call once, before {@link #seed()}.
     *
     * @param c the catalog in use
     * @param routedPolicies the policies this replica's routes, annotations and plans name
     */
    public void watch(PolicyCatalog c, Set<String> routedPolicies) {
        this.routed = Set.copyOf(routedPolicies);
        this.catalog = c;
        for (String name : config.policies().keySet()) {
            metrics.disagreement(name, this, d -> d.disagrees(name) ? 1 : 0);
        }
        c.onChange(r -> {
            if (config.policies().containsKey(r.name())) {
                evaluate(r.name());
            }
        });
    }

    /**
     * Seeds every configured policy into the watched catalog (blocking), logging what changed and what disagrees.
     *
     * @return false when a policy could not be seeded (the grid is not reachable yet: seed again once connected)
     */
    public boolean seed() {
        PolicyCatalog c = catalog;
        if (generation > 0 && !c.readsGenerations()) {
            LOG.warn("gridlimit.catalog.generation {} is not sent: a member of the cluster runs a GridLimit before "
                    + "configuration generations (a rolling upgrade, grid-core/docs/wire.md); until it has left, "
                    + "seeds follow that version's rule (a policy configuration seeded takes the last seed's "
                    + "parameters)", generation);
        }
        boolean all = true;
        String replica = "configuration of replica " + c.replicaId();
        for (Policy p : config.policies().values()) {
            try {
                PolicyCatalog.Change change = c.seed(p, generation, replica);
                PolicyRecord before = change.before();
                if (change.status() == PolicyCatalog.Status.APPLIED && before != null && before.live()) {
                    LOG.info("policy '{}': configuration generation {} changed it, catalog version {} (generation "
                            + "{}) -> {}: {}", p.name(), change.after().generation(), before.version(),
                            before.generation(), change.after().version(), p);
                }
            } catch (RuntimeException e) {
                all = false;
                LOG.warn("policy '{}' could not be seeded into the policy catalog ({}); this replica decides it "
                        + "with its configuration until the catalog holds it (seeded again once connected)",
                        p.name(), e.toString());
                continue;
            }
            evaluate(p.name());
        }
        return all;
    }

    /** Compares one configured policy with the local copy's current record; warns once per record version. */
    private synchronized void evaluate(String name) {
        Policy configured = config.policies().get(name);
        PolicyCatalog c = catalog;
        PolicyRecord current = c == null ? null : c.anyRecord(name).orElse(null);
        if (configured == null || current == null) {
            return; // nothing to compare with yet
        }
        if (current.live() && current.policy().equals(configured)) {
            warned.remove(name);
            if (disagreeing.remove(name) != null) {
                LOG.info("policy '{}': this replica's configuration agrees with the catalog again (version {})",
                        name, current.version());
            }
            return;
        }
        disagreeing.put(name, current);
        Long last = warned.put(name, current.version());
        if (last == null || last != current.version()) {
            LOG.warn(warning(configured, current));
        }
    }

    private String warning(Policy configured, PolicyRecord r) {
        String mine = "this replica's configuration (gridlimit.catalog.generation " + generation + "): "
                + configured + ". ";
        String head = "policy '" + r.name() + "' disagrees with the catalog: the catalog's version " + r.version()
                + " (" + origin(r) + ")";
        if (!r.live()) {
            return head + " holds no policy; " + mine + (routed.contains(r.name())
                    ? "This replica's routes name it: they and the decision API decide it with this replica's "
                    + "configuration, never unlimited, until the admin API puts it again"
                    : "Put it again through the admin API to use it");
        }
        head += " applies on every replica, this one too: " + r.policy() + "; " + mine;
        if (r.origin() == PolicyRecord.Origin.API) {
            return head + "The admin API owns the policy, configuration no longer changes it: change it through "
                    + "the admin API";
        }
        if (r.generation() >= generation) {
            return head + "Raise gridlimit.catalog.generation above " + r.generation() + " to apply this "
                    + "configuration, or change the policy through the admin API";
        }
        return head + "The catalog's generation is below this replica's (seeded while a member of the cluster did "
                + "not read generations, or kept by a split brain's merge): this replica applies its configuration "
                + "when it next starts; or change the policy through the admin API";
    }

    private static String origin(PolicyRecord r) {
        String by = r.changedBy() == null ? "" : ", by " + r.changedBy();
        if (r.origin() == PolicyRecord.Origin.API) {
            return (r.live() ? "changed" : "deleted") + " through the admin API" + by;
        }
        return "seeded by configuration generation " + r.generation() + by;
    }

    /**
     * @param name a policy name
     * @return true while this replica's configuration of the policy differs from the catalog's current record
     */
    public boolean disagrees(String name) {
        return disagreeing.containsKey(name);
    }

    /**
     * The disagreeing policies, for the readiness details.
     *
     * @return per policy name (sorted), one line: the catalog's version, origin and generation, and this replica's
     *     generation; empty when every configured policy agrees (or the catalog is not in use)
     */
    public Map<String, String> summary() {
        Map<String, String> out = new TreeMap<>();
        disagreeing.forEach((name, r) -> out.put(name, "the catalog's version " + r.version() + " ("
                + (r.origin() == PolicyRecord.Origin.API ? (r.live() ? "changed" : "deleted")
                + " through the admin API" : "configuration generation " + r.generation()) + ") "
                + (r.live() ? "applies" : "holds no policy") + "; this replica's configuration (generation "
                + generation + ") differs"));
        return out;
    }

    /** @return this replica's configuration generation ({@code gridlimit.catalog.generation}), >= 0 */
    public long generation() {
        return generation;
    }
}
