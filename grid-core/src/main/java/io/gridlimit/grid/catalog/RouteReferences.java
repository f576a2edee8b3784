package io.gridlimit.grid.catalog;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.grid.catalog.PolicyCatalog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Internal to grid-core: not API; public for {@code PolicyCatalog}, whose part it is.
 *
 * <p>The replicas' route references of the policy catalog (docs/SPEC.md §11, "References"): which policies this
 * replica's routes name, in {@link PolicyCatalog#REFERENCES_MAP} under the replica's id (one line
 * {@code <policy>\t<route>} per route) with a TTL of {@link PolicyCatalog#REFERENCE_TTL_SECONDS} s refreshed every
 * third of it by a daemon thread, so that a deletion can be refused while any live replica names the policy.
 * Thread-safe.
 */
public final class RouteReferences {
    private final HazelcastInstance instance;
    private final String replicaId;
    private final ScheduledExecutorService refresher;
    private volatile String referencesValue;

    /**
     * Starts the refresh.
     *
     * @param instance the instance
     * @param replicaId this replica's id
     */
    public RouteReferences(HazelcastInstance instance, String replicaId) {
        this.instance = instance;
        this.replicaId = replicaId;
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gridlimit-catalog-references");
            t.setDaemon(true);
            return t;
        });
        long period = PolicyCatalog.REFERENCE_TTL_SECONDS / 3;
        refresher.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.SECONDS);
    }

    // looked up on each use (Hazelcast caches the proxies): a client still connecting cannot create one
    private IMap<String, String> references() {
        return instance.getMap(PolicyCatalog.REFERENCES_MAP);
    }

    /** Registers what this replica's routes reference: per policy name, the routes that name it. */
    public void register(Map<String, ? extends Collection<String>> referencesByPolicy) {
        StringBuilder b = new StringBuilder();
        referencesByPolicy.forEach((policy, routes) -> routes.forEach(route ->
                b.append(policy).append('\t').append(route).append('\n')));
        referencesValue = b.toString();
        refresh();
    }

    private void refresh() {
        String value = referencesValue;
        if (value == null) {
            return;
        }
        try {
            references().set(replicaId, value, PolicyCatalog.REFERENCE_TTL_SECONDS, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            // the grid is away: refreshed at the next tick
        }
    }

    /** @return the routes of live replicas that name a policy, {@code "<route> on replica <id>"}, sorted */
    public List<String> to(String policyName) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : references().entrySet()) {
            for (String line : e.getValue().split("\n")) {
                int tab = line.indexOf('\t');
                if (tab > 0 && line.substring(0, tab).equals(policyName)) {
                    out.add(line.substring(tab + 1) + " on replica " + e.getKey());
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** Stops the refresh. */
    public void stop() {
        refresher.shutdownNow();
    }

    /** Removes this replica's references from the grid, when it registered any (blocking; may throw). */
    public void remove() {
        if (referencesValue != null) {
            references().delete(replicaId);
        }
    }
}
