package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Hands items from one producer thread to one consumer thread in order (issue 24 §7): the producer {@link #add}s
 * them into a batch of {@code batchSize}; each full batch goes through a queue of at most {@code queued} batches (the
 * producer waits while it is full), and {@link #end} hands over the partial batch and an end marker. The consumer's
 * {@link #drain} gives every item to its action in the order added. Memory: at most {@code (queued + 2) × batchSize}
 * items in flight (the batch being filled, the queue's, the one being consumed).
 *
 * <p>Failures cross over. An error of the producer ({@link #fail}) is returned by {@link #drain} once the items added
 * before it are consumed. An error of the consumer's action (or an interrupt while the consumer waits) is thrown by
 * {@link #drain} and by the producer's next {@link #add}, {@link #end} or {@link #check}, as an
 * {@link IllegalStateException} whose cause is that error; the producer never waits for a consumer that has failed.
 * {@link #close} before the end stops the consumer at its next batch and refuses further items.
 *
 * <p>Thread-safety: {@link #add}, {@link #end}, {@link #fail} on one producer thread at a time (a thread may take over
 * from another after a happens-before edge, such as a join); {@link #drain} on one consumer thread, once;
 * {@link #close}, {@link #check}, {@link #ended}, {@link #closed} on any thread. A waiting producer is not
 * interruptible: it keeps its interrupt status and waits until the consumer takes a batch, fails, or is closed.
 *
 * @param <T> the items, handed over as they are (null included)
 */
final class HandOver<T> {
    /** How often, in milliseconds, a producer waiting for room checks whether the consumer failed or was closed. */
    private static final long POLL_MILLIS = 100;
    /** The end marker: nothing follows it. */
    private static final Object[] END = new Object[0];

    private final int batchSize;
    private final String consumerFailure;
    private final BlockingQueue<Object[]> queue;
    /** The batch being filled and its items, on the producer thread only. */
    private Object[] filling;
    private int size;
    private volatile boolean ended;
    private volatile boolean closed;
    /** Set before the end marker is handed over (the queue orders it before the consumer reads it). */
    private @Nullable Throwable producerError;
    private volatile @Nullable Throwable consumerError;

    /**
     * @param batchSize items per batch, at least 1
     * @param queued full batches waiting at most, at least 1
     * @param consumerFailure the start of the message the producer's exception gives when the consumer failed,
     *     before {@code ": "} and the consumer's error
     * @throws IllegalArgumentException if {@code batchSize} or {@code queued} is below 1
     */
    HandOver(int batchSize, int queued, String consumerFailure) {
        if (batchSize < 1 || queued < 1) {
            throw new IllegalArgumentException("batchSize and queued must be at least 1, not " + batchSize + " and "
                    + queued);
        }
        this.batchSize = batchSize;
        this.consumerFailure = consumerFailure;
        this.queue = new ArrayBlockingQueue<>(queued);
        this.filling = new Object[batchSize];
    }

    /**
     * Adds one item (producer thread); hands the batch over when it is full, waiting while the queue is full.
     *
     * @param item the next item
     * @return whether this item filled a batch that was handed over (the first time: the consumer has work)
     * @throws IllegalStateException after {@link #end}, {@link #fail} or {@link #close}, or when the consumer failed
     *     (the cause is its error)
     */
    boolean add(T item) {
        if (ended || closed) {
            throw new IllegalStateException("the hand-over has ended or is closed: nothing can be added");
        }
        check();
        filling[size++] = item;
        if (size < batchSize) {
            return false;
        }
        Object[] full = filling;
        filling = new Object[batchSize];
        size = 0;
        if (!put(full)) {
            check();
            throw new IllegalStateException("the hand-over was closed: nothing can be added");
        }
        return true;
    }

    /**
     * Ends the items (producer thread): hands over the partial batch, if any, and the end marker, waiting while the
     * queue is full. Hands nothing over once the consumer failed or the hand-over is closed. Idempotent.
     *
     * @throws IllegalStateException when the consumer has failed (the cause is its error)
     */
    void end() {
        if (!ended) {
            ended = true;
            handOverTheRest();
        }
        check();
    }

    /**
     * Ends the items with the producer's error (producer thread): hands over the partial batch and the end marker,
     * and {@link #drain} returns {@code error} after the items added before it. Does nothing after {@link #end} or
     * {@link #fail}, once the consumer failed (it has its own error), or once closed. Never throws.
     *
     * @param error why the producer stopped
     */
    void fail(Throwable error) {
        if (ended) {
            return;
        }
        ended = true;
        producerError = error;
        handOverTheRest();
    }

    /**
     * Gives every item to {@code action} in the order added (consumer thread), until the end marker or, after
     * {@link #close}, the next batch. Call it once.
     *
     * @param action consumes one item; an exception it throws stops the consumer and the producer
     * @return the producer's error given to {@link #fail}, or null when it called {@link #end} or the hand-over was
     *     closed
     * @throws RuntimeException as {@code action} throws it; {@link IllegalStateException} when interrupted while
     *     waiting for a batch (the interrupt status is kept)
     * @throws Error as {@code action} throws it
     */
    @SuppressWarnings("unchecked")
    @Nullable Throwable drain(Consumer<? super T> action) {
        try {
            while (true) {
                Object[] batch = take();
                if (closed) {
                    return null;
                }
                if (batch == END) {
                    return producerError;
                }
                for (Object item : batch) {
                    action.accept((T) item);
                }
            }
        } catch (RuntimeException | Error e) {
            consumerError = e;
            queue.clear(); // a producer waiting for room is let go, and sees the error
            throw e;
        }
    }

    /**
     * Stops the consumer at its next batch, without consuming the batches still queued, and refuses further items.
     * Any thread; idempotent. After the consumer has drained everything it changes nothing but {@link #closed()}.
     */
    void close() {
        closed = true;
        queue.clear();
        queue.offer(END); // wakes a waiting consumer; if a producer filled the room first, the consumer takes that
    }

    /**
     * @throws IllegalStateException when the consumer has failed: the message is the constructor's
     *     {@code consumerFailure}, {@code ": "} and the consumer's error, the cause that error
     */
    void check() {
        Throwable e = consumerError;
        if (e != null) {
            throw new IllegalStateException(consumerFailure + ": " + e, e);
        }
    }

    /** @return whether {@link #end} or {@link #fail} has been called */
    boolean ended() {
        return ended;
    }

    /** @return whether {@link #close} has been called */
    boolean closed() {
        return closed;
    }

    /** Hands over the partial batch, if any, then the end marker, unless the consumer failed or it was closed. */
    private void handOverTheRest() {
        Object[] partial = size == 0 ? null : Arrays.copyOf(filling, size);
        filling = END;
        size = 0;
        if (partial == null || put(partial)) {
            put(END);
        }
    }

    /**
     * Puts a batch on the queue, waiting while it is full (not interruptibly: the interrupt status is restored).
     *
     * @return true when put, false when the consumer failed or the hand-over was closed first
     */
    private boolean put(Object[] batch) {
        boolean interrupted = false;
        try {
            while (consumerError == null && !closed) {
                try {
                    if (queue.offer(batch, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                        return true;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @return the next batch, or {@link #END}, waiting for one
     * @throws IllegalStateException when interrupted while waiting (the interrupt status is kept)
     */
    private Object[] take() {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a hand-over", e);
        }
    }
}
