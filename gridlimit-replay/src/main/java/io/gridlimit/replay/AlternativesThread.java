package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

/**
 * Decides each policy alone ({@link Alternatives}, issue 24 §4) on a thread of its own while the replay's thread
 * decides the configuration (issue 24 §7): the two are independent once a request's key is known. Requests are
 * handed over ({@link HandOver}) in batches of {@value #BATCH} through a queue of at most {@value #QUEUED} batches
 * (the replay waits when the thread is behind), and decided in the order they were added, each at its own log time,
 * so every count is the one a single thread gives. The thread starts with the first full batch (a short log is
 * decided on the calling thread by {@link #finish()}). An error of the thread is thrown by the next {@link #add} or
 * by {@link #finish()}. Memory: at most {@code (QUEUED + 2) × BATCH} requests in flight. One caller thread at a time
 * (another may take over after a happens-before edge, as {@link Pipeline}'s reader and the replay's thread do); used
 * once.
 */
final class AlternativesThread implements AutoCloseable {
    /** Requests per hand-over. */
    static final int BATCH = 4096;
    /** Batches waiting at most. */
    static final int QUEUED = 16;

    /** One request of a policy alone: its alternatives, key, cost and log time (epoch nanoseconds). */
    private record Request(Alternatives alternatives, String key, long cost, long nowNanos) {
    }

    private final HandOver<Request> handOver = new HandOver<>(BATCH, QUEUED, "deciding each policy alone failed");
    private @Nullable Thread thread;

    /**
     * Adds one request of a policy alone.
     *
     * @param alternatives the policy's alternatives
     * @param key the key its rule resolved
     * @param cost the rule's cost
     * @param nowNanos the request's log time, epoch nanoseconds, not earlier than the one added before
     * @throws IllegalStateException after {@link #finish()} or {@link #close()}, or when the thread failed (the cause
     *     is its error)
     */
    void add(Alternatives alternatives, String key, long cost, long nowNanos) {
        if (handOver.add(new Request(alternatives, key, cost, nowNanos)) && thread == null) {
            Thread t = new Thread(this::run, "gridlimit-replay-alternatives");
            t.setDaemon(true);
            t.start();
            thread = t;
        }
    }

    /** @return whether {@link #finish()} or {@link #close()} has been called: no request can be added */
    boolean finished() {
        return handOver.ended() || handOver.closed();
    }

    /**
     * Decides every request added and stops the thread; the alternatives' counts are final afterwards. Idempotent.
     *
     * @throws IllegalStateException when the thread failed (the cause is its error), or when closed before
     *     finishing (the counts are then incomplete)
     * @throws RuntimeException as {@link Alternatives#decide} throws it, when no thread was started and the calling
     *     thread decides
     */
    void finish() {
        if (handOver.ended()) {
            handOver.check();
            return;
        }
        if (handOver.closed()) {
            throw new IllegalStateException("the alternatives were closed before every request was decided");
        }
        handOver.end();
        Thread t = thread;
        if (t == null) {
            handOver.drain(AlternativesThread::decide); // a short log: no batch was handed over
        } else {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the alternatives were decided", e);
            }
        }
        handOver.check();
    }

    /** Stops the thread without waiting for what it has not decided (after {@link #finish()}: nothing). Idempotent. */
    @Override
    public void close() {
        handOver.close();
    }

    /** The thread: decides every request handed over, in order, until the end or a close. */
    private void run() {
        try {
            handOver.drain(AlternativesThread::decide);
        } catch (RuntimeException | Error e) {
            // kept by the hand-over: the next add or finish throws it
        }
    }

    /** Decides one request by its policy alone, at its own log time. */
    private static void decide(Request r) {
        r.alternatives().decide(r.key(), r.cost(), r.nowNanos());
    }
}
