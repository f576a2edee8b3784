package io.gridlimit.micronaut.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * GridLimit's Micrometer meters; every metric name lives here. Tags are the policy name and a fixed outcome or
 * reason, never a key. Without a {@link MeterRegistry} bean (metrics disabled) the meters go nowhere.
 * Thread-safe.
 *
 * <ul>
 *   <li>{@value #DECISIONS} (counter; tags {@code policy}, {@code outcome}: allowed, denied, shadow_denied,
 *       fallback, error)</li>
 *   <li>{@value #DECISION_LATENCY} (timer; tag {@code policy}): from asking the grid to its answer or timeout</li>
 *   <li>{@value #GRID_ERRORS} (counter; tags {@code policy}, {@code reason}: timeout, failure)</li>
 *   <li>{@value #ACTIVE_KEYS} (gauge; tag {@code policy}): keys this member owns, see {@link ActiveKeysBinder}</li>
 * </ul>
 */
@Singleton
public class GridLimitMetrics {
    /** Decisions taken by the HTTP filter, by policy and outcome. */
    public static final String DECISIONS = "gridlimit.decisions";
    /** Time from asking the grid to its answer (or the timeout), by policy. */
    public static final String DECISION_LATENCY = "gridlimit.decision.latency";
    /** Decisions the grid did not answer in time or failed, by policy and reason. */
    public static final String GRID_ERRORS = "gridlimit.grid.errors";
    /** Keys of a policy held by this member. */
    public static final String ACTIVE_KEYS = "gridlimit.active.keys";

    /** The {@code outcome} tag values of {@value #DECISIONS}. */
    public enum Outcome {
        /** Admitted. */
        ALLOWED,
        /** Denied (429). */
        DENIED,
        /** Would have been denied; the policy is in shadow mode, so admitted. */
        SHADOW_DENIED,
        /** The grid failed or timed out and failure-mode open let the request through. */
        FALLBACK,
        /** The grid failed or timed out and failure-mode closed answered 503. */
        ERROR;

        /** @return the tag value, e.g. {@code shadow_denied} */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();

    /** @param registry the application's registry, or null for none */
    public GridLimitMetrics(@Nullable MeterRegistry registry) {
        this.registry = registry == null ? new CompositeMeterRegistry() : registry;
    }

    /** @return the registry meters are written to (a no-op composite when the application has none) */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Counts one decision.
     *
     * @param policy the policy name
     * @param outcome what the request got
     */
    public void decision(String policy, Outcome outcome) {
        counters.computeIfAbsent(DECISIONS + '\0' + policy + '\0' + outcome.tag(), k -> Counter.builder(DECISIONS)
                .description("Rate-limit decisions by policy and outcome")
                .tag("policy", policy).tag("outcome", outcome.tag()).register(registry)).increment();
    }

    /**
     * Records how long a decision took.
     *
     * @param policy the policy name
     * @param nanos elapsed nanoseconds ({@code System.nanoTime} differences), >= 0
     */
    public void latency(String policy, long nanos) {
        timers.computeIfAbsent(policy, p -> Timer.builder(DECISION_LATENCY)
                .description("Time from asking the grid to its answer or the timeout")
                .tag("policy", p).register(registry)).record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
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
}
