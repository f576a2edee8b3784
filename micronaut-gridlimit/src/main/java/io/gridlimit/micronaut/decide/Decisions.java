package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Settlement;
import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's decisions, from its door's first {@link #decide} until the door {@linkplain #close closes} it (not
 * admitted) or keeps its admissions ({@link #settle}). Created by {@link Decider#begin}; the rules of
 * docs/SPEC.md §5 and §10 that every door shares:
 * <ul>
 *   <li>every answer is given once: by the grid, by the budget's timeout (then by the failure mode), or by a
 *       {@link #close} that came first ({@link Answer.By#CANCELLED});</li>
 *   <li>an admission that arrives after its rule was answered otherwise is given back ({@code reason=late});</li>
 *   <li>once closed, nothing more is sent; every admission the request holds, and any that arrives later, is given
 *       back with the close's reason, exactly once;</li>
 *   <li>once kept ({@link #keep}), nothing is given back by a close any more.</li>
 * </ul>
 * Thread-safe: its state is guarded by its own monitor; answers complete on the thread that decides them (the
 * limiter's, the request's event loop, or the timer's).
 */
public final class Decisions {
    private final Decider decider;
    private final Door door;
    private final Counting counting;
    private final long budgetNanos;
    private final @Nullable ScheduledExecutorService timer;
    private final @Nullable Executor here;

    private final List<Pending> pending = new ArrayList<>();
    private final List<Answer> admitted = new ArrayList<>();
    private GridLimitMetrics.@Nullable GiveBackReason closed;
    private boolean kept;

    Decisions(Decider decider, Door door, Counting counting, long budgetNanos,
              @Nullable ScheduledExecutorService timer, @Nullable Executor here) {
        this.decider = decider;
        this.door = door;
        this.counting = counting;
        this.budgetNanos = budgetNanos;
        this.timer = timer;
        this.here = here;
    }

    /**
     * Decides one rule: sends it to the grid, unless the request is closed already (then it is answered
     * {@link Answer.By#CANCELLED} and never sent).
     *
     * @param ask the rule
     * @return its answer; never completed exceptionally
     */
    public CompletableFuture<Answer> decide(Ask ask) {
        return decide(ask, false);
    }

    /**
     * Decides a request's last rule, for a door that will neither settle the request ({@link #settle}) nor close
     * it as failed once this rule has admitted (the replay of an access log, which mirrors the filter). When the
     * request has no budget ({@link Decider#NO_BUDGET}) nothing can then give this rule's admission back: no
     * timeout makes it late, a denial of a later rule cannot happen, and its own denial gives back only what the
     * earlier rules admitted. It is then taken as a plain decision ({@link io.gridlimit.api.RateLimiter#tryAcquireAsync}:
     * no reservation id, no settle record), which decides exactly as a reservation does (docs/SPEC.md §10: a
     * reservation never settled leaves the same later decisions as the plain decision). With a budget it is
     * {@link #decide(Ask)}.
     *
     * @param ask the request's last rule
     * @return its answer; never completed exceptionally
     */
    public CompletableFuture<Answer> decideLast(Ask ask) {
        return decide(ask, budgetNanos == Decider.NO_BUDGET);
    }

    private CompletableFuture<Answer> decide(Ask ask, boolean plain) {
        Pending p = new Pending(ask);
        CompletableFuture<Decision> stage;
        synchronized (this) {
            if (closed != null || kept) {
                p.result.complete(Answer.cancelled(ask));
                return p.result;
            }
            pending.add(p);
            // sent under the monitor, so a close either comes first (nothing sent) or sees the stage to cancel;
            // sending never blocks (it queues or submits)
            try {
                stage = (counting == Counting.EVERY_HIT ? decider.hit(ask, here)
                        : decider.send(ask, here, plain)).toCompletableFuture();
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            p.stage = stage;
        }
        boolean refused = false;
        if (!stage.isDone() && budgetNanos != Decider.NO_BUDGET) {
            try {
                p.timeout = decider.schedule(p::expire, budgetNanos, timer);
            } catch (RejectedExecutionException e) {
                refused = true; // every timer is shutting down: the budget is spent now
            }
        }
        if (p.answered.get()) {
            // answered while its timer was being set (it completed first)
            p.cancelTimeout();
        }
        stage.whenComplete(p::arrived);
        if (refused) {
            p.expire();
        }
        return p.result;
    }

    /**
     * Ends the request without admitting it: nothing more is sent, every rule not answered yet is answered
     * {@link Answer.By#CANCELLED} (still queued on this replica: never sent; in flight: the limiter gives its admission
     * back when it arrives), and every admission, now or arriving later, is given back with {@code reason}
     * (all-or-nothing, docs/SPEC.md §10). Only the first close counts, and none after {@link #keep}. Under
     * {@link Counting#EACH_ON_ITS_OWN} and {@link Counting#EVERY_HIT} a close for {@code denied} does nothing: what
     * the other rules admitted, and what the rules in flight admit, stands until the request is kept, or closed for
     * {@code failed}; under {@link Counting#EVERY_HIT} nothing is given back even then (a hit has no reservation:
     * what was sent counts).
     *
     * @param reason why: {@code denied} (a rule denied) or {@code failed} (answered 503, {@code UNAVAILABLE}, or the
     *     caller went away)
     */
    public void close(GridLimitMetrics.GiveBackReason reason) {
        if (reason == GridLimitMetrics.GiveBackReason.DENIED && counting.eachOnItsOwn()) {
            return; // each rule counts on its own: a denial closes nothing, and a later failure still gives back
        }
        List<Pending> waiting;
        List<Answer> back;
        synchronized (this) {
            if (closed != null || kept) {
                return;
            }
            closed = reason;
            waiting = List.copyOf(pending);
            back = List.copyOf(admitted);
            admitted.clear();
        }
        waiting.forEach(Pending::cancel);
        back.forEach(a -> decider.giveBack(a, reason));
    }

    /**
     * Ends the request as admitted: its admissions stand (for {@link #settle}), a later {@link #close} does nothing,
     * and nothing more is sent. A door calls it when it has answered the request as admitted, so that nothing that
     * happens afterwards (a cancel the transport signals after the answer) can give back what the caller was told
     * stands.
     */
    public synchronized void keep() {
        if (closed == null) {
            kept = true;
        }
    }

    /**
     * Settles the admissions of a request that went through to its actual cost (docs/SPEC.md §10), counting each
     * ({@value GridLimitMetrics#SETTLES}, with this door's {@code source}). Call it at most once, and never after
     * {@link #close}.
     *
     * @param actual the actual cost, in [0, 10^15]
     * @return one stage per settled reservation (admissions without one are skipped)
     */
    public List<CompletableFuture<Settlement>> settle(long actual) {
        List<Answer> held;
        synchronized (this) {
            held = List.copyOf(admitted);
        }
        List<CompletableFuture<Settlement>> stages = new ArrayList<>();
        for (Answer a : held) {
            if (a.decision().reservation() == null) {
                continue;
            }
            Ask ask = a.ask();
            CompletableFuture<Settlement> stage;
            try {
                stage = a.local()
                        ? CompletableFuture.completedFuture(decider.local().settle(ask.policy(),
                                a.decision().reservation(), actual))
                        : decider.limiter().settleAsync(ask.state(), a.decision().reservation(), actual)
                                .toCompletableFuture();
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((s, e) -> {
                if (s != null) {
                    decider.metrics().settle(door.source(), ask.policy().name(), s);
                }
            });
            stages.add(stage);
        }
        return stages;
    }

    /** Records an answer and delivers it; an admission that meets a close is given back with its reason. */
    private void deliver(Pending p, Answer answer) {
        GridLimitMetrics.GiveBackReason back = null;
        if (answer.admitted() && counting != Counting.EVERY_HIT) { // a hit has nothing to give back: not held
            synchronized (this) {
                if (closed == null) {
                    admitted.add(answer);
                } else {
                    back = closed;
                }
            }
        }
        try {
            if (back != null) {
                decider.giveBack(answer, back);
            }
        } finally {
            p.result.complete(answer);
        }
    }

    /** One rule in flight: answered once, by whichever of the grid, the timeout or a close comes first. */
    private final class Pending {
        final Ask ask;
        final long startNanos = System.nanoTime();
        final CompletableFuture<Answer> result = new CompletableFuture<>();
        final AtomicBoolean answered = new AtomicBoolean();
        volatile @Nullable CompletableFuture<Decision> stage;
        volatile @Nullable Future<?> timeout;

        Pending(Ask ask) {
            this.ask = ask;
        }

        void expire() {
            if (answered.compareAndSet(false, true)) {
                cancelStage(); // queued: never sent; sent: given back when it arrives, here or by the limiter
                deliver(this, decider.fallback(door, counting, ask, new TimeoutException("no answer within the budget"),
                        startNanos, budgetNanos));
            }
        }

        void cancel() {
            if (answered.compareAndSet(false, true)) {
                cancelTimeout();
                cancelStage();
                result.complete(Answer.cancelled(ask));
            }
        }

        void arrived(@Nullable Decision decision, @Nullable Throwable error) {
            cancelTimeout();
            if (answered.compareAndSet(false, true)) {
                if (error == null) {
                    decider.latency(ask, startNanos);
                    deliver(this, Answer.grid(ask, decision));
                } else {
                    Throwable cause = Futures.unwrap(error);
                    deliver(this, decider.fallback(door, counting, ask, cause, startNanos, budgetNanos));
                }
            } else if (error == null && decision.allowed() && counting != Counting.EVERY_HIT) {
                // answered already (the timeout, the failure mode or a close): this admission must not stand
                decider.giveBack(Answer.grid(ask, decision), GridLimitMetrics.GiveBackReason.LATE);
            }
        }

        void cancelTimeout() {
            Future<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
        }

        private void cancelStage() {
            CompletableFuture<Decision> s = stage;
            if (s != null) {
                s.cancel(false);
            }
        }
    }
}
