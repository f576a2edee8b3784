package io.gridlimit.replay;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.micronaut.core.annotation.Nullable;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The second question of issue 24 §4: one policy alone on every request its routes match (no other rule, no
 * all-or-nothing), under each algorithm at the same quota, each compared request by request with the exact
 * sliding-window log. The same quota: a window policy's limit and window for the windows, and capacity = limit,
 * refill = limit per window for the token bucket and GCRA; a bucket policy's capacity, refill tokens and period for
 * the buckets, and limit = capacity per the time a full refill takes (capacity × period / refill tokens, rounded
 * up) for the windows. Each variant decides with grid-core's own {@link RateLimitAlgorithms#apply} (never a copy)
 * at the request's log time, on a plain map of its keys' states kept as {@link LocalRateLimiter} keeps them: a
 * state whose TTL has passed is read as absent (it is then equal to a fresh one), and no key is ever evicted. A
 * composite or calendar policy has no alternatives; a limit above {@link Band#MAX_LOG_LIMIT} has no exact reference.
 * Not thread-safe (a replay run decides it on {@link AlternativesThread}'s thread).
 */
public final class Alternatives {
    /** The algorithms compared, in report order. */
    public static final List<Algorithm> ALGORITHMS = List.of(Algorithm.SLIDING_WINDOW_LOG,
            Algorithm.SLIDING_WINDOW_COUNTER, Algorithm.FIXED_WINDOW, Algorithm.TOKEN_BUCKET, Algorithm.GCRA);

    private final List<Variant> variants = new ArrayList<>();
    private final Map<String, KeyStates> states = new HashMap<>();
    private final @Nullable String unavailable;
    private final @Nullable Variant exact;

    /**
     * @param policy the configured policy
     */
    public Alternatives(Policy policy) {
        String why = null;
        Band band = policy.bands().get(0);
        if (policy.isComposite()) {
            why = "a composite policy has no single quota to compare";
        } else if (band.algorithm() == Algorithm.CALENDAR) {
            why = "a calendar quota has no window of fixed length to compare";
        }
        Variant ref = null;
        if (why == null) {
            for (Algorithm a : ALGORITHMS) {
                Variant v = variant(policy.name(), band, a, variants.size());
                variants.add(v);
                if (a == Algorithm.SLIDING_WINDOW_LOG && v.policy != null) {
                    ref = v;
                }
            }
            if (ref == null) {
                why = "no exact reference: the sliding-window log holds at most " + Band.MAX_LOG_LIMIT
                        + " requests per window";
            }
        }
        this.unavailable = why;
        this.exact = ref;
    }

    private static Variant variant(String name, Band band, Algorithm a, int index) {
        long quota;
        long windowNanos;
        long tokens;
        long periodNanos;
        if (band.algorithm().isBucket()) {
            quota = band.capacity();
            tokens = band.refillTokens();
            periodNanos = band.refillPeriodNanos();
            BigInteger[] qr = BigInteger.valueOf(quota).multiply(BigInteger.valueOf(periodNanos))
                    .divideAndRemainder(BigInteger.valueOf(tokens));
            BigInteger w = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
            windowNanos = w.min(BigInteger.valueOf(Band.MAX_PERIOD_NANOS)).longValue();
        } else {
            quota = band.limit();
            windowNanos = band.windowNanos();
            tokens = quota;
            periodNanos = windowNanos;
        }
        try {
            Policy.Builder b = Policy.builder(name);
            Policy p = switch (a) {
                case SLIDING_WINDOW_LOG -> b.slidingWindowLog(quota, Duration.ofNanos(windowNanos)).build();
                case SLIDING_WINDOW_COUNTER -> b.slidingWindowCounter(quota, Duration.ofNanos(windowNanos)).build();
                case FIXED_WINDOW -> b.fixedWindow(quota, Duration.ofNanos(windowNanos)).build();
                case TOKEN_BUCKET -> b.tokenBucket(quota, tokens, Duration.ofNanos(periodNanos)).build();
                case GCRA -> b.gcra(quota, tokens, Duration.ofNanos(periodNanos)).build();
                case CALENDAR -> throw new IllegalStateException("calendar is not compared");
            };
            return new Variant(a, p, a == band.algorithm(), index, null);
        } catch (IllegalArgumentException e) {
            return new Variant(a, null, a == band.algorithm(), index, e.getMessage());
        }
    }

    /**
     * Decides one request under every variant.
     *
     * @param key the key the policy's rule resolved for the request
     * @param cost the rule's cost
     * @param now the request's log time, epoch nanoseconds, not earlier than the one decided before
     */
    public void decide(String key, long cost, long now) {
        if (unavailable != null) {
            return;
        }
        KeyStates k = states.get(key);
        if (k == null) {
            k = new KeyStates(variants.size());
            states.put(key, k);
        }
        boolean reference = exact.decide(k, now, cost);
        for (Variant v : variants) {
            if (v == exact || v.policy == null) {
                continue;
            }
            boolean allowed = v.decide(k, now, cost);
            if (allowed && !reference) {
                v.overAdmitted++;
            } else if (!allowed && reference) {
                v.overDenied++;
            }
        }
    }

    /** @return why there are no alternatives, or null when there are */
    public @Nullable String unavailable() {
        return unavailable;
    }

    /** @return the variants in {@link #ALGORITHMS} order; empty when {@link #unavailable()} */
    public List<Variant> variants() {
        return unavailable == null ? List.copyOf(variants) : List.of();
    }

    /**
     * One key's state under each variant (by {@link Variant#index}) and when each becomes equal to a fresh one (epoch
     * nanoseconds): one map lookup per request for all variants.
     */
    private static final class KeyStates {
        final LimiterState[] state;
        final long[] expiresAtNanos;

        KeyStates(int variants) {
            state = new LimiterState[variants];
            expiresAtNanos = new long[variants];
        }
    }

    /** One algorithm at the policy's quota, with its counts and its disagreement with the exact log. */
    public static final class Variant {
        private final Algorithm algorithm;
        private final @Nullable Policy policy;
        private final boolean configured;
        private final int index;
        private final @Nullable String problem;
        private long requests;
        private long admitted;
        private long overAdmitted;
        private long overDenied;

        Variant(Algorithm algorithm, @Nullable Policy policy, boolean configured, int index, @Nullable String problem) {
            this.algorithm = algorithm;
            this.policy = policy;
            this.configured = configured;
            this.index = index;
            this.problem = problem;
        }

        /** One decision, stored as {@code LocalRateLimiter#decide} stores it (TTL read as absent, no eviction). */
        boolean decide(KeyStates k, long now, long cost) {
            requests++;
            LimiterState state = now >= k.expiresAtNanos[index] ? null : k.state[index];
            Outcome outcome = RateLimitAlgorithms.apply(state, policy, cost, now);
            if (outcome.write()) {
                long ttl = outcome.ttlNanos();
                k.state[index] = outcome.state();
                k.expiresAtNanos[index] = now > Long.MAX_VALUE - ttl ? Long.MAX_VALUE : now + ttl;
            } else if (state == null) {
                k.state[index] = null; // expired: equal to a fresh one
            }
            boolean allowed = outcome.decision().allowed();
            if (allowed) {
                admitted++;
            }
            return allowed;
        }

        /** @return the algorithm */
        public Algorithm algorithm() {
            return algorithm;
        }

        /** @return the policy decided, or null when the quota cannot be expressed in this algorithm */
        public @Nullable Policy policy() {
            return policy;
        }

        /** @return true when this is the policy's own algorithm */
        public boolean configured() {
            return configured;
        }

        /** @return why the quota cannot be expressed in this algorithm, or null */
        public @Nullable String problem() {
            return problem;
        }

        /** @return requests decided */
        public long requests() {
            return requests;
        }

        /** @return requests admitted */
        public long admitted() {
            return admitted;
        }

        /** @return requests denied */
        public long denied() {
            return requests - admitted;
        }

        /** @return requests this variant admitted and the exact log denied */
        public long overAdmitted() {
            return overAdmitted;
        }

        /** @return requests this variant denied and the exact log admitted */
        public long overDenied() {
            return overDenied;
        }
    }
}
