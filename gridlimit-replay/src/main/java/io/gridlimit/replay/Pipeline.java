package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * Reads and decides on two threads (issue 24 §7): a reader thread reads, parses and orders the log (what
 * {@link Source} does: {@link LogReader} into the {@link ReorderWindow}) and hands the ordered records over in
 * batches of {@value #BATCH} through a queue of at most {@value #QUEUED} batches; the calling thread decides them in
 * that order. Memory: at most {@code (QUEUED + 2) × BATCH} records in flight besides the window's. The order of the
 * records, and so every decision, is the one a single thread gives. An error of the reader (an input that cannot be
 * read) is thrown on the calling thread once the records read before it are decided; an error of the decider stops
 * the reader. Used once.
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

    private static final LogRecord[] END = new LogRecord[0];

    private final BlockingQueue<LogRecord[]> queue = new ArrayBlockingQueue<>(QUEUED);
    private volatile @Nullable Throwable readerError;
    private volatile boolean stopped;
    /** The batch being filled, on the reader thread only. */
    private LogRecord[] batch = new LogRecord[BATCH];
    private int size;

    /** @return where the reader thread's source hands its records, in replay order (call it on that thread only) */
    Consumer<LogRecord> sink() {
        return r -> {
            batch[size++] = r;
            if (size == BATCH) {
                put(batch);
                batch = new LogRecord[BATCH];
                size = 0;
            }
        };
    }

    /**
     * Runs {@code source} on a reader thread and hands each record it gives {@link #sink()} to {@code decide} on the
     * calling thread. Call it once.
     *
     * @param source reads the log in replay order into {@link #sink()}
     * @param decide decides one record
     * @throws IOException as {@code source} throws it
     */
    void run(Source source, Consumer<LogRecord> decide) throws IOException {
        Thread reader = new Thread(() -> read(source), "gridlimit-replay-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            while (true) {
                LogRecord[] batch = take();
                if (batch == END) {
                    break;
                }
                for (LogRecord r : batch) {
                    if (r == null) {
                        break;
                    }
                    decide.accept(r);
                }
            }
        } finally {
            stopped = true;
            queue.clear(); // a reader waiting to put is let go, and sees stopped
            join(reader);
        }
        Throwable e = readerError;
        if (e instanceof IOException io) {
            throw io;
        } else if (e instanceof RuntimeException re) {
            throw re;
        } else if (e instanceof Error err) {
            throw err;
        }
    }

    private void read(Source source) {
        try {
            source.read();
            if (size > 0) {
                put(batch); // ends at its first null
            }
        } catch (Stopped e) {
            return;
        } catch (Throwable e) {
            readerError = e;
        }
        try {
            put(END);
        } catch (Stopped e) {
            // the decider has stopped already
        }
    }

    private void put(LogRecord[] batch) {
        try {
            while (!queue.offer(batch, 100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (stopped) {
                    throw new Stopped();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stopped();
        }
    }

    private LogRecord[] take() {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while replaying", e);
        }
    }

    private static void join(Thread reader) {
        try {
            reader.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The decider stopped: the reader ends without reading further. */
    private static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped() {
            super(null, null, false, false);
        }
    }
}
