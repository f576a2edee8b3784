package io.gridlimit.local;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.algorithm.SettleOutcome;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.internal.Preconditions;
import io.gridlimit.time.TimeSource;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link RateLimiter} in this JVM only: the same pure algorithms as the grid ({@link RateLimitAlgorithms#apply})
 * on an in-process map, with no Hazelcast and no framework. It is what {@code failure-mode: local} decides on when
 * the grid does not answer (SPEC §5), usually with each policy's quota {@linkplain #share divided} among the
 * replicas (rounding down), and it serves as a limiter of its own wherever one process is the whole deployment.
 *
 * <p><b>State.</b> One entry per (policy name, key), updated atomically with {@link ConcurrentHashMap#compute} at
 * one reading of the injected {@link TimeSource} per decision; a state written under other parameters of the same
 * policy name is read as the algorithms read it after a policy change (SPEC §4). An entry is dropped once its
 * outcome's TTL has passed (the state is then equal to a fresh one).
 *
 * <p><b>Bounded keys.</b> The map holds at most about {@code maxKeys} entries: a new key arriving when it is full
 * first purges the expired entries (at most once per second of the clock, or at once after a step back), then, if
 * still full, drops arbitrary entries (those keys restart fresh: an approximation that may over-admit them, stated
 * in the README). Memory is therefore bounded whatever the traffic.
 *
 * <p>{@link #tryAcquireAsync} decides on the calling thread and returns a completed stage. Thread-safe.
 */
public final class LocalRateLimiter implements RateLimiter {
    private static final long PURGE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The source of a reserved state's id and secret (docs/SPEC.md §10); thread-safe. */
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private final ConcurrentHashMap<LocalKey, Entry> states = new ConcurrentHashMap<>();
    private final int maxKeys;
    private final TimeSource clock;
    private volatile long nextPurgeNanos = Long.MIN_VALUE;

    /**
     * Creates an empty limiter.
     *
     * @param maxKeys the most (policy, key) states held, in [1, {@link Integer#MAX_VALUE}]
     * @param clock the clock read once per decision (epoch nanoseconds in production: {@code SystemTimeSource})
     * @throws IllegalArgumentException if {@code maxKeys < 1}
     * @throws NullPointerException if {@code clock} is null
     */
    public LocalRateLimiter(int maxKeys, TimeSource clock) {
        this.maxKeys = (int) Preconditions.checkRange("maxKeys", maxKeys, 1, Integer.MAX_VALUE);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Divides a policy's quota and refill rate by a number of replicas, rounding down, so that {@code n} replicas
     * deciding on their own never admit together more than the policy itself (docs/SPEC.md §5). For {@code n}
     * replicas:
     * <ul>
     *   <li>capacity (token bucket, GCRA) and limit (windows): {@code floor(q / n)};</li>
     *   <li>refill rate {@code R/P} (token bucket, GCRA): exactly {@code R/(P·n)} where the parameters allow it,
     *       else rounded down: {@code R/n} per {@code P} when {@code n} divides {@code R}; else {@code R} per
     *       {@code P·n} when {@code P·n} is at most 365 days (docs/SPEC.md §1); else
     *       {@code floor(R·365 d / (P·n))} per 365 days;</li>
     *   <li>periods, windows, calendars, band names and algorithms unchanged.</li>
     * </ul>
     * A band whose divided quota or refill is below one unit (a quota below {@code n}) has no share: the policy
     * then has none, and a replica must not admit it on its own (empty result). A request whose cost exceeds a
     * divided quota is denied by the share as one that can never pass (no retryAfter).
     *
     * @param policy a policy
     * @param replicas the divisor, >= 1
     * @return the derived policy, of the same name and band names, never above {@code policy} in quota or rate
     *     (equal to it for 1); empty when a band's share is below one unit
     * @throws IllegalArgumentException if {@code replicas < 1}
     * @throws NullPointerException if {@code policy} is null
     */
    public static Optional<Policy> share(Policy policy, int replicas) {
        Objects.requireNonNull(policy, "policy");
        Preconditions.checkRange("replicas", replicas, 1, Integer.MAX_VALUE);
        if (replicas == 1) {
            return Optional.of(policy);
        }
        Policy.Builder b = Policy.builder(policy.name());
        for (Band band : policy.bands()) {
            Band d = share(band, replicas);
            if (d == null) {
                return Optional.empty();
            }
            if (policy.isComposite()) {
                b.band(d);
            } else {
                b.single(d);
            }
        }
        return Optional.of(b.build());
    }

    /** @return the band's share, or null when its quota or refill divided by n is below one unit */
    private static Band share(Band band, long n) {
        Algorithm a = band.algorithm();
        long capacity = 0;
        long tokens = 0;
        long period = 0;
        long limit = 0;
        if (a.isBucket()) {
            capacity = band.capacity() / n;
            long r = band.refillTokens();
            long p = band.refillPeriodNanos();
            if (r % n == 0) {
                tokens = r / n;
                period = p;
            } else if (p <= Band.MAX_PERIOD_NANOS / n) {
                tokens = r;
                period = p * n;
            } else {
                // P·n > 365 d: floor(R·365 d / (P·n)) per 365 d, never above R/(P·n)
                tokens = BigInteger.valueOf(r).multiply(BigInteger.valueOf(Band.MAX_PERIOD_NANOS))
                        .divide(BigInteger.valueOf(p).multiply(BigInteger.valueOf(n))).longValueExact();
                period = Band.MAX_PERIOD_NANOS;
            }
            if (capacity == 0 || tokens == 0) {
                return null;
            }
        } else {
            limit = band.limit() / n;
            if (limit == 0) {
                return null;
            }
        }
        // windows and a calendar band's periods unchanged (SPEC §5, §14); Band.of takes what the algorithm takes
        return Band.of(band.name(), a, capacity, tokens, Duration.ofNanos(period), limit,
                Duration.ofNanos(band.windowNanos()), band.calendar());
    }

    /**
     * Decides one request against {@code policy} at one reading of this limiter's clock. {@inheritDoc}
     */
    @Override
    public Decision tryAcquire(Policy policy, String key, long cost) {
        return decide(policy, key, cost, Mode.DECIDE, cost);
    }

    /**
     * Takes a reservation at one reading of this limiter's clock (docs/SPEC.md §10), as the grid does. {@inheritDoc}
     */
    @Override
    public Decision reserve(Policy policy, String key, long cost) {
        return decide(policy, key, cost, Mode.RESERVE, cost);
    }

    /**
     * Takes a reservation on the calling thread, as {@link #reserve}; the stage is already complete (and
     * {@code executor} is not used). {@inheritDoc}
     */
    @Override
    public CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return CompletableFuture.completedFuture(reserve(policy, key, cost));
    }

    /** Takes a reservation on the calling thread; the stage is already complete. {@inheritDoc} */
    @Override
    public CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost) {
        return CompletableFuture.completedFuture(reserve(policy, key, cost));
    }

    /**
     * Counts one hit at one reading of this limiter's clock (docs/SPEC.md §3, "Every hit counts"), on the calling
     * thread: the stage is already complete ({@code executor} is not used). {@inheritDoc}
     */
    @Override
    public CompletionStage<Decision> hitAsync(Policy policy, String key, long cost, Executor executor) {
        return CompletableFuture.completedFuture(hit(policy, key, cost));
    }

    /**
     * {@link #hitAsync}, as a plain call.
     *
     * @param policy a single fixed-window policy
     * @param key the key
     * @param cost the hit's cost, in [0, 10^15]
     * @return the decision
     * @throws IllegalArgumentException if the key or cost is invalid, or the policy is not a single fixed window
     * @throws NullPointerException if {@code policy} or {@code key} is null
     */
    public Decision hit(Policy policy, String key, long cost) {
        Objects.requireNonNull(policy, "policy");
        RateLimitAlgorithms.checkHit(policy, cost);
        return decide(policy, key, Math.max(1, cost), Mode.HIT, cost);
    }

    /**
     * Settles a reservation this limiter took, at one reading of its clock (docs/SPEC.md §10). A reservation of
     * another limiter (the grid's) is unknown here. {@inheritDoc}
     */
    @Override
    public Settlement settle(Policy policy, Reservation reservation, long actual) {
        RateLimiter.checkReservation(policy, reservation);
        RateLimiter.checkActual(actual);
        long now = clock.nowNanos();
        Settlement[] settlement = new Settlement[1];
        states.compute(new LocalKey(policy.name(), reservation.key()), (ignored, entry) -> {
            LimiterState state = entry == null || now >= entry.expiresAtNanos() ? null : entry.state();
            SettleOutcome outcome = RateLimitAlgorithms.settle(state, policy, reservation.key(), reservation, actual,
                    now);
            settlement[0] = outcome.settlement();
            if (outcome.write()) {
                long ttl = outcome.ttlNanos();
                return new Entry(outcome.state(), now > Long.MAX_VALUE - ttl ? Long.MAX_VALUE : now + ttl);
            }
            return state == null ? null : entry;
        });
        return settlement[0];
    }

    /** Settles on the calling thread, as {@link #settle}; the stage is already complete. {@inheritDoc} */
    @Override
    public CompletionStage<Settlement> settleAsync(Policy policy, Reservation reservation, long actual) {
        return CompletableFuture.completedFuture(settle(policy, reservation, actual));
    }

    /** Gives back on the calling thread (nothing here can fail to answer). {@inheritDoc} */
    @Override
    public CompletionStage<Settlement> giveBack(Policy policy, Reservation reservation) {
        return settleAsync(policy, reservation, 0);
    }

    /** What {@link #decide} does with the cost. */
    private enum Mode { DECIDE, RESERVE, HIT }

    /** {@code checked} is the cost to check (1 for a peek hit), {@code cost} the one decided. */
    private Decision decide(Policy policy, String key, long checked, Mode mode, long cost) {
        Objects.requireNonNull(policy, "policy");
        RateLimiter.checkKey(key);
        RateLimiter.checkCost(checked);
        long now = clock.nowNanos();
        LocalKey k = new LocalKey(policy.name(), key);
        if (states.size() >= maxKeys && !states.containsKey(k)) {
            makeRoom(now);
        }
        Decision[] decision = new Decision[1];
        states.compute(k, (ignored, entry) -> {
            LimiterState state = entry == null || now >= entry.expiresAtNanos() ? null : entry.state();
            Outcome outcome = switch (mode) {
                case RESERVE -> RateLimitAlgorithms.reserve(state, policy, key, cost, now, RANDOM);
                case HIT -> RateLimitAlgorithms.hit(state, policy, cost, now);
                case DECIDE -> RateLimitAlgorithms.apply(state, policy, cost, now);
            };
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

    /**
     * Decides on the calling thread, as {@link #tryAcquire}; the stage is already complete. {@inheritDoc}
     */
    @Override
    public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
        return CompletableFuture.completedFuture(tryAcquire(policy, key, cost));
    }

    /** @return the number of (policy, key) states held now, at most about {@code maxKeys} */
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
