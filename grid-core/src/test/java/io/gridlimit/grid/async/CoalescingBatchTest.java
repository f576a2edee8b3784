package io.gridlimit.grid.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridTestSupport;
import io.gridlimit.grid.owner.DecideProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * {@link Coalescer} against a fake owner whose answers the test releases by hand: batches form in arrival order
 * while a call is in flight, at most {@code maxBatch} costs leave at once, the decisions are those of sequential
 * application in arrival order, a failure reaches every waiter of its batch (and only those), and no slot stays
 * behind for an idle key.
 */
class CoalescingBatchTest {
    private static final long NOW = GridTestSupport.T0;
    private final Policy policy = Policy.builder("hot").tokenBucket(10, 1, Duration.ofHours(1)).build();

    /** A fake owner: records each batch and answers it when the test says so, applying costs on its own state. */
    private final class FakeOwner {
        final List<long[]> batches = new ArrayList<>();
        final List<CompletableFuture<Decision[]>> answers = new ArrayList<>();
        final List<Executor> executors = new ArrayList<>();
        LimiterState state;

        CompletableFuture<Decision[]> send(Policy p, String key, long[] costs, Executor executor) {
            batches.add(costs.clone());
            executors.add(executor);
            CompletableFuture<Decision[]> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        /** Answers batch {@code i} as the owner would: applyAll on the stored state at one reading. */
        void answer(int i) {
            Outcome[] outcomes = RateLimitAlgorithms.applyAll(state, policy, batches.get(i), NOW);
            Decision[] decisions = new Decision[outcomes.length];
            for (int j = 0; j < outcomes.length; j++) {
                decisions[j] = outcomes[j].decision();
                state = outcomes[j].state();
            }
            answers.get(i).complete(decisions);
        }
    }

    @Test
    void queuedRequestsLeaveAsOneBatchInArrivalOrderAndGetSequentialDecisions() {
        FakeOwner owner = new FakeOwner();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, Runnable::run, 4);
        long[] costs = {3, 1, 4, 1, 5, 2, 1};
        List<CompletableFuture<Decision>> stages = new ArrayList<>();
        for (long cost : costs) {
            stages.add(coalescer.decide(policy, "k", cost, null));
        }
        // the first goes alone; the other six wait for it
        assertThat(owner.batches).hasSize(1);
        assertThat(owner.batches.get(0)).containsExactly(3);
        owner.answer(0);
        // at most maxBatch = 4 leave at once, in arrival order
        assertThat(owner.batches).hasSize(2);
        assertThat(owner.batches.get(1)).containsExactly(1, 4, 1, 5);
        owner.answer(1);
        assertThat(owner.batches).hasSize(3);
        assertThat(owner.batches.get(2)).containsExactly(2, 1);
        owner.answer(2);
        assertThat(coalescer.busyKeys()).isZero();

        // exactly the decisions of sequential application in arrival order at the same reading
        LimiterState state = null;
        for (int i = 0; i < costs.length; i++) {
            Outcome expected = RateLimitAlgorithms.apply(state, policy, costs[i], NOW);
            state = expected.state();
            assertThat(stages.get(i)).isCompletedWithValue(expected.decision());
        }
        // 3 + 1 + 4 + 1 admitted (9 of 10), 5 denied, 2 denied, 1 admitted: exactly the capacity
        assertThat(stages.stream().map(CompletableFuture::join).map(Decision::allowed))
                .containsExactly(true, true, true, true, false, false, true);
        assertThat(stages.get(6).join().remaining()).isZero();
    }

