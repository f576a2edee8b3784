package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Decides each policy alone ({@link Alternatives}, issue 24 §4) on a thread of its own while the replay's thread
 * decides the configuration (issue 24 §7): the two are independent once a request's key is known. Requests are
 * handed over in batches of {@value #BATCH} through a queue of at most {@value #QUEUED} batches (the replay waits
 * when the thread is behind), and decided in the order they were added, each at its own log time, so every count is
 * the one a single thread gives. The thread starts with the first full batch (a short log is decided on the calling
 * thread by {@link #finish()}). An error of the thread is thrown by the next {@link #add} or by {@link #finish()}.
 * Memory: at most {@code (QUEUED + 2) × BATCH} requests in flight. One caller thread; used once.
 */
final class AlternativesThread implements AutoCloseable {
    /** Requests per hand-over. */
    static final int BATCH = 4096;
    /** Batches waiting at most. */
    static final int QUEUED = 16;

    /** One hand-over: the policy alone, key, cost and log time of each request, in order. */
    private static final class Batch {
        final Alternatives[] alternatives = new Alternatives[BATCH];
        final String[] keys = new String[BATCH];
        final long[] costs = new long[BATCH];
        final long[] nanos = new long[BATCH];
        int size;

        void decide() {
            for (int i = 0; i < size; i++) {
                alternatives[i].decide(keys[i], costs[i], nanos[i]);
            }
        }
    }

    private static final Batch END = new Batch();

    private final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(QUEUED);
    private Batch filling = new Batch();
    private @Nullable Thread thread;
    private volatile @Nullable Throwable error;
    private boolean finished;
    private boolean closed;

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
        if (finished || closed) {
            throw new IllegalStateException("the alternatives are finished or closed: no request can be added");
        }
        Batch b = filling;
        int i = b.size++;
        b.alternatives[i] = alternatives;
        b.keys[i] = key;
        b.costs[i] = cost;
        b.nanos[i] = nowNanos;
        if (b.size == BATCH) {
            if (thread == null) {
                Thread t = new Thread(this::run, "gridlimit-replay-alternatives");
                t.setDaemon(true);
                t.start();
                thread = t;
            }
            put(b);
            filling = new Batch();
        }
    }

    /**
     * Decides every request added and stops the thread; the alternatives' counts are final afterwards. Idempotent.
     *
     * @throws IllegalStateException when the thread failed (the cause is its error), or when closed before
     *     finishing (the counts are then incomplete)
     */
    void finish() {
        if (finished) {
            rethrow();
            return;
        }
        if (closed) {
            throw new IllegalStateException("the alternatives were closed before every request was decided");
        }
        finished = true;
        if (thread == null) {
            filling.decide();
        } else {
            put(filling);
            put(END);
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the alternatives were decided", e);
            }
        }
        filling = END;
        rethrow();
    }

    /** Stops the thread without waiting for what it has not decided (after {@link #finish()}: nothing). Idempotent. */
    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null && !finished) {
            t.interrupt();
        }
    }

    private void run() {
        try {
            while (true) {
                Batch b = queue.take();
                if (b == END) {
                    return;
                }
                b.decide();
            }
        } catch (InterruptedException e) {
            // closed
        } catch (Throwable e) {
            error = e;
        }
    }

    private void put(Batch b) {
        try {
            while (!queue.offer(b, 100, TimeUnit.MILLISECONDS)) {
                rethrow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the alternatives were handed over", e);
        }
        rethrow();
    }

    private void rethrow() {
        Throwable e = error;
        if (e != null) {
            throw new IllegalStateException("deciding each policy alone failed: " + e, e);
        }
    }
}
