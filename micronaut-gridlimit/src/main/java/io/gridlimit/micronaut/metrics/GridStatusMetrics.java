package io.gridlimit.micronaut.metrics;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.PartitionService;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.grid.StateLoss;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Member-level grid meters (docs/SPEC.md §8-9). None carries a {@code policy} tag: they describe the member,
 * not a policy. Registered only when the application's limiter is the Hazelcast one (a replaced limiter has no
 * grid to describe).
 *
 * <ul>
 *   <li>{@value GridLimitMetrics#STATE_LOST} (function counter, no base unit, so Prometheus shows
 *       {@code gridlimit_state_lost_total}; tag {@code reason}): {@code evicted} = {@link StateLoss#evictedNotFresh()}
 *       (states evicted at the per-member bound before they were fresh), {@code partition_lost} =
 *       {@link StateLoss#entriesLostWithPartitions()} (an estimate, see there). Read from grid-core's
 *       {@link StateLoss} of the embedded member; on a Hazelcast client (which holds no state) not registered.
 *       Monotonic from member start (SPEC §8).</li>
 *   <li>{@value GridLimitMetrics#GRID_MEMBERS} (gauge): members of the cluster as this instance sees them;
 *       0 once the instance is no longer running; NaN before the first refresh.</li>
 *   <li>{@value GridLimitMetrics#LOCAL_EXPECTED_REPLICAS} (gauge): {@code gridlimit.local.expected-replicas}, to
 *       compare with {@value GridLimitMetrics#GRID_MEMBERS} (docs/SPEC.md §5). On an embedded member under
 *       {@code failure-mode: local}, each refresh that finds the member count changed to more than it logs a WARN
 *       ({@link ReplicaCountCheck}); a client sees the members, not the other clients, so it is not checked
 *       there.</li>
 *   <li>{@value GridLimitMetrics#GRID_MEMBER_SAFE} (gauge, 1/0): {@link PartitionService#isLocalMemberSafe()};
 *       0 once the instance is no longer running; NaN on a client (no partition service) and before the first
 *       refresh.</li>
 *   <li>{@value GridLimitMetrics#GRID_CLUSTER_SAFE} (gauge, 1/0): {@link PartitionService#isClusterSafe()}; as above.
 *       </li>
 * </ul>
 *
 * <p>The gauges read fields that a daemon thread ({@code gridlimit-grid-status}) refreshes every
 * {@link #REFRESH_INTERVAL_SECONDS} seconds, starting when the meters are bound: the safety checks ask other
 * members and may wait, so a scrape never calls the grid and never runs on the event loop. Thread-safe.
 */
@Singleton
public class GridStatusMetrics implements MeterBinder, AutoCloseable {
    /** Seconds between two refreshes of the member and safety gauges. */
    public static final long REFRESH_INTERVAL_SECONDS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(GridStatusMetrics.class);

    private final @Nullable HazelcastInstance instance;
    private final @Nullable StateLoss stateLoss;
    private final boolean member;
    private final int expectedReplicas;
    private final ReplicaCountCheck replicas;
    private volatile double members = Double.NaN;
    private volatile double memberSafe = Double.NaN;
    private volatile double clusterSafe = Double.NaN;
    private ScheduledExecutorService refresher;

    /**
     * @param limiter the application's rate limiter; meters are bound only when it has {@link GridOperations}
     * @param config the checked configuration: {@code failure-mode} and {@code gridlimit.local.expected-replicas}
     */
    public GridStatusMetrics(RateLimiter limiter, GridLimitConfig config) {
        this.instance = GridOperations.of(limiter).map(GridOperations::instance).orElse(null);
        this.member = instance != null && instance.getLocalEndpoint() instanceof Member;
        this.expectedReplicas = config.local().expectedReplicas();
        this.replicas = new ReplicaCountCheck(expectedReplicas,
                member && config.failureMode() == FailureMode.LOCAL);
        StateLoss loss = null;
        if (member) {
            try {
                loss = StateLoss.of(instance);
            } catch (RuntimeException e) {
                LOG.warn("no {} for this member: {}", GridLimitMetrics.STATE_LOST, e.toString());
            }
        }
        this.stateLoss = loss;
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (instance == null) {
            return;
        }
        if (stateLoss != null) {
            StateLoss loss = stateLoss;
            FunctionCounter.builder(GridLimitMetrics.STATE_LOST, loss, StateLoss::evictedNotFresh)
                    .description("Limiter states this member lost: evicted before fresh, or lost with a partition")
                    .tag("reason", "evicted").register(registry);
            FunctionCounter.builder(GridLimitMetrics.STATE_LOST, loss, StateLoss::entriesLostWithPartitions)
                    .description("Limiter states this member lost: evicted before fresh, or lost with a partition")
                    .tag("reason", "partition_lost").register(registry);
        }
        Gauge.builder(GridLimitMetrics.GRID_MEMBERS, this, s -> s.members)
                .description("Members of the Hazelcast cluster as this instance sees them").register(registry);
        Gauge.builder(GridLimitMetrics.LOCAL_EXPECTED_REPLICAS, this, s -> s.expectedReplicas)
                .description("gridlimit.local.expected-replicas: the replicas failure-mode local divides quotas by")
                .register(registry);
        Gauge.builder(GridLimitMetrics.GRID_MEMBER_SAFE, this, s -> s.memberSafe)
                .description("1 when every partition this member owns has its backups in sync, else 0")
                .register(registry);
        Gauge.builder(GridLimitMetrics.GRID_CLUSTER_SAFE, this, s -> s.clusterSafe)
                .description("1 when the cluster is safe (no migration, every backup in sync), else 0")
                .register(registry);
        if (refresher == null) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "gridlimit-grid-status");
                t.setDaemon(true);
                return t;
            });
            refresher.scheduleWithFixedDelay(this::refresh, 0, REFRESH_INTERVAL_SECONDS, TimeUnit.SECONDS);
        }
    }

    /**
     * Reads the cluster's member count and safety now, on the calling thread (which may wait on the grid: never
     * call it on the event loop). The scheduled refresh calls it; tests call it to read exact values.
     */
    public void refresh() {
        HazelcastInstance i = instance;
        if (i == null) {
            return;
        }
        try {
            if (!i.getLifecycleService().isRunning()) {
                members = 0;
                memberSafe = member ? 0 : Double.NaN;
                clusterSafe = memberSafe;
                return;
            }
            int count = i.getCluster().getMembers().size();
            members = count;
            replicas.observe(count);
            if (member) {
                PartitionService partitions = i.getPartitionService();
                memberSafe = partitions.isLocalMemberSafe() ? 1 : 0;
                clusterSafe = partitions.isClusterSafe() ? 1 : 0;
            }
        } catch (RuntimeException e) {
            // the instance stopped while we asked (HazelcastInstanceNotActiveException) or the grid failed
            members = 0;
            memberSafe = member ? 0 : Double.NaN;
            clusterSafe = memberSafe;
            LOG.debug("grid status refresh failed: {}", e.toString());
        }
    }

    /** Stops the refresh thread. */
    @Override
    @PreDestroy
    public synchronized void close() {
        if (refresher != null) {
            refresher.shutdownNow();
            refresher = null;
        }
    }
}
