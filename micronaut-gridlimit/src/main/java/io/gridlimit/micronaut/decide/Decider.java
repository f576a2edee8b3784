package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Decision;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one decision pipeline behind every door (the HTTP filter, the decision API, Envoy's service): a door
 * translates its protocol into {@link Ask}s, {@linkplain #begin begins} one {@link Decisions} per request and
 * translates the {@link Answer}s back. What the doors share is here, once (docs/SPEC.md §5, §10, §13):
 * <ul>
 *   <li>each rule is one grid decision taken as a reservation ({@link RateLimiter#reserveAsync}, or
 *       {@link RateLimiter#reserveHereAsync} on the request's event loop, where a lease may decide it in process),
 *       never blocking;</li>
 *   <li>the budget: a decision not answered within it fails as a timeout, and its stage is cancelled (still queued on
 *       this replica: never sent; already sent: the limiter gives its admission back when it arrives, and one that
 *       completed first is given back here, {@code reason=late});</li>
 *   <li>a failure, under {@code failure-mode: local} at a door where the failure mode applies, is decided on this
 *       replica's share ({@link LocalFallback}); a policy without a share stays failed, never admitted unlimited;</li>
 *   <li>all-or-nothing: {@link Decisions#close} gives back every admission of a request that is not admitted (a
 *       door may ask that a denial leave the other rules' admissions standing,
 *       {@link Counting#EACH_ON_ITS_OWN}, or that every hit count as envoyproxy/ratelimit counts,
 *       {@link Counting#EVERY_HIT}: then each rule is one {@link RateLimiter#hitAsync} instead of a reservation);</li>
 *   <li>the latency ({@value GridLimitMetrics#DECISION_LATENCY}) and grid errors ({@value GridLimitMetrics#GRID_ERRORS})
 *       of every decision, and a WARN at most every 10 s for failures (each one at debug).</li>
 * </ul>
 * Thread-safe.
 */
@Singleton
public class Decider {
    /** A budget that never runs out: no timer is armed (the door bounds the whole request itself). */
    public static final long NO_BUDGET = Long.MAX_VALUE;

    private static final Logger LOG = LoggerFactory.getLogger(Decider.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final FailureMode failureMode;
    private final RateLimiter limiter;
    private final LocalFallback local;
    private final GiveBack giveBack;
    private final GridLimitMetrics metrics;
    private final ScheduledThreadPoolExecutor timer;
    /** When each door last warned of a grid failure (each door throttled on its own). */
    private final AtomicLong[] lastWarnNanos = new AtomicLong[Door.values().length];

    /**
     * @param config the checked configuration: {@code failure-mode}
     * @param limiter decides
     * @param local decides on this replica's share when the grid cannot, under {@code failure-mode: local}
     * @param giveBack returns what admissions took when their request is not admitted
     * @param metrics counts latencies, grid errors, give-backs and settles
     */
    @Inject
    public Decider(GridLimitConfig config, RateLimiter limiter, LocalFallback local, GiveBack giveBack,
                   GridLimitMetrics metrics) {
        this(config.failureMode(), limiter, local, giveBack, metrics);
    }

    /**
     * @param failureMode what answers a decision the grid does not give, at doors where it applies (SPEC §5)
     * @param limiter decides
     * @param local decides on this replica's share when the grid cannot, under {@code failure-mode: local}
     * @param giveBack returns what admissions took when their request is not admitted
     * @param metrics counts latencies, grid errors, give-backs and settles
     */
    public Decider(FailureMode failureMode, RateLimiter limiter, LocalFallback local, GiveBack giveBack,
                   GridLimitMetrics metrics) {
        this.failureMode = failureMode;
        this.limiter = limiter;
        this.local = local;
        this.giveBack = giveBack;
        this.metrics = metrics;
        for (int i = 0; i < lastWarnNanos.length; i++) {
            lastWarnNanos[i] = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);
        }
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "gridlimit-decider-timer");
            thread.setDaemon(true);
            return thread;
        });
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /**
     * Begins one request's decisions.
     *
     * @param door where the request came from: its meters' {@code source}, and whether the failure mode applies
     * @param budgetNanos how long each decision may take, in nanoseconds, > 0, or {@link #NO_BUDGET}
     * @param timer where the budget's timers run (the request's event loop, so its answers arrive there), or null
     *     for the decider's own timer thread; a timer that refuses the task (shutting down) is replaced by the
     *     decider's
     * @param here the request's event loop, on which decisions complete and a lease may decide in process
     *     ({@link RateLimiter#reserveHereAsync}), or null to complete on the limiter's threads
     * @return the request's decisions, open
     * @throws IllegalArgumentException if {@code budgetNanos} is not positive
     */
    public Decisions begin(Door door, long budgetNanos, @Nullable ScheduledExecutorService timer,
                           @Nullable Executor here) {
        return begin(door, Counting.ALL_OR_NOTHING, budgetNanos, timer, here);
    }

    /**
     * Begins one request's decisions, counted as {@code counting} says when a rule denies.
     *
     * @param door where the request came from: its meters' {@code source}, and whether the failure mode applies
     * @param counting whether a denial gives back what the request's other rules admitted
     * @param budgetNanos how long each decision may take, in nanoseconds, > 0, or {@link #NO_BUDGET}
     * @param timer where the budget's timers run, or null for the decider's own timer thread (as {@link #begin(Door,
     *     long, ScheduledExecutorService, Executor)})
     * @param here the request's event loop, or null (as {@link #begin(Door, long, ScheduledExecutorService, Executor)})
     * @return the request's decisions, open
     * @throws IllegalArgumentException if {@code budgetNanos} is not positive
     */
    public Decisions begin(Door door, Counting counting, long budgetNanos, @Nullable ScheduledExecutorService timer,
                           @Nullable Executor here) {
        if (budgetNanos <= 0) {
            throw new IllegalArgumentException("budgetNanos must be positive, got " + budgetNanos);
        }
        return new Decisions(this, door, Objects.requireNonNull(counting, "counting"), budgetNanos, timer,
                here);
    }

    /** @return the configured failure mode, which a door applies to a {@link Answer.By#FAILED} answer */
    public FailureMode failureMode() {
        return failureMode;
    }

    /** @return the local fallback, whose shares decide under {@code failure-mode: local} */
    LocalFallback local() {
        return local;
    }

    /** Stops the decider's timer thread; decisions still waiting on it then wait for the grid alone. */
    @PreDestroy
    public void close() {
        timer.shutdownNow();
    }

    /**
     * @return how many budgets are armed on the decider's own timer (the doors without an event loop: the decision
     *     API never, Envoy's service always); a request that was answered or cancelled leaves none
     */
    public int armedTimers() {
        return timer.getQueue().size();
    }

    CompletionStage<Decision> send(Ask ask, @Nullable Executor here, boolean plain) {
        if (plain) {
            return here == null ? limiter.tryAcquireAsync(ask.state(), ask.key(), ask.cost())
                    : limiter.tryAcquireAsync(ask.state(), ask.key(), ask.cost(), here);
        }
        return here == null ? limiter.reserveAsync(ask.state(), ask.key(), ask.cost())
                : limiter.reserveHereAsync(ask.state(), ask.key(), ask.cost(), here);
    }

    /** A hit (docs/SPEC.md §3, "Every hit counts"), completed on {@code here} or the limiter's threads. */
    CompletionStage<Decision> hit(Ask ask, @Nullable Executor here) {
        return limiter.hitAsync(ask.state(), ask.key(), ask.cost(), here);
    }

    RateLimiter limiter() {
        return limiter;
    }

    GridLimitMetrics metrics() {
        return metrics;
    }

    void giveBack(Answer admitted, GridLimitMetrics.GiveBackReason reason) {
        try {
            giveBack.giveBack(admitted, reason);
        } catch (RuntimeException e) {
            // the seam promises never to throw; a replacement that does must not leave a request unanswered
            LOG.warn("give-back of policy '{}' failed ({}): its cost stands", admitted.ask().policy().name(),
                    e.toString());
        }
    }

    ScheduledFuture<?> schedule(Runnable task, long nanos, @Nullable ScheduledExecutorService on) {
        if (on != null) {
            try {
                return on.schedule(task, nanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // the event loop is shutting down: the decider's own timer below
            }
        }
        return timer.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    void latency(Ask ask, long startNanos) {
        metrics.latency(ask.policy().name(), System.nanoTime() - startNanos);
    }

    /**
     * A decision the grid did not give: counted and logged, then decided on this replica's share where the failure
     * mode is {@code local} (counted as a hit under {@link Counting#EVERY_HIT}, {@link LocalFallback#hit}), else
     * failed.
     */
    Answer fallback(Door door, Counting counting, Ask ask, Throwable cause, long startNanos, long budgetNanos) {
        String policy = ask.policy().name();
        boolean timeout = cause instanceof TimeoutException;
        latency(ask, startNanos);
        metrics.gridError(policy, timeout);
        log(door, policy, timeout, cause, budgetNanos);
        if (door.failureMode() && failureMode == FailureMode.LOCAL) {
            try {
                Decision decided = counting == Counting.EVERY_HIT ? local.hit(ask.policy(), ask.key(), ask.cost())
                        : local.decide(ask.policy(), ask.key(), ask.cost());
                if (decided != null) {
                    io.gridlimit.api.Policy share = local.derived(policy);
                    return new Answer(ask, decided, Answer.By.LOCAL, share == null ? ask.policy() : share, null);
                }
                // no share (a quota below expected-replicas): never decided alone, answered as closed
            } catch (RuntimeException e) {
                LOG.warn("local fallback failed for policy '{}' ({}); answered as failure-mode closed", policy,
                        e.toString());
            }
        }
        return Answer.failed(ask, cause);
    }

    private void log(Door door, String policy, boolean timeout, @Nullable Throwable cause, long budgetNanos) {
        AtomicLong lastWarn = lastWarnNanos[door.ordinal()];
        long now = System.nanoTime();
        long last = lastWarn.get();
        boolean warn = now - last >= WARN_INTERVAL_NANOS && lastWarn.compareAndSet(last, now);
        if (warn || LOG.isDebugEnabled()) {
            String message = timeout ? "grid did not answer policy '" + policy + "' within "
                    + Duration.ofNanos(budgetNanos) : "grid failed to decide policy '" + policy + "': " + cause;
            if (warn) {
                LOG.warn("{} ({}; logged at most every 10 s per door, see metric {})", message, door.failureMode()
                        ? "failure-mode " + failureMode.name().toLowerCase(Locale.ROOT)
                        : door.name().toLowerCase(Locale.ROOT) + ": answered as unavailable",
                        GridLimitMetrics.GRID_ERRORS);
            } else {
                LOG.debug(message);
            }
        }
    }
}
