package io.gridlimit.micronaut.health;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.micronaut.catalog.PolicyDisagreements;
import io.gridlimit.micronaut.grid.GridConnection;
import io.micronaut.context.BeanProvider;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.micronaut.scheduling.TaskExecutors;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import org.reactivestreams.Publisher;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * Readiness of the grid (SPEC §9), part of {@code /health/readiness} only ({@link Readiness}): UP when the
 * Hazelcast instance is running and, for an embedded member, the cluster is safe (no partition migrating or
 * missing a backup); for the application's client, while it is connected ({@link GridConnection}, from its
 * lifecycle events: its member list stays stale for a while after the connection drops); for another client, when
 * it sees at least one member. {@code /health/liveness} never includes it.
 *
 * <p>Its details also hold {@value #DISAGREEMENTS}: the configured policies whose parameters differ from the
 * policy catalog's record (docs/SPEC.md §11; {@link PolicyDisagreements#summary()}), empty when none. A
 * disagreement leaves readiness as it is: the replica decides with the catalog's record like every other one.
 * Checked on the blocking executor, never on the event loop. Thread-safe.
 */
@Singleton
@Readiness
public class GridReadinessIndicator implements HealthIndicator {
    /** The name of this indicator in health responses. */
    public static final String NAME = "gridlimit-grid";
    /** The detail listing the policies this replica's configuration disagrees with the catalog about. */
    public static final String DISAGREEMENTS = "policyDisagreements";

    private final BeanProvider<HazelcastInstance> instance;
    private final ExecutorService blocking;
    private final GridConnection connection;
    private final PolicyDisagreements disagreements;

    /**
     * @param instance the Hazelcast instance, resolved on the first check (on the blocking executor)
     * @param blocking Micronaut's blocking executor
     * @param connection the application client's connection state
     * @param disagreements the configured policies that disagree with the catalog
     */
    public GridReadinessIndicator(BeanProvider<HazelcastInstance> instance,
                                  @Named(TaskExecutors.BLOCKING) ExecutorService blocking,
                                  GridConnection connection, PolicyDisagreements disagreements) {
        this.instance = instance;
        this.blocking = blocking;
        this.connection = connection;
        this.disagreements = disagreements;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        return Publishers.fromCompletableFuture(CompletableFuture.supplyAsync(this::check, blocking));
    }

    /** @return the grid's health, never null */
    HealthResult check() {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean up;
        try {
            HazelcastInstance instance = this.instance.get();
            boolean running = instance.getLifecycleService().isRunning();
            details.put("running", running);
            int members = running ? instance.getCluster().getMembers().size() : 0;
            details.put("members", members);
            boolean safe;
            try {
                safe = running && instance.getPartitionService().isClusterSafe();
                details.put("clusterSafe", safe);
            } catch (UnsupportedOperationException client) {
                if (connection.tracked()) {
                    boolean connected = connection.connected();
                    details.put("connected", connected);
                    safe = running && connected;
                } else {
                    safe = running && members > 0;
                }
            }
            up = running && safe;
        } catch (RuntimeException e) {
            details.put("error", e.getClass().getSimpleName());
            up = false;
        }
        details.put(DISAGREEMENTS, disagreements.summary());
        return HealthResult.builder(NAME, up ? HealthStatus.UP : HealthStatus.DOWN).details(details).build();
    }
}
