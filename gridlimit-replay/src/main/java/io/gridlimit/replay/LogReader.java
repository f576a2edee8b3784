package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import io.micronaut.core.annotation.Nullable;

/**
 * Reads the inputs in order as one log (issue 24 §1, §3): {@code -} is standard input, a name ending in {@code .gz}
 * is gunzipped; lines are read one char per byte (ISO-8859-1), so no byte is ever refused or replaced. Blank lines
 * are skipped; every other line is parsed and handed to the reorder window, or counted as unparseable with its
 * place kept (the first {@value #KEPT_LINES}). Every 2^20 lines a progress line goes to standard error: lines,
 * lines/s, share of the input files read. Not thread-safe.
 */
public final class LogReader {
    /** How many unparseable lines' places are kept for the report. */
    public static final int KEPT_LINES = 10;
    private static final int PROGRESS_EVERY = 1 << 20;

    private final LogFormat format;
    private final ReorderWindow window;
    private final InputStream stdin;
    private final PrintStream progress;
    private long lines;
    private long sequence;
    private long bad;
    private final List<String> badLines = new ArrayList<>();

    /**
     * @param format the log format
     * @param window receives the parsed records in file order
     * @param stdin what {@code -} reads
     * @param progress where progress lines go (standard error)
     */
    public LogReader(LogFormat format, ReorderWindow window, InputStream stdin, PrintStream progress) {
        this.format = format;
        this.window = window;
        this.stdin = stdin;
        this.progress = progress;
    }

    /**
     * Reads every input, in order.
     *
     * @param inputs file names, or {@code -}
     * @throws IOException if an input cannot be opened or read (the message names it)
     */
    public void read(List<String> inputs) throws IOException {
        long total = 0;
        for (String name : inputs) {
            if (!name.equals("-") && !Files.isRegularFile(Path.of(name))) {
                throw new IOException("--log: '" + name + "' does not exist or is not a file");
            }
            total += name.equals("-") ? 0 : Files.size(Path.of(name));
        }
        long startNanos = System.nanoTime(); // progress only: never in a decision
        long doneBytes = 0;
        for (String name : inputs) {
            try (CountingStream counted = new CountingStream(name.equals("-") ? stdin
                    : Files.newInputStream(Path.of(name)));
                 InputStream in = name.endsWith(".gz") ? new GZIPInputStream(counted, 1 << 16) : counted) {
                String label = name.equals("-") ? "stdin" : name;
                Lines text = new Lines(in);
                long number = 0;
                String line;
                while ((line = text.next()) != null) {
                    number++;
                    if (line.isBlank()) {
                        continue;
                    }
                    lines++;
                    LogRecord r = format.parse(line, number, sequence++);
                    if (r == null) {
                        bad++;
                        if (badLines.size() < KEPT_LINES) {
                            badLines.add(label + ":" + number);
                        }
                    } else {
                        window.add(r, label);
                    }
                    if (lines % PROGRESS_EVERY == 0) {
                        long seconds = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000);
                        progress.printf("replay: %,d lines, %,d lines/s, %s of the input read%n", lines,
                                lines * 1000 / seconds, total == 0 ? "?" : (doneBytes + counted.count) * 100 / total
                                        + "%");
                    }
                }
                doneBytes += counted.count;
            } catch (java.nio.file.NoSuchFileException e) {
                throw new IOException("--log: '" + name + "' does not exist", e);
            } catch (java.util.zip.ZipException e) {
                throw new IOException("--log: '" + name + "' is not gzip: " + e.getMessage(), e);
            }
        }
        window.flush();
    }

    /** @return non-blank lines read */
    public long lines() {
        return lines;
    }

    /** @return unparseable lines */
    public long bad() {
        return bad;
    }

    /** @return where the first unparseable lines are ({@code file:line}), at most {@value #KEPT_LINES} */
    public List<String> badLines() {
        return List.copyOf(badLines);
    }

    /** Counts the bytes read from a stream (for the share of the input read). */
    /**
     * The lines of a stream, one char per byte (ISO-8859-1), ended as {@link java.io.BufferedReader#readLine} ends
     * them ({@code \n}, {@code \r} or {@code \r\n}; the last line needs no end), read in blocks of 64 KiB: no
     * charset decoder, one copy per line. Not thread-safe.
     */
    static final class Lines {
        private final InputStream in;
        private byte[] buf = new byte[1 << 16];
        private int pos;
        private int limit;
        private boolean eof;
        /** A {@code \r} ended the last line: a {@code \n} right after it ends nothing. */
        private boolean afterCr;

        Lines(InputStream in) {
            this.in = in;
        }

        /** @return the next line without its end, or null at the end of the stream */
        @Nullable String next() throws IOException {
            if (afterCr) {
                afterCr = false;
                if (pos == limit && !eof && !fill()) {
                    eof = true;
                }
                if (pos < limit && buf[pos] == '\n') {
                    pos++;
                }
            }
            int scanned = 0; // bytes from pos known to hold no line end
            while (true) {
                for (int i = pos + scanned; i < limit; i++) {
                    byte b = buf[i];
                    if (b == '\n' || b == '\r') {
                        String line = new String(buf, pos, i - pos, StandardCharsets.ISO_8859_1);
                        afterCr = b == '\r';
                        pos = i + 1;
                        return line;
                    }
                }
                scanned = limit - pos;
                if (eof || !fill()) {
                    eof = true;
                    if (pos < limit) {
                        String line = new String(buf, pos, limit - pos, StandardCharsets.ISO_8859_1);
                        pos = limit;
                        return line;
                    }
                    return null;
                }
            }
        }

        /** Moves the unread bytes to the front (growing the buffer for a long line) and reads more. */
        private boolean fill() throws IOException {
            int kept = limit - pos;
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, kept);
            } else if (kept == buf.length) {
                buf = java.util.Arrays.copyOf(buf, buf.length * 2);
            }
            pos = 0;
            limit = kept;
            int n = in.read(buf, limit, buf.length - limit);
            if (n <= 0) {
                return false;
            }
            limit += n;
            return true;
        }
    }

    private static final class CountingStream extends BufferedInputStream {
        long count;

        CountingStream(InputStream in) {
            super(in, 1 << 16);
        }

        @Override
        public synchronized int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
