package io.gridlimit.micronaut.filter;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.time.TimeSource;
import java.time.Duration;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The local approximation of {@code failure-mode: local} (SPEC §5, issue 4 §3): when the grid does not answer
 * within {@code grid-timeout} (or fails), this replica decides on its own, with the same pure algorithms
 * ({@link RateLimitAlgorithms#apply}) on an in-process map, each band's quota divided by
 * {@code gridlimit.local.expected-replicas} so that the replicas together admit about the configured quota.
 *
 * <p>Derived policies (built once, at construction), for {@code n} expected replicas:
 * <ul>
 *   <li>capacity (token bucket, GCRA) and limit (windows): {@code ceil(q / n)}, so at least 1;</li>
 *   <li>refill rate {@code R/P} (token bucket, GCRA): divided exactly where the parameters allow it, else rounded
 *       up: {@code R/n} per {@code P} when {@code n} divides {@code R}; else {@code R} per {@code P·n} when
 *       {@code P·n} is at most 365 days (SPEC §1); else {@code ceil(R/n)} per {@code P};</li>
 *   <li>periods, windows, band names and algorithms unchanged.</li>
 * </ul>
 * A request whose cost exceeds a divided quota is denied locally as one that can never pass (no retryAfter).
 *
 * <p>State: one entry per (policy, key), updated atomically with {@link ConcurrentHashMap#compute}; an entry is
 * dropped once its outcome's TTL has passed (the state is then equal to a fresh one). The map holds at most about
 * {@code gridlimit.local.max-keys} entries: a new key arriving when it is full first purges the expired entries (at
 * most once per second of the local clock), then, if still full, drops arbitrary entries (those keys restart fresh
 * here: an approximation, said so in the README). The clock is this replica's own (wall clock in production,
 * {@code SystemTimeSource}), read once per decision; it is not the grid's cluster time, and local state never goes
 * back to the grid. Thread-safe.
 */
public final class LocalFallback {
    private static final long PURGE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, Policy> derived;
    private final ConcurrentHashMap<LocalKey, Entry> states = new ConcurrentHashMap<>();
    private final int maxKeys;
    private final TimeSource clock;
    private volatile long nextPurgeNanos = Long.MIN_VALUE;

    /**
     * Builds the derived policies.
     *
     * @param policies the configured policies
     * @param settings {@code gridlimit.local.*}
     * @param clock this replica's clock, read once per local decision (epoch nanoseconds)
     * @throws NullPointerException if an argument is null
     */
    public LocalFallback(Collection<Policy> policies, LocalFallbackSettings settings, TimeSource clock) {
        Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxKeys = settings.maxKeys();
        Map<String, Policy> byName = new LinkedHashMap<>();
        for (Policy p : policies) {
            byName.put(p.name(), divide(p, settings.expectedReplicas()));
        }
        this.derived = Map.copyOf(byName);
    }

    /**
     * Divides a policy's quota and refill rate by the expected number of replicas (see the class comment).
     *
     * @param policy a policy
     * @param replicas the divisor, >= 1
     * @return the derived policy, of the same name and band names
     * @throws IllegalArgumentException if {@code replicas < 1}
     */
    public static Policy divide(Policy policy, int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1, got " + replicas);
        }
        Policy.Builder b = Policy.builder(policy.name());
        for (Band band : policy.bands()) {
            Band d = divide(band, replicas);
            if (policy.isComposite()) {
                b.band(d);
            } else {
                b.single(d);
            }
        }
        return b.build();
    }

    private static Band divide(Band band, long n) {
        Algorithm a = band.algorithm();
        if (a == Algorithm.TOKEN_BUCKET || a == Algorithm.GCRA) {
            long capacity = ceilDiv(band.capacity(), n);
            long r = band.refillTokens();
            long p = band.refillPeriodNanos();
            long tokens;
            long period;
            if (r % n == 0) {
                tokens = r / n;
                period = p;
            } else if (p <= Band.MAX_PERIOD_NANOS / n) {
                tokens = r;
                period = p * n;
            } else {
                tokens = ceilDiv(r, n);
                period = p;
            }
            Duration refillPeriod = Duration.ofNanos(period);
            return a == Algorithm.TOKEN_BUCKET ? Band.tokenBucket(band.name(), capacity, tokens, refillPeriod)
                    : Band.gcra(band.name(), capacity, tokens, refillPeriod);
        }
        long limit = ceilDiv(band.limit(), n);
        Duration window = Duration.ofNanos(band.windowNanos());
        return switch (a) {
            case FIXED_WINDOW -> Band.fixedWindow(band.name(), limit, window);
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(band.name(), limit, window);
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(band.name(), limit, window);
            default -> throw new IllegalStateException("unknown algorithm " + a);
        };
    }

    private static long ceilDiv(long x, long n) {
        return Math.max(1, -Math.floorDiv(-x, n));
    }

    /**
     * @param policyName a configured policy's name
     * @return the derived policy local decisions use, or null when the policy is not configured
     */
    public Policy derived(String policyName) {
        return derived.get(policyName);
    }

    /**
     * Decides one request locally against the derived policy, at one reading of the local clock.
     *
     * @param policy the configured policy (its derived form is used)
     * @param key the grid key
     * @param cost the cost, in [1, 10^15]
     * @return the local decision, never null
     * @throws IllegalArgumentException if the policy is not one this fallback was built with, or the cost is out
     *     of range
     */
    public Decision decide(Policy policy, String key, long cost) {
        Policy local = derived.get(policy.name());
        if (local == null) {
            throw new IllegalArgumentException("no local policy for '" + policy.name() + "'");
        }
        long now = clock.nowNanos();
        LocalKey k = new LocalKey(policy.name(), key);
        if (states.size() >= maxKeys && !states.containsKey(k)) {
            makeRoom(now);
        }
        Decision[] decision = new Decision[1];
        states.compute(k, (ignored, entry) -> {
            LimiterState state = entry == null || now >= entry.expiresAtNanos() ? null : entry.state();
            Outcome outcome = RateLimitAlgorithms.apply(state, local, cost, now);
            decision[0] = outcome.decision();
            if (outcome.write()) {
                long ttl = outcome.ttlNanos();
                long expiresAt = now > Long.MAX_VALUE - ttl ? Long.MAX_VALUE : now + ttl;
                return new Entry(outcome.state(), expiresAt);
            }
            return state == null ? null : entry;
        });
        return decision[0];
    }

    /** @return the number of (policy, key) states held now */
    public int size() {
        return states.size();
    }

    private void makeRoom(long now) {
        if (now >= nextPurgeNanos || now < nextPurgeNanos - PURGE_INTERVAL_NANOS) {
            nextPurgeNanos = now + PURGE_INTERVAL_NANOS;
            states.entrySet().removeIf(e -> now >= e.getValue().expiresAtNanos());
        }
        Iterator<LocalKey> it = states.keySet().iterator();
        while (states.size() >= maxKeys && it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    private record LocalKey(String policy, String key) {
    }

    private record Entry(LimiterState state, long expiresAtNanos) {
    }
}
