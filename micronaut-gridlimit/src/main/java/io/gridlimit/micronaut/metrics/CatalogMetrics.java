package io.gridlimit.micronaut.metrics;

import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The policy catalog's meters (docs/SPEC.md §11); tags are policy and plan names and fixed words, never a key.
 * <ul>
 *   <li>{@value #POLICY_VERSION} (gauge; tag {@code policy}): the catalog version this replica applies (its local
 *   copy); NaN once the policy is deleted.</li>
 *   <li>{@value #POLICY_CHANGES} (counter; tags {@code policy}, {@code change}: created, updated, deleted,
 *   override_set, override_removed): changes made through this replica's admin API.</li>
 *   <li>{@value #PLAN_DEFAULTS} (counter; tags {@code plan}, {@code reason}: {@code absent} (no value, or a header
 *   from a peer that is not a trusted proxy) or {@code unknown} (a value the plan does not map)): requests a plan
 *   gave the route's default policy.</li>
 *   <li>{@value #POLICY_DISAGREEMENT} (gauge; tag {@code policy}, one per configured policy while the catalog is in
 *   use): 1 while this replica's configuration of the policy differs from the catalog's current record (which
 *   applies), else 0 ({@link io.gridlimit.micronaut.catalog.PolicyDisagreements}).</li>
 * </ul>
 * Thread-safe.
 */
@Singleton
public class CatalogMetrics {
    /** The catalog version each replica applies, by policy. */
    public static final String POLICY_VERSION = "gridlimit.policy.version";
    /** Changes made through the admin API, by policy and change. */
    public static final String POLICY_CHANGES = "gridlimit.policy.changes";
    /** Requests a plan gave its route's default policy, by plan and reason. */
    public static final String PLAN_DEFAULTS = "gridlimit.plan.defaults";
    /** Whether this replica's configuration of a policy disagrees with the catalog, by policy. */
    public static final String POLICY_DISAGREEMENT = "gridlimit.policy.disagreement";

    private final MeterRegistry registry;
    private final Set<String> tracked = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();

    /** @param metrics GridLimit's meters (their registry) */
    public CatalogMetrics(GridLimitMetrics metrics) {
        this.registry = metrics.registry();
    }

    /**
     * Registers the version gauge of every policy of the catalog, now and as policies appear.
     *
     * @param catalog the catalog whose local copy the gauges read
     */
    public void track(PolicyCatalog catalog) {
        catalog.records().forEach(r -> gauge(catalog, r));
        catalog.onChange(r -> gauge(catalog, r));
    }

    private void gauge(PolicyCatalog catalog, PolicyRecord record) {
        String name = record.name();
        if (tracked.add(name)) {
            Gauge.builder(POLICY_VERSION, catalog, c -> c.record(name).map(r -> (double) r.version())
                            .orElse(Double.NaN))
                    .description("The policy catalog version this replica applies")
                    .tag("policy", name)
                    .register(registry);
        }
    }

    /**
     * Registers the disagreement gauge of one configured policy (once per name; a later call for the name is
     * ignored).
     *
     * @param policy the policy name
     * @param state what the gauge reads, held strongly by its owner (Micrometer keeps a weak reference)
     * @param value 1 while the policy disagrees, else 0
     * @param <T> the state's type
     */
    public <T> void disagreement(String policy, T state, ToDoubleFunction<T> value) {
        if (tracked.add(POLICY_DISAGREEMENT + '\0' + policy)) {
            Gauge.builder(POLICY_DISAGREEMENT, state, value)
                    .description("1 while this replica's configuration of the policy differs from the catalog's "
                            + "current record, which applies; else 0")
                    .tag("policy", policy)
                    .register(registry);
        }
    }

    /**
     * Counts one change made through the admin API.
     *
     * @param policy the policy name
     * @param change created, updated, deleted, override_set or override_removed
     */
    public void change(String policy, String change) {
        counters.computeIfAbsent(POLICY_CHANGES + '\0' + policy + '\0' + change, k -> Counter.builder(POLICY_CHANGES)
                .description("Policy catalog changes made through this replica's admin API")
                .tag("policy", policy).tag("change", change).register(registry)).increment();
    }

    /**
     * Counts one request a plan gave its route's default policy.
     *
     * @param plan the plan name
     * @param unknown true for a value the plan does not map, false for no (believable) value
     */
    public void planDefault(String plan, boolean unknown) {
        String reason = unknown ? "unknown" : "absent";
        counters.computeIfAbsent(PLAN_DEFAULTS + '\0' + plan + '\0' + reason, k -> Counter.builder(PLAN_DEFAULTS)
                .description("Requests a plan gave its route's default policy")
                .tag("plan", plan).tag("reason", reason).register(registry)).increment();
    }
}
