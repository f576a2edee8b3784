package io.gridlimit.micronaut.filter;

import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.Answer;
import io.gridlimit.micronaut.decide.Decider;
import io.gridlimit.micronaut.decide.Decisions;
import io.gridlimit.micronaut.decide.Door;
import io.micronaut.core.annotation.Nullable;
import io.netty.channel.EventLoop;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The filter's side of the {@link Decider}: asks a request's rules one after the other, the next only when the
 * previous one admitted (or denied in shadow mode), each bounded by {@code grid-timeout} on the request's event
 * loop's own timer and decided there ({@link io.gridlimit.api.RateLimiter#reserveHereAsync}), so the event loop
 * never blocks and no other thread touches the request (SPEC §5). The decider applies the failure mode
 * {@code local}; {@code open} and {@code closed} are the response writer's to apply to a failed rule. Thread-safe.
 */
@Singleton
public class GridAsker {
    private final Decider decider;
    private final long timeoutNanos;

    /**
     * @param config the checked configuration: {@code grid-timeout}
     * @param decider decides each rule
     */
    public GridAsker(GridLimitConfig config, Decider decider) {
        this.decider = decider;
        this.timeoutNanos = config.gridTimeout().toNanos();
    }

    /** @return the configured failure mode, which answers when the grid does not */
    FailureMode failureMode() {
        return decider.failureMode();
    }

    /**
     * Decides the checks in order, stopping after the first that {@linkplain RuleResult#stops() stops}.
     *
     * @param checks the rules with their keys, at least one
     * @param loop the request's event loop, or null (not a Netty request): with a loop every answer, and every
     *     timeout, is delivered on it
     * @return the results in rule order, one per rule asked, with the request's {@link Decisions} (to close when
     *     the request is stopped, to settle when it goes through); never completed exceptionally
     */
    CompletableFuture<Asked> ask(List<RuleCheck> checks, @Nullable EventLoop loop) {
        Decisions decisions = decider.begin(Door.FILTER, timeoutNanos, loop, loop);
        if (checks.size() == 1) {
            // the common case: one rule, one stage less than the chain below
            RuleCheck check = checks.get(0);
            return onEventLoop(loop, decisions.decide(check.ask()))
                    .thenApply(answer -> new Asked(List.of(result(check, answer)), decisions));
        }
        return onEventLoop(loop, run(decisions, checks, 0, new ArrayList<>()))
                .thenApply(results -> new Asked(results, decisions));
    }

    private static RuleResult result(RuleCheck check, Answer answer) {
        return new RuleResult(check, answer.decision(), !answer.decided(), answer.local(), answer.against());
    }

    private CompletableFuture<List<RuleResult>> run(Decisions decisions, List<RuleCheck> checks, int index,
                                                    List<RuleResult> done) {
        if (index == checks.size()) {
            return CompletableFuture.completedFuture(done);
        }
        RuleCheck check = checks.get(index);
        return decisions.decide(check.ask()).thenCompose(answer -> {
            RuleResult result = result(check, answer);
            done.add(result);
            return result.stops() ? CompletableFuture.completedFuture(done)
                    : run(decisions, checks, index + 1, done);
        });
    }

    /**
     * One request's answers.
     *
     * @param results the rules' results in rule order, one per rule asked
     * @param decisions what gives back (a stopped request, all-or-nothing, SPEC §10) or settles (one that went
     *     through) the admissions
     */
    record Asked(List<RuleResult> results, Decisions decisions) {
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
