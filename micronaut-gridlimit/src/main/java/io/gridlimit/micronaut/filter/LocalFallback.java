package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.time.TimeSource;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code failure-mode: local} decides on (SPEC §5): each configured policy's share for this replica
 * ({@link LocalRateLimiter#share}, the quota divided by {@code gridlimit.local.expected-replicas}), decided on a
 * {@link LocalRateLimiter} bounded by {@code gridlimit.local.max-keys}. The clock is this replica's own (wall
 * clock in production), read once per decision; it is not the grid's cluster time, and local state never goes
 * back to the grid. Thread-safe.
 */
public final class LocalFallback {
    private final Map<String, Policy> shares;
    private final LocalRateLimiter limiter;

    /**
     * Builds the shares of the configured policies.
     *
     * @param policies the configured policies
     * @param settings {@code gridlimit.local.*}
     * @param clock this replica's clock, read once per local decision (epoch nanoseconds)
     * @throws NullPointerException if an argument is null
     */
    public LocalFallback(Collection<Policy> policies, LocalFallbackSettings settings, TimeSource clock) {
        Objects.requireNonNull(settings, "settings");
        Map<String, Policy> byName = new LinkedHashMap<>();
        for (Policy p : policies) {
            byName.put(p.name(), LocalRateLimiter.share(p, settings.expectedReplicas()));
        }
        this.shares = Map.copyOf(byName);
        this.limiter = new LocalRateLimiter(settings.maxKeys(), clock);
    }

    /**
     * @param policyName a configured policy's name
     * @return this replica's share of it, which local decisions use, or null when the policy is not configured
     */
    public Policy derived(String policyName) {
        return shares.get(policyName);
    }

    /**
     * Decides one request locally against this replica's share of the policy.
     *
     * @param policy the configured policy (its share is used)
     * @param key the grid key
     * @param cost the cost, in [1, 10^15]
     * @return the local decision, never null
     * @throws IllegalArgumentException if the policy is not one this fallback was built with, or the key or the
     *     cost is invalid
     */
    public Decision decide(Policy policy, String key, long cost) {
        Policy share = shares.get(policy.name());
        if (share == null) {
            throw new IllegalArgumentException("no local policy for '" + policy.name() + "'");
        }
        return limiter.tryAcquire(share, key, cost);
    }

    /** @return the number of (policy, key) states held now */
    public int size() {
        return limiter.size();
    }
}
