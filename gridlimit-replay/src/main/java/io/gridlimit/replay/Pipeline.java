package io.gridlimit.replay;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Reads and decides on two threads (issue 24 §7): a reader thread reads, parses and orders the log (what
 * {@link Source} does: {@link LogReader} into the {@link ReorderWindow}), and in a replay run also prepares each
 * ordered record ({@link Replayer#prepare}, called by {@link ReplayMain}'s source: its routes, its keys, and the
 * hand-over to each policy alone on {@link AlternativesThread}); it hands the records over ({@link HandOver}) in
 * batches of {@value #BATCH} through a queue of at most {@value #QUEUED} batches, and the calling thread decides them
 * in that order. Memory: at most {@code (QUEUED + 2) × BATCH} records in flight besides the window's. The order of
 * the records, and so every decision, is the one a single thread gives. An error of the reader (an input that cannot
 * be read) is thrown on the calling thread once the records read before it are decided; an error of the decider
 * stops the reader at its next record. Used once.
 */
final class Pipeline {
    /** Records per hand-over. */
    static final int BATCH = 4096;
    /** Batches waiting at most. */
    static final int QUEUED = 16;

    /** What the reader thread runs: reads every input into {@link #sink()}, in replay order. */
    @FunctionalInterface
    interface Source {
        /** @throws IOException if an input cannot be read */
        void read() throws IOException;
    }

    private final HandOver<LogRecord> handOver = new HandOver<>(BATCH, QUEUED, "deciding the replay failed");

    /**
     * @return where the reader thread's source hands its records, in replay order (call it on that thread only); it
     *     throws {@link IllegalStateException} once the decider has failed, which stops the reader
     */
    Consumer<LogRecord> sink() {
        return handOver::add;
    }

    /**
     * Runs {@code source} on a reader thread and hands each record it gives {@link #sink()} to {@code decide} on the
     * calling thread. Call it once.
     *
     * @param source reads the log in replay order into {@link #sink()}
     * @param decide decides one record
     * @throws IOException as {@code source} throws it, once the records it gave before are decided
     * @throws RuntimeException as {@code source} or {@code decide} throws it; {@link IllegalStateException} when
     *     interrupted while waiting for the reader
     */
    void run(Source source, Consumer<LogRecord> decide) throws IOException {
        Thread reader = new Thread(() -> read(source), "gridlimit-replay-reader");
        reader.setDaemon(true);
        reader.start();
        Throwable e;
        try {
            e = handOver.drain(decide);
        } finally {
            join(reader); // after an error of the decider, the reader stops at its next record
        }
        if (e instanceof IOException io) {
            throw io;
        } else if (e instanceof RuntimeException re) {
            throw re;
        } else if (e instanceof Error err) {
            throw err;
        } else if (e != null) {
            throw new IllegalStateException("reading the log failed: " + e, e);
        }
    }

    /** The reader thread: hands over what {@code source} reads, then the end, or its error. */
    private void read(Source source) {
        try {
            source.read();
            handOver.end();
        } catch (Throwable e) {
            handOver.fail(e); // nothing, when it is the decider's error coming back: run throws that one
        }
    }

    /** Waits for the reader to stop; an interrupt ends the wait, and the interrupt status is kept. */
    private static void join(Thread reader) {
        try {
            reader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
