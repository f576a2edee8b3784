package io.gridlimit.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bounds the asynchronous decisions one benchmark thread keeps in flight to {@value #PERMITS}: an operation
 * takes a permit before it submits and its completion gives it back, so a thread submits as fast as decisions
 * complete and never queues without bound. Throughput counts submissions; at most {@value #PERMITS} per thread
 * are still in flight when an iteration ends, and they are waited for before the next one starts.
 *
 * <p>A failed decision is kept and rethrown at the end of the iteration, so a broken path cannot pass for a
 * fast one. Each decision's latency from submission to completion goes to the trial's {@link AsyncLatency}
 * (measured iterations only): two {@code System.nanoTime()} reads and one histogram update per decision, which
 * every asynchronous row, peers included, pays alike. Per JMH thread ({@link Scope#Thread}); {@link #track} may
 * be completed from any thread.
 */
@State(Scope.Thread)
public class InFlight {
    /** Decisions one benchmark thread keeps in flight at most. */
    public static final int PERMITS = 64;

    private static final Executor DIRECT = Runnable::run;

    private final Semaphore permits = new Semaphore(PERMITS);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private AsyncLatency latency;
    private long startNanos = -1;

    /**
     * Connects this thread's permits to the trial's latency recorder.
     *
     * @param trialLatency the trial's recorder
     */
    @Setup(Level.Trial)
    public void attach(AsyncLatency trialLatency) {
        this.latency = trialLatency;
    }

    /**
     * Blocks until a decision may be submitted, then starts its latency clock. Call just before submitting, then
     * pass the stage to {@link #track} (or call {@link #release} if the submission throws).
     */
    public void acquire() {
        permits.acquireUninterruptibly();
        startNanos = latency == null ? -1 : latency.submitting();
    }

    /**
     * Returns the permit when {@code stage} completes; records its failure, if any. The callback runs on the
     * thread that completes the stage (a direct executor): Hazelcast's own futures run even a non-async
     * {@code whenComplete} on their default executor, which is a new thread per task when the common ForkJoin pool
     * has parallelism 1 (2 CPUs or fewer); the harness must not add that cost to any peer.
     *
     * @param stage the submitted decision
     * @param <T> the result type
     * @return {@code stage}, for the benchmark to return to JMH
     */
    public <T> CompletionStage<T> track(CompletionStage<T> stage) {
        long start = startNanos;
        AsyncLatency recorder = latency;
        stage.whenCompleteAsync((result, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
            if (recorder != null) {
                recorder.completed(start, error != null);
            }
            permits.release();
        }, DIRECT);
        return stage;
    }

    /**
     * Returns the permit of a decision whose submission threw.
     */
    public void release() {
        if (latency != null) {
            latency.abandoned();
        }
        permits.release();
    }

    /**
     * Waits for every decision still in flight and fails the iteration if any decision failed.
     *
     * @throws IllegalStateException carrying the first failure
     */
    @TearDown(Level.Iteration)
    public void drain() {
        permits.acquireUninterruptibly(PERMITS);
        permits.release(PERMITS);
        Throwable first = failure.getAndSet(null);
        if (first != null) {
            throw new IllegalStateException("an asynchronous decision failed", first);
        }
    }
}
