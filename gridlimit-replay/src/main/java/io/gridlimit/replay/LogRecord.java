package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One request read from an access log (issue 24 §2): what the replay decides on. Created by {@link ClfParser} or
 * {@link JsonLinesParser}; its time may be moved forward once, to the reorder window's edge
 * ({@link ReorderWindow}). Not thread-safe.
 */
public final class LogRecord {
    private final long lineNumber;
    private final long sequence;
    private long timeNanos;
    private final String remote;
    private final String method;
    private final String path;
    private final int status;
    private final @Nullable Map<String, List<String>> headers;
    private final @Nullable String line;
    /** Where the combined format's quoted fields lie in {@link #line}: start in the high, end in the low 32 bits. */
    private final long referer;
    private final long userAgent;
    /**
     * What the replay worked out for this record before deciding it ({@link Replayer#prepare}), handed from the
     * reader thread with the record; null before and after.
     */
    @Nullable Replayer.Prepared prepared;

    /**
     * @param lineNumber the line's number in its input, from 1
     * @param sequence the line's position over all inputs, from 0 (ties of equal times keep this order)
     * @param timeNanos the request's time in epoch nanoseconds
     * @param remote the remote address as written (an IP address, or a host name when the server looked it up)
     * @param method the HTTP method as written
     * @param path the path without query string, as written
     * @param status the response status, in [0, 999]
     * @param headers recorded headers by lower-case name (each header's lines in order), or null for none
     */
    public LogRecord(long lineNumber, long sequence, long timeNanos, String remote, String method, String path,
                     int status, @Nullable Map<String, List<String>> headers) {
        this(lineNumber, sequence, timeNanos, remote, method, path, status, headers, null, -1, -1);
    }

    /**
     * A record of the combined format, whose only recorded headers are {@code Referer} and {@code User-Agent}: it
     * holds its line and where the two quoted fields lie, and unquotes one only when it is asked for
     * ({@link ClfParser#unquote}: {@code "-"} or an empty field is no header).
     *
     * @param lineNumber the line's number in its input, from 1
     * @param sequence the line's position over all inputs, from 0 (ties of equal times keep this order)
     * @param timeNanos the request's time in epoch nanoseconds
     * @param remote the remote address as written
     * @param method the HTTP method as written
     * @param path the path without query string, as written
     * @param status the response status, in [0, 999]
     * @param line the whole line
     * @param referer the {@code Referer} field's start and end in {@code line} (after its opening quote, at its
     *     closing quote or the line's end), or {@code -1} when the line has none
     * @param userAgent the {@code User-Agent} field's start and end as {@code referer}, or {@code -1}
     */
    LogRecord(long lineNumber, long sequence, long timeNanos, String remote, String method, String path, int status,
              String line, long referer, long userAgent) {
        this(lineNumber, sequence, timeNanos, remote, method, path, status, null, line, referer, userAgent);
    }

    private LogRecord(long lineNumber, long sequence, long timeNanos, String remote, String method, String path,
                      int status, @Nullable Map<String, List<String>> headers, @Nullable String line, long referer,
                      long userAgent) {
        this.lineNumber = lineNumber;
        this.sequence = sequence;
        this.timeNanos = timeNanos;
        this.remote = remote;
        this.method = method;
        this.path = path;
        this.status = status;
        this.headers = headers;
        this.line = line;
        this.referer = referer;
        this.userAgent = userAgent;
    }

    /** @return the line's number in its input, from 1 */
    public long lineNumber() {
        return lineNumber;
    }

    /** @return the line's position over all inputs, from 0 */
    public long sequence() {
        return sequence;
    }

    /** @return the time the request is replayed at, in epoch nanoseconds */
    public long timeNanos() {
        return timeNanos;
    }

    /** @param nanos the time the request is replayed at instead (the reorder window's edge), epoch nanoseconds */
    void moveTo(long nanos) {
        this.timeNanos = nanos;
    }

    /** @return the remote address as written */
    public String remote() {
        return remote;
    }

    /** @return the HTTP method as written */
    public String method() {
        return method;
    }

    /** @return the path without query string */
    public String path() {
        return path;
    }

    /** @return the response status */
    public int status() {
        return status;
    }

    /**
     * @param name a header name in any case
     * @return the header's recorded lines, empty when the log does not record it or the request had none
     */
    public List<String> header(String name) {
        if (headers == null) {
            long field = name.equalsIgnoreCase("referer") ? referer
                    : name.equalsIgnoreCase("user-agent") ? userAgent : -1;
            String value = field < 0 ? null : ClfParser.unquote(line, (int) (field >>> 32), (int) field);
            return value == null ? List.of() : List.of(value);
        }
        List<String> lines = headers.get(name.toLowerCase(Locale.ROOT));
        return lines == null ? List.of() : lines;
    }
}
