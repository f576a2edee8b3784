package io.gridlimit.micronaut.metrics;

import io.gridlimit.micronaut.config.FailureMode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * GridLimit's Micrometer meters; every metric name lives here. Tags are the policy name and a fixed outcome or
 * reason, never a key. Without a {@link MeterRegistry} bean (metrics disabled) the meters go nowhere.
 * Thread-safe.
 *
 * <ul>
 *   <li>{@value #DECISIONS} (counter; tags {@code policy}; {@code outcome}: allowed, denied, shadow_denied,
 *       fallback, missing_key_rejected, missing_key_skipped; {@code mode}: {@code grid} for the grid's decisions,
 *       the failure mode that answered instead ({@code open}, {@code closed} or {@code local}) for a fallback,
 *       {@code none} for a missing key (nothing was asked); {@code source}: {@code filter} for the HTTP filter,
 *       {@code api} for the decision API. Every series carries all four tags, as Prometheus requires of one
 *       name)</li>
 *   <li>{@value #DECISION_LATENCY} (timer with a percentile histogram from 100 µs to 1 s, so
 *       {@code histogram_quantile} over {@code _bucket} gives p99 per policy; tag {@code policy}): from asking the
 *       grid to its answer or timeout</li>
 *   <li>{@value #GRID_ERRORS} (counter; tags {@code policy}, {@code reason}: timeout, failure)</li>
 *   <li>{@value #ACTIVE_KEYS} (gauge; tag {@code policy}): keys this member owns, see {@link ActiveKeysBinder}</li>
 *   <li>{@value #STATE_LOST}, {@value #GRID_MEMBERS}, {@value #LOCAL_EXPECTED_REPLICAS}, {@value #GRID_MEMBER_SAFE},
 *       {@value #GRID_CLUSTER_SAFE}:
 *       member-level meters without a policy tag, see {@link GridStatusMetrics}</li>
 *   <li>{@value #RESERVATIONS} (counter; tags {@code policy}, {@code source}), {@value #SETTLES} (counter; tags
 *       {@code policy}, {@code status}, {@code source}), {@value #GIVE_BACKS} (counter; tags {@code policy},
 *       {@code reason}: denied, failed, late; {@code result}: given-back, already-settled, lost), {@value #DEBTS} (counter; tag
 *       {@code policy}), {@value #DEBT_EXCESS} (counter,
 *       in cost units; tag {@code policy}): reservations and settles (docs/SPEC.md §10)</li>
 *   <li>{@value #HEADER_TIMEOUTS} (counter, no tags): slow clients cut off, see {@link #headerTimeouts()}</li>
 * </ul>
 */
@Singleton
public class GridLimitMetrics {
    /** Decisions taken by the HTTP filter and the decision API, by policy, outcome, mode and source. */
    public static final String DECISIONS = "gridlimit.decisions";
    /** Time from asking the grid to its answer (or the timeout), by policy. */
    public static final String DECISION_LATENCY = "gridlimit.decision.latency";
    /** Decisions the grid did not answer in time or failed, by policy and reason. */
    public static final String GRID_ERRORS = "gridlimit.grid.errors";
    /** Keys of a policy held by this member. */
    public static final String ACTIVE_KEYS = "gridlimit.active.keys";
    /** Limiter states this member lost (SPEC §8), by reason: evicted, partition_lost. */
    public static final String STATE_LOST = "gridlimit.state.lost";
    /** Members in the cluster as this instance sees it. */
    public static final String GRID_MEMBERS = "gridlimit.grid.members";
    /** {@code gridlimit.local.expected-replicas}, the divisor of failure-mode local's shares (SPEC §5). */
    public static final String LOCAL_EXPECTED_REPLICAS = "gridlimit.local.expected.replicas";
    /** 1 when this member's partitions all have their backups in sync, else 0. */
    public static final String GRID_MEMBER_SAFE = "gridlimit.grid.member.safe";
    /** 1 when the whole cluster is safe (no migration, every backup in sync), else 0. */
    public static final String GRID_CLUSTER_SAFE = "gridlimit.grid.cluster.safe";
    /** The {@code mode} tag value of decisions the grid gave. */
    public static final String MODE_GRID = "grid";
    /** Reservations handed to callers (docs/SPEC.md §10), by policy and source. */
    public static final String RESERVATIONS = "gridlimit.reservations";
    /** Settles by policy and status ({@code settled}, {@code already-settled}, {@code expired}, ...). */
    public static final String SETTLES = "gridlimit.settles";
    /**
     * Give-backs by policy, reason ({@code denied}: a later rule or check denied; {@code failed}: the grid failed;
     * {@code late}: an admission after its caller was answered) and result ({@code given-back}, {@code lost}).
     */
    public static final String GIVE_BACKS = "gridlimit.give.backs";
    /** Settles that left a band's balance below zero (a debt later requests repay), by policy. */
    public static final String DEBTS = "gridlimit.debts";
    /** Settles that charged beyond the band's maximum debt, by policy (the excess was not charged). */
    public static final String DEBT_EXCESS = "gridlimit.debt.excess";
    /**
     * Connections answered 408 and closed because a request's header section was not complete within
     * {@code gridlimit.http.header-timeout} (no tags; Prometheus {@code gridlimit_http_header_timeouts_total}).
     */
    public static final String HEADER_TIMEOUTS = "gridlimit.http.header.timeouts";
    /** The {@code mode} tag value of a missing key: neither the grid nor a failure mode was asked. */
    public static final String MODE_NONE = "none";
    /** Smallest bucket of the latency histogram: 100 µs. */
    public static final Duration LATENCY_HISTOGRAM_MIN = Duration.ofNanos(100_000);
    /** Largest bucket of the latency histogram: 1 s. */
    public static final Duration LATENCY_HISTOGRAM_MAX = Duration.ofSeconds(1);

    /** The {@code outcome} tag values of {@value #DECISIONS}. */
    public enum Outcome {
        /** Admitted. */
        ALLOWED,
        /** Denied (429). */
        DENIED,
        /** Would have been denied; the policy is in shadow mode, so admitted. */
        SHADOW_DENIED,
        /**
         * The grid failed or timed out and the failure mode answered (tag {@code mode}: open let the request
         * through, closed answered 503, local decided on this replica's approximation). Counted through
         * {@link #fallback(String, FailureMode)}.
         */
        FALLBACK,
        /** The rule's key is missing and {@code on-missing-key: reject} answered 400 ({@code mode=none}). */
        MISSING_KEY_REJECTED,
        /** The rule's key is missing and {@code on-missing-key: skip} dropped the rule ({@code mode=none}). */
        MISSING_KEY_SKIPPED;

        /** @return the tag value, e.g. {@code shadow_denied} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The {@code source} tag values of {@value #DECISIONS}: who decided. */
    public enum Source {
        /** The HTTP filter ({@code RateLimitFilter}). */
        FILTER,
        /** The decision API ({@code /v1/ratelimit/check}). */
        API,
        /** Envoy's rate limit service protocol ({@code ShouldRateLimit}, module gridlimit-envoy). */
        ENVOY;

        /** @return the tag value, {@code filter}, {@code api} or {@code envoy} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final int SOURCES = Source.values().length;
    private static final int OUTCOMES = Outcome.values().length;
    private static final int MODES = FailureMode.values().length;

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    /** The meters every request touches, per policy name: one map lookup, then an array slot. */
    private final ConcurrentHashMap<String, PolicyMeters> byPolicy = new ConcurrentHashMap<>();

    /** @param registry the application's registry, or null for none */
    public GridLimitMetrics(@Nullable MeterRegistry registry) {
        this.registry = registry == null ? new CompositeMeterRegistry() : registry;
    }

    /** @return the registry meters are written to (a no-op composite when the application has none) */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Counts one decision of the HTTP filter ({@code source=filter}).
     *
     * @param policy the policy name
     * @param outcome allowed, denied or shadow_denied ({@code mode=grid}), or a missing key ({@code mode=none})
     * @throws IllegalArgumentException for {@link Outcome#FALLBACK}, which {@link #fallback} counts with its mode
     */
    public void decision(String policy, Outcome outcome) {
        decision(Source.FILTER, policy, outcome);
    }

    /**
     * Counts one decision.
     *
     * @param source who decided
     * @param policy the policy name
     * @param outcome allowed, denied or shadow_denied ({@code mode=grid}), or a missing key ({@code mode=none})
     * @throws IllegalArgumentException for {@link Outcome#FALLBACK}, which {@link #fallback} counts with its mode
     */
    public void decision(Source source, String policy, Outcome outcome) {
        if (outcome == Outcome.FALLBACK) {
            throw new IllegalArgumentException("outcome FALLBACK needs its failure mode: call fallback(policy, mode)");
        }
        meters(policy).decision(source, outcome).increment();
    }

    /**
     * Counts one request of the HTTP filter that the failure mode answered ({@code source=filter}); see
     * {@link #fallback(Source, String, FailureMode)}.
     *
     * @param policy the policy name
     * @param mode the failure mode that answered
     */
    public void fallback(String policy, FailureMode mode) {
        fallback(Source.FILTER, policy, mode);
    }

    /**
     * Counts one request the failure mode answered because the grid failed or did not answer within
     * {@code grid-timeout} (SPEC §5): {@value #DECISIONS} with {@code outcome=fallback} and {@code mode} the failure
     * mode ({@code open}, {@code closed}, {@code local}).
     *
     * @param source who decided
     * @param policy the policy name
     * @param mode the failure mode that answered
     */
    public void fallback(Source source, String policy, FailureMode mode) {
        meters(policy).fallback(source, mode).increment();
    }

    private Counter decisionCounter(Source source, String policy, String outcome, String mode) {
        return Counter.builder(DECISIONS)
                .description("Rate-limit decisions by policy, outcome, mode (grid, the failure mode or none)"
                        + " and source (filter or api)")
                .tag("policy", policy).tag("outcome", outcome).tag("mode", mode)
                .tag("source", source.tag()).register(registry);
    }

    private PolicyMeters meters(String policy) {
        PolicyMeters m = byPolicy.get(policy);
        return m != null ? m : byPolicy.computeIfAbsent(policy, PolicyMeters::new);
    }

    /**
     * One policy's per-request meters, each registered the first time it is used and then read from an array slot
     * (no tag lookup, no key string per request). A registration race registers the same meter twice, which the
     * registry answers with the one meter.
     */
    private final class PolicyMeters {
        final String policy;
        final AtomicReferenceArray<Counter> decisions = new AtomicReferenceArray<>(SOURCES * OUTCOMES);
        final AtomicReferenceArray<Counter> fallbacks = new AtomicReferenceArray<>(SOURCES * MODES);
        final AtomicReferenceArray<Counter> reservations = new AtomicReferenceArray<>(SOURCES);
        volatile @Nullable Timer latency;

        PolicyMeters(String policy) {
            this.policy = policy;
        }

        Counter decision(Source source, Outcome outcome) {
            int i = source.ordinal() * OUTCOMES + outcome.ordinal();
            Counter c = decisions.get(i);
            if (c == null) {
                boolean missing = outcome == Outcome.MISSING_KEY_REJECTED || outcome == Outcome.MISSING_KEY_SKIPPED;
                c = decisionCounter(source, policy, outcome.tag(), missing ? MODE_NONE : MODE_GRID);
                decisions.set(i, c);
            }
            return c;
        }

        Counter fallback(Source source, FailureMode mode) {
            int i = source.ordinal() * MODES + mode.ordinal();
            Counter c = fallbacks.get(i);
            if (c == null) {
                c = decisionCounter(source, policy, Outcome.FALLBACK.tag(), mode.name().toLowerCase(Locale.ROOT));
                fallbacks.set(i, c);
            }
            return c;
        }

        Counter reservation(Source source) {
            Counter c = reservations.get(source.ordinal());
            if (c == null) {
                c = Counter.builder(RESERVATIONS).description("Reservations handed to callers, to be settled")
                        .tag("policy", policy).tag("source", source.tag()).register(registry);
                reservations.set(source.ordinal(), c);
            }
            return c;
        }

        Timer latency() {
            Timer t = latency;
            if (t == null) {
                t = Timer.builder(DECISION_LATENCY)
                        .description("Time from asking the grid to its answer or the timeout")
                        .publishPercentileHistogram()
                        .minimumExpectedValue(LATENCY_HISTOGRAM_MIN)
                        .maximumExpectedValue(LATENCY_HISTOGRAM_MAX)
                        .tag("policy", policy).register(registry);
                latency = t;
            }
            return t;
        }
    }

    /**
     * Records how long a decision took.
     *
     * @param policy the policy name
     * @param nanos elapsed nanoseconds ({@code System.nanoTime} differences), >= 0
     */
    public void latency(String policy, long nanos) {
        meters(policy).latency().record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /**
     * Counts a decision the grid failed to give.
     *
     * @param policy the policy name
     * @param timeout true when it did not answer within {@code grid-timeout}, false for another failure
     */
    public void gridError(String policy, boolean timeout) {
        String reason = timeout ? "timeout" : "failure";
        counters.computeIfAbsent(GRID_ERRORS + '\0' + policy + '\0' + reason, k -> Counter.builder(GRID_ERRORS)
                .description("Decisions the grid did not answer in time or failed")
                .tag("policy", policy).tag("reason", reason).register(registry)).increment();
    }

    /** Why a reservation was given back (the {@code reason} tag of {@value #GIVE_BACKS}). */
    public enum GiveBackReason {
        /** A later rule of the request, or a check of an atomic batch, denied. */
        DENIED("denied"),
        /** The grid failed (or timed out) for another rule or check: the answer was 503. */
        FAILED("failed"),
        /** The admission arrived after its caller had been answered (a timeout). */
        LATE("late");

        private final String tag;

        GiveBackReason(String tag) {
            this.tag = tag;
        }

        /** @return the tag value */
        public String tag() {
            return tag;
        }
    }

    /**
     * Counts reservations handed to a caller ({@value #RESERVATIONS}).
     *
     * @param source who asked
     * @param policy the policy name
     */
    public void reservation(Source source, String policy) {
        meters(policy).reservation(source).increment();
    }

    /**
     * Counts one settle ({@value #SETTLES}) and, when it charged beyond the maximum debt, its excess
     * ({@value #DEBT_EXCESS}, in cost units).
     *
     * @param source who settled
     * @param policy the policy name
     * @param settlement what the owner answered
     */
    public void settle(Source source, String policy, io.gridlimit.api.Settlement settlement) {
        String status = settlement.status().wireName();
        counters.computeIfAbsent(SETTLES + '\0' + policy + '\0' + status + '\0' + source.tag(),
                k -> Counter.builder(SETTLES).description("Settles of reservations by status")
                        .tag("policy", policy).tag("status", status).tag("source", source.tag())
                        .register(registry)).increment();
        if (settlement.debt()) {
            counters.computeIfAbsent(DEBTS + '\0' + policy, k -> Counter.builder(DEBTS)
                    .description("Settles that left a band's balance below zero")
                    .tag("policy", policy).register(registry)).increment();
        }
        if (settlement.excess() > 0) {
            counters.computeIfAbsent(DEBT_EXCESS + '\0' + policy, k -> Counter.builder(DEBT_EXCESS)
                    .description("Cost a settle did not charge because a band's maximum debt was reached")
                    .tag("policy", policy).register(registry)).increment(settlement.excess());
        }
    }

    /**
     * Counts one give-back ({@value #GIVE_BACKS}) by its result: {@code given-back} (settled to 0 now),
     * {@code already-settled} (a settle came first: nothing changed), {@code lost} (the grid failed until the
     * reservation expired, or its key's state no longer held it: its cost stands).
     *
     * @param policy the policy name
     * @param reason why the reservation was given back
     * @param settlement the owner's answer, or null when the give-back failed
     */
    public void giveBack(String policy, GiveBackReason reason, io.gridlimit.api.@Nullable Settlement settlement) {
        String result = settlement == null || !settlement.isSettled() ? "lost"
                : settlement.status() == io.gridlimit.api.Settlement.Status.SETTLED ? "given-back" : "already-settled";
        counters.computeIfAbsent(GIVE_BACKS + '\0' + policy + '\0' + reason.tag() + '\0' + result,
                k -> Counter.builder(GIVE_BACKS).description("Reservations given back so a request consumed nothing")
                        .tag("policy", policy).tag("reason", reason.tag()).tag("result", result)
                        .register(registry)).increment();
    }

    /**
     * The counter of {@value #HEADER_TIMEOUTS}: one per connection answered 408 and closed because a request's
     * header section was not complete within {@code gridlimit.http.header-timeout} (docs/SPEC.md §5, §9).
     *
     * @return the counter, registered on first use; incrementing it never blocks
     */
    public Counter headerTimeouts() {
        return counters.computeIfAbsent(HEADER_TIMEOUTS, k -> Counter.builder(HEADER_TIMEOUTS)
                .description("Connections answered 408 and closed: a request's header section was not complete "
                        + "within gridlimit.http.header-timeout")
                .register(registry));
    }
}
