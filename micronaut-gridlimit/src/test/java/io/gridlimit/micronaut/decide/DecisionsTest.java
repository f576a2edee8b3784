package io.gridlimit.micronaut.decide;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.LocalFallbackSettings;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.metrics.GridLimitMetrics.GiveBackReason;
import io.gridlimit.time.ManualTimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Decider} and {@link Decisions}, the pipeline every door shares (docs/SPEC.md §5, §10): the grid is a
 * scripted limiter whose stages the test completes with a real {@link LocalRateLimiter}'s reservations (so give-backs
 * and settles change exact balances), the budget's timer a timer whose tasks the test runs (no waiting).
 */
class DecisionsTest {
    private static final long T0 = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final Policy BUCKET = Policy.builder("bucket").tokenBucket(10, 10, Duration.ofHours(1)).build();

    private final ManualTimeSource clock = new ManualTimeSource(T0);
    private final ScriptedGrid grid = new ScriptedGrid(new LocalRateLimiter(100, clock));
    private final Recording giveBacks = new Recording();
    private final ManualTimer timer = new ManualTimer();
    private final LocalFallback local = new LocalFallback(List.of(BUCKET), new LocalFallbackSettings(100, 2), clock);

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private Decider decider(FailureMode mode) {
        return new Decider(mode, grid, local, giveBacks, new GridLimitMetrics(new SimpleMeterRegistry()));
    }

    @Test
    void theLastRuleWithoutABudgetIsAPlainDecisionAndAllOrNothingStillGivesBackTheEarlierRules() {
        LocalRateLimiter limiter = new LocalRateLimiter(100, clock);
        Decider decider = new Decider(FailureMode.CLOSED, limiter, local,
                new ReservationGiveBack(limiter, local, new GridLimitMetrics(new SimpleMeterRegistry())),
                new GridLimitMetrics(new SimpleMeterRegistry()));
        Decisions decisions = decider.begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        Answer first = decisions.decide(new Ask(BUCKET, "a", 3)).join();
        Answer last = decisions.decideLast(new Ask(BUCKET, "b", 11)).join();
        assertThat(first.decision().reservation()).isNotNull();
        assertThat(last.admitted()).isFalse();
        assertThat(last.decision().reservation()).isNull();
        decisions.close(GiveBackReason.DENIED);
        assertThat(limiter.tryAcquire(BUCKET, "a", 10).remaining()).isZero(); // all 10 again: the 3 came back

        Decisions admitted = decider.begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        Answer plain = admitted.decideLast(new Ask(BUCKET, "c", 4)).join();
        assertThat(plain.admitted()).isTrue();
        assertThat(plain.decision().reservation()).isNull();
        assertThat(plain.decision().remaining()).isEqualTo(6);

        Decisions budgeted = decider.begin(Door.FILTER, 1_000_000_000L, timer, null);
        // with a budget a late admission must be given back: a reservation
        assertThat(budgeted.decideLast(new Ask(BUCKET, "d", 1)).join().decision().reservation()).isNotNull();
        decider.close();
    }

