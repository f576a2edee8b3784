package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.time.TimeSource;
import io.micronaut.core.annotation.Nullable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code failure-mode: local} decides on (docs/SPEC.md §5): each policy's share for this replica
 * ({@link LocalRateLimiter#share}: the quota and refill rate divided by {@code gridlimit.local.expected-replicas},
 * rounded down), decided on a {@link LocalRateLimiter} bounded by {@code gridlimit.local.max-keys}. A policy whose
 * quota is below the number of replicas has no share: this replica does not decide it on its own
 * ({@link #decide} answers null, and the filter answers 503 as {@code closed} would). The clock is this replica's
 * own (wall clock in production), read once per decision; it is not the grid's cluster time, and local state
 * never goes back to the grid. Thread-safe.
 */
public final class LocalFallback {
    /** Most policies whose shares are remembered; the map is cleared beyond it (policies are few). */
    private static final int MAX_POLICIES = 10_000;

    private final ConcurrentHashMap<String, Share> shares = new ConcurrentHashMap<>();
    private final List<String> withoutShare;
    private final int replicas;
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
        this.replicas = settings.expectedReplicas();
        List<String> none = new ArrayList<>();
        for (Policy p : policies) {
            Share s = Share.of(p, replicas);
            shares.put(p.name(), s);
            if (s.share() == null) {
                none.add(p.name());
            }
        }
        this.withoutShare = List.copyOf(none);
        this.limiter = new LocalRateLimiter(settings.maxKeys(), clock);
    }

    /**
     * @param policyName a policy's name
     * @return this replica's share of it, which local decisions use; null when the policy has no share (a quota
     *     below {@code expected-replicas}) or has not been configured nor decided locally
     */
    public @Nullable Policy derived(String policyName) {
        Share s = shares.get(policyName);
        return s == null ? null : s.share();
    }

    /** @return the configured policies that have no share (decided by the grid only), in configuration order */
    public List<String> withoutShare() {
        return withoutShare;
    }

    /** @return {@code gridlimit.local.expected-replicas}, the divisor of every share */
    public int expectedReplicas() {
        return replicas;
    }

    /**
     * Decides one request locally against this replica's share of the policy. A policy not configured at
     * construction (or configured with other parameters under its name) gets its share computed now.
     *
     * @param policy the policy as the grid would decide it (its share is used)
     * @param key the grid key
     * @param cost the cost, in [1, 10^15]
     * @return the local decision, taken as a reservation of the share when admitted (so that an all-or-nothing
     *     request can give it back, docs/SPEC.md §10); null when the policy has no share, so this replica must not
     *     decide it alone
     * @throws IllegalArgumentException if the key or the cost is invalid
     */
    public @Nullable Decision decide(Policy policy, String key, long cost) {
        Share s = share(policy);
        return s.share() == null ? null : limiter.reserve(s.share(), key, cost);
    }

    /** The share of {@code policy}: computed now for one not configured at construction (or changed since). */
    private Share share(Policy policy) {
        Share s = shares.get(policy.name());
        if (s == null || !s.source().equals(policy)) {
            if (shares.size() >= MAX_POLICIES) {
                shares.clear();
            }
            s = Share.of(policy, replicas);
            shares.put(policy.name(), s);
        }
        return s;
    }

    /**
     * Counts one hit locally on this replica's share of the policy, as the grid counts it (docs/SPEC.md §3, "Every
     * hit counts"; the share of a fixed window is a fixed window of {@code floor(L / expected-replicas)}).
     *
     * @param policy the policy as the grid would count it, a single fixed window
     * @param key the grid key
     * @param cost the cost, in [0, 10^15] (0: a peek)
     * @return the local decision (no reservation); null when the policy has no share
     * @throws IllegalArgumentException if the key or the cost is invalid, or the policy is not a single fixed window
     */
    public @Nullable Decision hit(Policy policy, String key, long cost) {
        Policy share = share(policy).share();
        return share == null ? null : limiter.hit(share, key, cost);
    }

    /**
     * Gives back a local admission's reservation (docs/SPEC.md §10).
     *
     * @param policy the policy as configured
     * @param reservation the reservation of a decision {@link #decide} returned for it
     * @return the settlement, or null when the policy has no share any more (nothing to give back to)
     */
    public io.gridlimit.api.@Nullable Settlement giveBack(Policy policy, io.gridlimit.api.Reservation reservation) {
        Policy share = derived(policy.name());
        return share == null ? null : limiter.settle(share, reservation, 0);
    }

    /**
     * Settles a local admission's reservation to its actual cost (docs/SPEC.md §10).
     *
     * @param policy the policy as configured
     * @param reservation the reservation of a decision {@link #decide} returned for it
     * @param actual the actual cost, in [0, 10^15]
     * @return the settlement, or null when the policy has no share any more
     */
    public io.gridlimit.api.@Nullable Settlement settle(Policy policy, io.gridlimit.api.Reservation reservation,
                                                       long actual) {
        Policy share = derived(policy.name());
        return share == null ? null : limiter.settle(share, reservation, actual);
    }

    /** @return the number of (policy, key) states held now */
    public int size() {
        return limiter.size();
    }

    private record Share(Policy source, @Nullable Policy share) {
        static Share of(Policy policy, int replicas) {
            Optional<Policy> share = LocalRateLimiter.share(policy, replicas);
            return new Share(policy, share.orElse(null));
        }
    }
}
