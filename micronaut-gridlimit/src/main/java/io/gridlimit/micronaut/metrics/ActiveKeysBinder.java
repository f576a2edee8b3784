package io.gridlimit.micronaut.metrics;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.inject.Singleton;

/**
 * Registers the {@value GridLimitMetrics#ACTIVE_KEYS} gauge per configured policy: the keys of
 * {@code gridlimit.<policy>} this member owns (Hazelcast local map statistics; the cluster total is the sum over
 * members, so nothing is counted twice). Reads NaN on a Hazelcast client, which owns no keys, and when the
 * limiter has no grid operations or is closed.
 */
@Singleton
public class ActiveKeysBinder implements MeterBinder {
    /** The limiter's grid operations, or null when it has none. */
    private final GridOperations grid;
    private final PolicyRegistry policies;

    /**
     * @param limiter the application's rate limiter
     * @param policies the configured policies
     */
    public ActiveKeysBinder(RateLimiter limiter, PolicyRegistry policies) {
        this.grid = GridOperations.of(limiter).orElse(null);
        this.policies = policies;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Policy policy : policies.all()) {
            String name = policy.name();
            Gauge.builder(GridLimitMetrics.ACTIVE_KEYS, this, b -> b.owned(name))
                    .description("Keys of a policy held by this member")
                    .tag("policy", name)
                    .register(registry);
        }
    }

    private double owned(String policy) {
        if (grid != null) {
            try {
                return grid.localOwnedKeyCount(policy).stream().mapToDouble(v -> v).findFirst().orElse(Double.NaN);
            } catch (RuntimeException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }
}