    @Test
    void everyHitCountsEachRuleOnItsOwnAndNeverGivesBackEvenUnderTheLocalShare() {
        Policy window = Policy.builder("window").fixedWindow(10, Duration.ofMinutes(1)).build();
        LocalRateLimiter limiter = new LocalRateLimiter(100, clock);
        Decider decider = new Decider(FailureMode.LOCAL, limiter, local, giveBacks,
                new GridLimitMetrics(new SimpleMeterRegistry()));
        Decisions decisions = decider.begin(Door.ENVOY, Counting.EVERY_HIT, Decider.NO_BUDGET, null, null);
        Answer a = decisions.decide(new Ask(window, "a", 4)).join();
        Answer b = decisions.decide(new Ask(window, "b", 11)).join();
        assertThat(a.admitted()).isTrue();
        assertThat(a.decision().reservation()).isNull();
        assertThat(b.admitted()).isFalse();
        decisions.close(GiveBackReason.DENIED);
        decisions.close(GiveBackReason.FAILED);
        assertThat(giveBacks.calls).isEmpty();
        // both counted: a's 4 stand, b's denied 11 used its window up
        assertThat(limiter.hit(window, "a", 0).remaining()).isEqualTo(6);
        assertThat(limiter.hit(window, "b", 0).allowed()).isFalse();

        // a grid that fails: the replica's share (10 / 2 replicas = 5 per minute) counts the hits the same way
        RateLimiter failing = new RateLimiter() {
            @Override
            public Decision tryAcquire(Policy policy, String key, long cost) {
                throw new IllegalStateException("down");
            }

            @Override
            public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
                return CompletableFuture.failedFuture(new IllegalStateException("down"));
            }

            @Override
            public CompletionStage<Decision> hitAsync(Policy policy, String key, long cost,
                                                      java.util.concurrent.Executor executor) {
                return CompletableFuture.failedFuture(new IllegalStateException("down"));
            }
        };
        Decider down = new Decider(FailureMode.LOCAL, failing, local, giveBacks,
                new GridLimitMetrics(new SimpleMeterRegistry()));
        Decisions fallback = down.begin(Door.ENVOY, Counting.EVERY_HIT, Decider.NO_BUDGET, null, null);
        Answer over = fallback.decide(new Ask(window, "c", 6)).join();
        assertThat(over.by()).isEqualTo(Answer.By.LOCAL);
        assertThat(over.admitted()).isFalse();
        Answer after = fallback.decide(new Ask(window, "c", 1)).join();
        assertThat(after.admitted()).as("the denied 6 counted on the share of 5").isFalse();
        assertThat(after.decision().limit()).isEqualTo(5);
        decider.close();
        down.close();
    }

    @Test
    void aClosedRequestGivesBackEveryAdmissionOnceAndSendsNothingMore() {
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        CompletableFuture<Answer> first = decisions.decide(new Ask(BUCKET, "a", 3));
        CompletableFuture<Answer> second = decisions.decide(new Ask(BUCKET, "b", 4));
        grid.answer(0);
        grid.answer(1);
        assertThat(first.join().by()).isEqualTo(Answer.By.GRID);
        assertThat(first.join().decision().remaining()).isEqualTo(7);
        assertThat(second.join().decision().remaining()).isEqualTo(6);

        decisions.close(GiveBackReason.DENIED);
        decisions.close(GiveBackReason.FAILED); // only the first close counts
        assertThat(giveBacks.calls).containsExactly("bucket a denied grid", "bucket b denied grid");
        assertThat(grid.remaining("a")).isEqualTo(10);
        assertThat(grid.remaining("b")).isEqualTo(10);

        CompletableFuture<Answer> after = decisions.decide(new Ask(BUCKET, "c", 1));
        assertThat(after.join().by()).isEqualTo(Answer.By.CANCELLED);
        assertThat(grid.sent).hasSize(2);
    }

    @Test
    void eachOnItsOwnLeavesTheAdmissionsOfADeniedRequestStandingAndStillAnswersWhatIsInFlight() {
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.API, Counting.EACH_ON_ITS_OWN,
                Decider.NO_BUDGET, null, null);
        CompletableFuture<Answer> first = decisions.decide(new Ask(BUCKET, "a", 3));
        CompletableFuture<Answer> second = decisions.decide(new Ask(BUCKET, "b", 4));
        grid.answer(0);
        decisions.close(GiveBackReason.DENIED); // another rule denied: counted on its own, nothing given back
        grid.answer(1); // in flight at the close: answered, and it stands
        assertThat(first.join().decision().remaining()).isEqualTo(7);
        assertThat(second.join().by()).isEqualTo(Answer.By.GRID);
        assertThat(second.join().decision().remaining()).isEqualTo(6);
        assertThat(giveBacks.calls).isEmpty();
        assertThat(grid.remaining("a")).isEqualTo(7);
        assertThat(grid.remaining("b")).isEqualTo(6);

        decisions.close(GiveBackReason.FAILED); // then answered 503 after all: it consumed nothing
        assertThat(giveBacks.calls).containsExactly("bucket a failed grid", "bucket b failed grid");
        assertThat(grid.remaining("a")).isEqualTo(10);
        assertThat(grid.remaining("b")).isEqualTo(10);
    }

    @Test
    void eachOnItsOwnStillGivesBackEveryAdmissionOfAFailedRequest() {
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.API, Counting.EACH_ON_ITS_OWN,
                Decider.NO_BUDGET, null, null);
        CompletableFuture<Answer> first = decisions.decide(new Ask(BUCKET, "a", 3));
        grid.answer(0);
        decisions.close(GiveBackReason.FAILED); // answered 503: the request consumed nothing
        assertThat(first.join().decision().remaining()).isEqualTo(7);
        assertThat(giveBacks.calls).containsExactly("bucket a failed grid");
        assertThat(grid.remaining("a")).isEqualTo(10);
    }

    @Test
    void aCloseCancelsWhatIsStillPendingAndThatStageIsNeverAnswered() {
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.API, Decider.NO_BUDGET, null, null);
        CompletableFuture<Answer> pending = decisions.decide(new Ask(BUCKET, "a", 3));
        decisions.close(GiveBackReason.FAILED);
        assertThat(pending.join().by()).isEqualTo(Answer.By.CANCELLED);
        assertThat(grid.sent.get(0).isCancelled()).as("queued: never sent; in flight: the limiter gives it back")
                .isTrue();
        assertThat(giveBacks.calls).isEmpty();
    }

    @Test
    void aTimeoutFailsTheRuleCancelsItsStageAndAnAdmissionThatStillArrivesIsGivenBackLate() {
        grid.stubborn = true; // a stage that cannot be cancelled any more (it is being completed)
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.FILTER, TimeUnit.MILLISECONDS.toNanos(100),
                timer, null);
        CompletableFuture<Answer> answer = decisions.decide(new Ask(BUCKET, "a", 3));
        assertThat(timer.tasks).hasSize(1);
        timer.fire(0);
        assertThat(answer.join().by()).isEqualTo(Answer.By.FAILED);
        assertThat(answer.join().failure()).isInstanceOf(TimeoutException.class);

        grid.answer(0); // the owner admitted it after all
        assertThat(giveBacks.calls).containsExactly("bucket a late grid");
        assertThat(grid.remaining("a")).isEqualTo(10);
    }

    @Test
    void anAnswerBeforeTheBudgetCancelsItsTimer() {
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.ENVOY, TimeUnit.SECONDS.toNanos(1), timer, null);
        decisions.decide(new Ask(BUCKET, "a", 1));
        grid.answer(0);
        assertThat(timer.tasks).hasSize(1);
        assertThat(timer.futures.get(0).isCancelled()).isTrue();
        assertThat(timer.getQueue()).isEmpty();
    }

    @Test
    void underFailureModeLocalAFailedRuleIsDecidedOnTheSharePerDoor() {
        Decider decider = decider(FailureMode.LOCAL);
        grid.failing = true;
        Decisions filter = decider.begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        Answer decided = filter.decide(new Ask(BUCKET, "a", 2)).join();
        assertThat(decided.by()).isEqualTo(Answer.By.LOCAL);
        assertThat(decided.against()).isEqualTo(local.derived("bucket")); // floor(10/2) = 5 tokens
        assertThat(decided.decision().limit()).isEqualTo(5);
        assertThat(decided.decision().remaining()).isEqualTo(3);
        filter.close(GiveBackReason.FAILED);
        assertThat(giveBacks.calls).containsExactly("bucket a failed local");
        assertThat(local.decide(BUCKET, "a", 5).remaining()).as("the share is whole again").isZero();

        Decisions api = decider.begin(Door.API, Decider.NO_BUDGET, null, null);
        Answer failed = api.decide(new Ask(BUCKET, "b", 1)).join();
        assertThat(failed.by()).as("the decision API has no failure mode").isEqualTo(Answer.By.FAILED);
        assertThat(failed.failure()).hasMessage("member lost");
    }

    @Test
    void settleChargesEachAdmissionItsActualCostUnderItsStatePolicy() {
        Policy plan = Policy.builder("bucket").tokenBucket(20, 20, Duration.ofHours(1)).build();
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        decisions.decide(new Ask(plan, BUCKET, "a", 5));
        grid.answer(0);
        assertThat(grid.policies).containsExactly(BUCKET);
        List<CompletableFuture<Settlement>> settled = decisions.settle(2);
        assertThat(settled).hasSize(1);
        assertThat(settled.get(0).join().status()).isEqualTo(Settlement.Status.SETTLED);
        assertThat(grid.remaining("a")).isEqualTo(8);
    }

    @Test
    void aKeptRequestIsNeverGivenBackByALaterClose() {
        // gRPC cancels a call's context after an OK answer: that close must not return what Envoy was told stands
        Decisions decisions = decider(FailureMode.CLOSED).begin(Door.ENVOY, Decider.NO_BUDGET, null, null);
        decisions.decide(new Ask(BUCKET, "a", 3));
        grid.answer(0);
        decisions.keep();
        decisions.close(GiveBackReason.FAILED);
        assertThat(giveBacks.calls).isEmpty();
        assertThat(grid.remaining("a")).isEqualTo(7);
        assertThat(decisions.decide(new Ask(BUCKET, "a", 1)).join().by()).isEqualTo(Answer.By.CANCELLED);
        assertThat(grid.sent).hasSize(1);
    }

    @Test
    void aTimerThatRefusesTheBudgetFailsTheRuleAtOnceAndItsLateAdmissionIsGivenBack() {
        grid.stubborn = true;
        Decider decider = decider(FailureMode.CLOSED);
        decider.close(); // the decider's own timer is shut down
        timer.shutdownNow(); // and so is the door's
        Decisions decisions = decider.begin(Door.FILTER, TimeUnit.MILLISECONDS.toNanos(100), timer, null);
        Answer answer = decisions.decide(new Ask(BUCKET, "a", 3)).join();
        assertThat(answer.by()).isEqualTo(Answer.By.FAILED);
        assertThat(answer.failure()).isInstanceOf(TimeoutException.class);
        grid.answer(0);
        assertThat(giveBacks.calls).containsExactly("bucket a late grid");
        assertThat(grid.remaining("a")).isEqualTo(10);
    }

    @Test
    void aGiveBackThatThrowsNeverLeavesAnAnswerPending() {
        GiveBack throwing = (admitted, reason) -> {
            throw new IllegalStateException("broken seam");
        };
        Decider decider = new Decider(FailureMode.CLOSED, grid, local, throwing,
                new GridLimitMetrics(new SimpleMeterRegistry()));
        Decisions decisions = decider.begin(Door.API, Decider.NO_BUDGET, null, null);
        CompletableFuture<Answer> first = decisions.decide(new Ask(BUCKET, "a", 1));
        CompletableFuture<Answer> second = decisions.decide(new Ask(BUCKET, "b", 1));
        grid.answer(0);
        decisions.close(GiveBackReason.DENIED); // the seam throws for "a": the close still completes
        assertThat(first.join().by()).isEqualTo(Answer.By.GRID);
        assertThat(second.join().by()).isEqualTo(Answer.By.CANCELLED);
    }

    /** A limiter whose stages wait for {@link #answer}, which decides them on a real local limiter. */
    private static final class ScriptedGrid implements RateLimiter {
        final LocalRateLimiter real;
        final List<CompletableFuture<Decision>> sent = new ArrayList<>();
        final List<Policy> policies = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        final List<Long> costs = new ArrayList<>();
        boolean failing;
        boolean stubborn;

        ScriptedGrid(LocalRateLimiter real) {
            this.real = real;
        }

        void answer(int i) {
            sent.get(i).complete(real.reserve(policies.get(i), keys.get(i), costs.get(i)));
        }

        long remaining(String key) {
            return real.reserve(BUCKET, key, 11).remaining(); // denied without a write: a peek
        }

        @Override
        public Decision tryAcquire(Policy policy, String key, long cost) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Decision> reserveAsync(Policy policy, String key, long cost) {
            if (failing) {
                return CompletableFuture.failedFuture(new IllegalStateException("member lost"));
            }
            CompletableFuture<Decision> stage = stubborn ? new CompletableFuture<>() {
                @Override
                public boolean cancel(boolean mayInterruptIfRunning) {
                    return false;
                }
            } : new CompletableFuture<>();
            sent.add(stage);
            policies.add(policy);
            keys.add(key);
            costs.add(cost);
            return stage;
        }

        @Override
        public CompletionStage<Settlement> settleAsync(Policy policy, Reservation reservation, long actual) {
            return CompletableFuture.completedFuture(real.settle(policy, reservation, actual));
        }
    }

    /** Records "policy key reason grid|local" of each give-back, then gives back through the real seam. */
    private final class Recording implements GiveBack {
        final List<String> calls = new ArrayList<>();

        @Override
        public void giveBack(Answer admitted, GiveBackReason reason) {
            calls.add(admitted.ask().policy().name() + " " + admitted.ask().key() + " " + reason.tag() + " "
                    + (admitted.local() ? "local" : "grid"));
            new ReservationGiveBack(grid, local, new GridLimitMetrics(new SimpleMeterRegistry()))
                    .giveBack(admitted, reason);
        }
    }

    /** A timer whose tasks run only when the test fires them (each also armed an hour out, never reached). */
    private static final class ManualTimer extends ScheduledThreadPoolExecutor {
        final List<Runnable> tasks = new ArrayList<>();
        final List<ScheduledFuture<?>> futures = new ArrayList<>();

        ManualTimer() {
            super(1);
            setRemoveOnCancelPolicy(true);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            tasks.add(command);
            ScheduledFuture<?> f = super.schedule(() -> { }, 1, TimeUnit.HOURS);
            futures.add(f);
            return f;
        }

        void fire(int i) {
            tasks.get(i).run();
        }
    }
}