    @Test
    void differentKeysAndPoliciesAreNotCoalesced() {
        FakeOwner owner = new FakeOwner();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, Runnable::run,
                DecideProcessor.MAX_BATCH);
        Policy changed = Policy.builder("hot").tokenBucket(20, 1, Duration.ofHours(1)).build();
        coalescer.decide(policy, "a", 1, null);
        coalescer.decide(policy, "b", 1, null);
        coalescer.decide(changed, "a", 1, null); // same name and key, other parameters: its own slot
        assertThat(owner.batches).hasSize(3);
        assertThat(coalescer.busyKeys()).isEqualTo(3);
    }

    @Test
    void aFailureReachesEveryWaiterOfItsBatchAndTheNextBatchStillLeaves() {
        FakeOwner owner = new FakeOwner();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, Runnable::run,
                DecideProcessor.MAX_BATCH);
        CompletableFuture<Decision> first = coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> second = coalescer.decide(policy, "k", 2, null);
        CompletableFuture<Decision> third = coalescer.decide(policy, "k", 3, null);
        owner.answer(0);
        assertThat(first.join().remaining()).isEqualTo(9);
        assertThat(owner.batches.get(1)).containsExactly(2, 3);
        CompletableFuture<Decision> fourth = coalescer.decide(policy, "k", 4, null); // queued behind the failing batch
        IllegalStateException boom = new IllegalStateException("grid down");
        owner.answers.get(1).completeExceptionally(new CompletionException(boom));
        for (CompletableFuture<Decision> failed : List.of(second, third)) {
            assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class).cause().isSameAs(boom);
        }
        assertThat(owner.batches.get(2)).containsExactly(4);
        owner.answer(2);
        assertThat(fourth.join().allowed()).isTrue();
        assertThat(fourth.join().remaining()).isEqualTo(5); // the failed batch consumed nothing here
        assertThat(coalescer.busyKeys()).isZero();
    }

    @Test
    void aSenderThatThrowsFailsItsBatchOnly() {
        RuntimeException closed = new IllegalStateException("closed");
        int[] calls = new int[1];
        Coalescer coalescer = new Coalescer((p, k, costs, e) -> {
            calls[0]++;
            throw closed;
        }, CompletableFuture::new, Runnable::run, DecideProcessor.MAX_BATCH);
        CompletableFuture<Decision> stage = coalescer.decide(policy, "k", 1, null);
        assertThatThrownBy(stage::join).cause().isSameAs(closed);
        assertThat(calls[0]).isEqualTo(1);
        assertThat(coalescer.busyKeys()).isZero();
    }

    @Test
    void aWrongAnswerCountFailsTheBatch() {
        Coalescer coalescer = new Coalescer((p, k, costs, e) -> CompletableFuture.completedFuture(new Decision[0]),
                CompletableFuture::new, Runnable::run, DecideProcessor.MAX_BATCH);
        assertThatThrownBy(coalescer.decide(policy, "k", 1, null)::join).cause()
                .isInstanceOf(IllegalStateException.class).hasMessage("expected 1 decisions, got 0");
    }

    @Test
    void maxBatchIsChecked() {
        assertThatThrownBy(() -> new Coalescer((p, k, c, e) -> null, CompletableFuture::new, Runnable::run, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxBatch must be in [1, 1024], got 0");
        assertThatThrownBy(() -> new Coalescer((p, k, c, e) -> null, CompletableFuture::new, Runnable::run, 1025))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxBatch must be in [1, 1024], got 1025");
        assertThat(Arrays.asList(1, 1024)).allSatisfy(n ->
                assertThat(new Coalescer((p, k, c, e) -> null, CompletableFuture::new, Runnable::run, n).busyKeys())
                        .isZero());
    }

    @Test
    void fromHazelcastsResponseThreadTheNextBatchLeavesFromTheCallbackPool() throws InterruptedException {
        FakeOwner owner = new FakeOwner();
        List<Runnable> callbackPool = new ArrayList<>();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, callbackPool::add,
                DecideProcessor.MAX_BATCH);
        coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> queued = coalescer.decide(policy, "k", 2, null);
        // the first call answers on a thread named as Hazelcast names its response threads, where a send is refused
        Thread response = new Thread(() -> owner.answer(0), "hz.test-member.response-0");
        response.start();
        response.join();
        assertThat(owner.batches).hasSize(1);
        callbackPool.remove(0).run(); // the hand-off: the next batch leaves from the callback pool
        assertThat(owner.batches).hasSize(2);
        assertThat(owner.batches.get(1)).containsExactly(2);
        owner.answer(1);
        callbackPool.forEach(Runnable::run);
        assertThat(queued.join().remaining()).isEqualTo(10 - 1 - 2);
    }

    @Test
    void aBatchAnswersOnItsFirstRequestsExecutorAndHandsEveryOtherRequestToItsOwn() {
        FakeOwner owner = new FakeOwner();
        List<Runnable> callbackPool = new ArrayList<>();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, callbackPool::add,
                DecideProcessor.MAX_BATCH);
        List<Runnable> loopA = new ArrayList<>();
        List<Runnable> loopB = new ArrayList<>();
        Executor a = loopA::add;
        Executor b = loopB::add;
        Executor closed = task -> {
            throw new RejectedExecutionException("event loop shut down");
        };
        CompletableFuture<Decision> first = coalescer.decide(policy, "k", 1, a);
        CompletableFuture<Decision> sameLoop = coalescer.decide(policy, "k", 2, a);
        CompletableFuture<Decision> otherLoop = coalescer.decide(policy, "k", 3, b);
        CompletableFuture<Decision> pool = coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> gone = coalescer.decide(policy, "k", 1, closed);
        assertThat(owner.executors).containsExactly(a); // the lead request left alone, for its executor
        owner.answer(0);
        assertThat(first).isCompleted(); // completed where the batch answered (the fake completes inline)
        assertThat(owner.batches.get(1)).containsExactly(2, 3, 1, 1);
        assertThat(owner.executors.get(1)).isSameAs(a); // the next batch's first request is on loop a
        owner.answer(1);
        assertThat(sameLoop).isCompleted(); // same executor as the batch: inline
        assertThat(otherLoop).isNotDone(); // handed to loop b, which has not run yet
        assertThat(pool).isNotDone(); // no executor of its own: handed to the callback pool, never run on loop a
        assertThat(gone).isCompleted(); // its executor rejected: completed here rather than lost
        assertThat(loopA).isEmpty();
        assertThat(loopB).hasSize(1);
        assertThat(callbackPool).hasSize(1);
        loopB.get(0).run();
        callbackPool.get(0).run();
        assertThat(otherLoop.join().remaining()).isEqualTo(10 - 1 - 2 - 3);
        assertThat(pool.join().remaining()).isEqualTo(3);
        assertThat(gone.join().remaining()).isEqualTo(2);
        assertThat(coalescer.busyKeys()).isZero();
    }

    @Test
    void aQueuedRequestCancelledByItsCallerIsNeverSentAndConsumesNothing() {
        FakeOwner owner = new FakeOwner();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, Runnable::run,
                DecideProcessor.MAX_BATCH);
        CompletableFuture<Decision> lead = coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> timedOut = coalescer.decide(policy, "k", 5, null);
        CompletableFuture<Decision> alsoTimedOut = coalescer.decide(policy, "k", 4, null);
        CompletableFuture<Decision> waiting = coalescer.decide(policy, "k", 2, null);
        timedOut.cancel(false);
        alsoTimedOut.cancel(false);
        owner.answer(0);
        assertThat(lead.join().remaining()).isEqualTo(9);
        assertThat(owner.batches.get(1)).containsExactly(2); // the cancelled 5 and 4 never left
        owner.answer(1);
        assertThat(waiting.join().remaining()).isEqualTo(7);
        assertThat(timedOut).isCancelled();
        assertThat(coalescer.busyKeys()).isZero();

        CompletableFuture<Decision> next = coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> gone = coalescer.decide(policy, "k", 1, null);
        gone.cancel(false);
        owner.answer(2);
        assertThat(next.join().remaining()).isEqualTo(6);
        assertThat(owner.batches).hasSize(3); // only cancelled requests were queued: no call, the slot is removed
        assertThat(coalescer.busyKeys()).isZero();
    }

    @Test
    void anExecutorThatThrowsDoesNotStrandTheRestOfItsBatch() {
        FakeOwner owner = new FakeOwner();
        Coalescer coalescer = new Coalescer(owner::send, CompletableFuture::new, Runnable::run,
                DecideProcessor.MAX_BATCH);
        Executor broken = task -> {
            throw new IllegalStateException("broken executor");
        };
        coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> before = coalescer.decide(policy, "k", 1, null);
        CompletableFuture<Decision> onBroken = coalescer.decide(policy, "k", 1, broken);
        CompletableFuture<Decision> after = coalescer.decide(policy, "k", 1, null);
        owner.answer(0);
        owner.answer(1); // the batch answers where its first request completes; onBroken's executor throws
        assertThat(before.join().remaining()).isEqualTo(8);
        assertThat(onBroken.join().remaining()).isEqualTo(7); // completed in place
        assertThat(after.join().remaining()).isEqualTo(6); // not stranded behind the throw
    }
}
