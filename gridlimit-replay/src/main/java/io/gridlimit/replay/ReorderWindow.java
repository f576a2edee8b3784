package io.gridlimit.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Puts log lines back in timestamp order through a bounded window of log time (issue 24 §3): servers write a line
 * when the request completes, so lines come out of order by up to the longest request. A record is released once
 * the latest time seen is at least {@code window} past it; records of equal time leave in file order (stable). A
 * record earlier than the window's edge (the latest time seen minus the window) is <em>late</em>: it is counted,
 * its line number kept (the first {@value #KEPT_LINES}), and it is replayed at the edge, never dropped. Released
 * times therefore never decrease. Memory: the records of one window. Not thread-safe.
 */
public final class ReorderWindow {
    /** How many late lines' numbers are kept for the report. */
    public static final int KEPT_LINES = 10;

    private final long windowNanos;
    private final Consumer<LogRecord> out;
    private final PriorityQueue<LogRecord> held = new PriorityQueue<>((a, b) -> a.timeNanos() != b.timeNanos()
            ? Long.compare(a.timeNanos(), b.timeNanos()) : Long.compare(a.sequence(), b.sequence()));
    private long latestNanos = Long.MIN_VALUE;
    private long late;
    private final List<String> lateLines = new ArrayList<>();

    /**
     * @param windowNanos the window in nanoseconds of log time, >= 0 (0: every earlier line is late)
     * @param out receives the records in replay order
     * @throws IllegalArgumentException if {@code windowNanos} is negative
     */
    public ReorderWindow(long windowNanos, Consumer<LogRecord> out) {
        if (windowNanos < 0) {
            throw new IllegalArgumentException("the reorder window must not be negative, got " + windowNanos + " ns");
        }
        this.windowNanos = windowNanos;
        this.out = out;
    }

    /**
     * Takes one record in file order and releases what the window lets go.
     *
     * @param r the record
     * @param input how the report names the record's input, e.g. {@code access.log} (a late line is named
     *     {@code access.log:17}, with its {@linkplain LogRecord#lineNumber() line number})
     */
    public void add(LogRecord r, String input) {
        if (r.timeNanos() > latestNanos) {
            latestNanos = r.timeNanos();
        }
        long edge = latestNanos < Long.MIN_VALUE + windowNanos ? Long.MIN_VALUE : latestNanos - windowNanos;
        if (r.timeNanos() < edge) {
            late++;
            if (lateLines.size() < KEPT_LINES) {
                lateLines.add(input + ":" + r.lineNumber());
            }
            r.moveTo(edge);
        }
        held.add(r);
        while (!held.isEmpty() && held.peek().timeNanos() <= edge) {
            out.accept(held.poll());
        }
    }

    /** Releases every record still held, in order (the end of the input). */
    public void flush() {
        while (!held.isEmpty()) {
            out.accept(held.poll());
        }
    }

    /** @return how many records came later than the window and were replayed at its edge */
    public long late() {
        return late;
    }

    /** @return where the first late records were, in input order, at most {@value #KEPT_LINES} */
    public List<String> lateLines() {
        return List.copyOf(lateLines);
    }
}
