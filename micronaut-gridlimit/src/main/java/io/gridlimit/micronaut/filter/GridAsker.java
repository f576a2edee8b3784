package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.GiveBacks;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.core.annotation.Nullable;
import io.netty.channel.EventLoop;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Asks the grid about a request's rules, one after the other, without ever blocking the Netty event loop
 * (SPEC §5). Each rule is asked with {@link RateLimiter#reserveAsync(Policy, String, long,
 * java.util.concurrent.Executor)} (a reservation, so that it can be given back or settled, docs/SPEC.md §10)
 * completing on the request's event loop, bounded by {@code grid-timeout} on that
 * loop's own timer; the next rule is asked only when the previous one admitted (or denied in shadow mode).
 *
 * <p>Failures (timeout or grid error) are counted ({@value GridLimitMetrics#GRID_ERRORS}, with the latency) and
 * logged at most every 10 s (each one at debug). A timed-out request is cancelled at the limiter before its
 * answer moves on, so a request still queued on this replica (coalescing) is never sent and consumes nothing, and
 * one already sent is given back by the limiter when its admission arrives.
 * Under {@code failure-mode: local} the failed rule is decided by {@link LocalFallback} on this replica's share
 * instead; a policy without a share (or a local decision that fails) stays failed, and {@code local} then answers
 * it as {@code closed} does: it is never let through unlimited (docs/SPEC.md §5). Under {@code open} and
 * {@code closed} a failed rule stays failed, for the response writer to apply the mode. Thread-safe.
 */
@Singleton
public class GridAsker {
    private static final Logger LOG = LoggerFactory.getLogger(RateLimitFilter.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final GridLimitConfig config;
    private final RateLimiter limiter;
    private final GridLimitMetrics metrics;
    private final LocalFallback local;
    private final long timeoutNanos;
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * @param config the checked configuration: {@code grid-timeout} and {@code failure-mode}
     * @param limiter decides
     * @param metrics counts latencies and grid errors
     * @param local decides when the grid cannot, under {@code failure-mode: local}
     */
    public GridAsker(GridLimitConfig config, RateLimiter limiter, GridLimitMetrics metrics, LocalFallback local) {
        this.config = config;
        this.limiter = limiter;
        this.metrics = metrics;
        this.local = local;
        this.timeoutNanos = config.gridTimeout().toNanos();
    }

    /** @return the configured failure mode, which answers when the grid does not */
    FailureMode failureMode() {
        return config.failureMode();
    }

    /**
     * Decides the checks in order, stopping after the first that {@linkplain RuleResult#stops() stops}.
     *
     * @param checks the rules with their keys, at least one
     * @param loop the request's event loop, or null (not a Netty request): with a loop every answer, and every
     *     timeout, is delivered on it, so no other thread touches the request
     * @return the results in rule order, one per rule asked; never completed exceptionally
     */
    CompletableFuture<List<RuleResult>> ask(List<RuleCheck> checks, @Nullable EventLoop loop) {
        return onEventLoop(loop, run(checks, 0, new ArrayList<>(), loop));
    }

    private CompletableFuture<List<RuleResult>> run(List<RuleCheck> checks, int index, List<RuleResult> done,
                                                    @Nullable EventLoop loop) {
        if (index == checks.size()) {
            return CompletableFuture.completedFuture(done);
        }
        return decide(checks.get(index), loop).thenCompose(result -> {
            done.add(result);
            return result.stops() ? CompletableFuture.completedFuture(done) : run(checks, index + 1, done, loop);
        });
    }

    private CompletableFuture<RuleResult> decide(RuleCheck check, @Nullable EventLoop loop) {
        Policy policy = check.policy();
        Policy grid = check.grid();
        long startNanos = System.nanoTime();
        CompletableFuture<Decision> answer = new CompletableFuture<>();
        CompletableFuture<Decision> asked = null;
        try {
            // a reservation, so that a later rule's denial, a 503 or the handler's settle can change it (SPEC §10)
            CompletionStage<Decision> stage = loop == null
                    ? limiter.reserveAsync(grid, check.key(), check.rule().cost())
                    : limiter.reserveHereAsync(grid, check.key(), check.rule().cost(), loop); // settled here
            asked = stage instanceof CompletableFuture<Decision> future ? future : null;
            stage.whenComplete((decision, error) -> Futures.complete(answer, decision, error));
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        if (!answer.isDone()) {
            scheduleTimeout(answer, loop);
        }
        CompletableFuture<Decision> pending = asked;
        return answer.handle((decision, error) -> {
            metrics.latency(policy.name(), System.nanoTime() - startNanos);
            if (error == null) {
                return new RuleResult(check, decision, false, false);
            }
            Throwable cause = Futures.unwrap(error);
            boolean timeout = cause instanceof TimeoutException;
            if (timeout && pending != null) {
                // before anything is answered: if still queued on this replica (coalescing), it is never sent; if
                // already sent, the limiter gives its admission back when it arrives (SPEC §10)
                pending.cancel(false);
            }
            metrics.gridError(policy.name(), timeout);
            log(policy, timeout, cause);
            if (config.failureMode() == FailureMode.LOCAL) {
                try {
                    Decision decided = local.decide(policy, check.key(), check.rule().cost());
                    if (decided != null) {
                        return new RuleResult(check, decided, false, true);
                    }
                    // no share (a quota below expected-replicas): never decided alone, answered as closed
                } catch (RuntimeException e) {
                    LOG.warn("local fallback failed for policy '{}' ({}); answered 503 as failure-mode closed",
                            policy.name(), e.toString());
                }
            }
            return new RuleResult(check, null, true, false);
        });
    }

    /**
     * Gives back what the admitting rules of a request that was stopped (429 or 503) consumed, grid and local
     * (all-or-nothing, docs/SPEC.md §10), counting each give-back ({@value GridLimitMetrics#GIVE_BACKS}).
     *
     * @param results the rules' answers
     * @param reason why: a denial or a failure
     */
    void giveBack(List<RuleResult> results, GridLimitMetrics.GiveBackReason reason) {
        for (RuleResult r : results) {
            Decision d = r.decision();
            if (d == null || !d.allowed() || d.reservation() == null) {
                continue;
            }
            Policy policy = r.check().policy(); // the chosen policy (plan, override: SPEC §11), as meters name it
            Policy taken = r.local() ? policy : r.check().grid(); // what the reservation was taken under
            if (r.local()) {
                GiveBacks.local(local, policy, d.reservation(), reason, metrics);
            } else {
                GiveBacks.onGrid(limiter, taken, d.reservation(), policy.name(), reason, metrics);
            }
        }
    }

    /**
     * Settles the admitting rules' reservations of a request that went through to its actual cost (the
     * handler's, docs/SPEC.md §10).
     *
     * @param results the rules' answers
     * @param actual the actual cost, in [0, 10^15]
     * @return one stage per settled reservation
     */
    List<CompletableFuture<io.gridlimit.api.Settlement>> settle(List<RuleResult> results, long actual) {
        List<CompletableFuture<io.gridlimit.api.Settlement>> stages = new ArrayList<>();
        for (RuleResult r : results) {
            Decision d = r.decision();
            if (d == null || !d.allowed() || d.reservation() == null) {
                continue;
            }
            Policy policy = r.check().policy(); // the chosen policy (plan, override: SPEC §11), as meters name it
            Policy taken = r.local() ? policy : r.check().grid(); // what the reservation was taken under
            CompletableFuture<io.gridlimit.api.Settlement> stage;
            try {
                stage = r.local() ? CompletableFuture.completedFuture(local.settle(policy, d.reservation(), actual))
                        : limiter.settleAsync(taken, d.reservation(), actual).toCompletableFuture();
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((s, e) -> {
                if (s != null) {
                    metrics.settle(GridLimitMetrics.Source.FILTER, policy.name(), s);
                }
            });
            stages.add(stage);
        }
        return stages;
    }

    private void log(Policy policy, boolean timeout, Throwable cause) {
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        boolean warn = now - last >= WARN_INTERVAL_NANOS && lastWarnNanos.compareAndSet(last, now);
        if (warn || LOG.isDebugEnabled()) {
            String message = timeout ? "grid did not answer policy '" + policy.name() + "' within "
                    + config.gridTimeout() : "grid failed to decide policy '" + policy.name() + "': " + cause;
            if (warn) {
                LOG.warn("{} (failure-mode {}; logged at most every 10 s, see metric {})", message,
                        config.failureMode().name().toLowerCase(Locale.ROOT), GridLimitMetrics.GRID_ERRORS);
            } else {
                LOG.debug(message);
            }
        }
    }

    /**
     * Fails {@code answer} with a {@link TimeoutException} after {@code grid-timeout}: on the request's event
     * loop's own timer (cancelled when the answer comes), or, without a loop or when the loop refuses the task
     * (shutting down), with {@link CompletableFuture#orTimeout}.
     */
    private void scheduleTimeout(CompletableFuture<Decision> answer, @Nullable EventLoop loop) {
        if (loop != null) {
            try {
                ScheduledFuture<?> timer = loop.schedule(() -> {
                    answer.completeExceptionally(new TimeoutException());
                }, timeoutNanos, TimeUnit.NANOSECONDS);
                answer.whenComplete((decision, error) -> timer.cancel(false));
                return;
            } catch (RejectedExecutionException e) {
                // the loop is shutting down: fall back to the JDK's timer below
            }
        }
        answer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * The answer, completed on the request's event loop: as is when it already completes there (the usual case:
     * decisions and timeouts are delivered on the loop), else handed to the loop; completed where it is if the
     * loop rejects the task (shutting down), so the request is never left hanging.
     */
    private static <T> CompletableFuture<T> onEventLoop(@Nullable EventLoop loop, CompletableFuture<T> future) {
        if (loop == null || future.isDone()) {
            return future;
        }
        return Futures.completeOn(future, task -> {
            if (loop.inEventLoop()) {
                task.run();
            } else {
                loop.execute(task);
            }
        });
    }
}
