package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

/**
 * Parses Apache's Common Log Format and its Combined form (issue 24 §2, §3), by hand in one pass over the line
 * (no regular expression):
 * <pre>
 * 203.0.113.7 - frank [10/Oct/2000:13:55:36 -0700] "GET /a.gif?x=1 HTTP/1.0" 200 2326 "http://ref/" "agent/1.0"
 * </pre>
 * Required: the remote address (first field), the timestamp in brackets ({@code dd/MMM/yyyy:HH:mm:ss ±hhmm}, whole
 * seconds), a request line with a method and a target, and a 3-digit status; a line without one of them is
 * unparseable ({@code null}). Everything after the status is optional: bytes, and in combined the quoted referer
 * and user-agent, which may be missing or unterminated (an unterminated field runs to the end of the line). A
 * quoted field {@code "-"} is an absent header; inside quotes {@code \xhh} is the byte {@code hh} and {@code \c}
 * the character {@code c}. Lines are read one char per byte (ISO-8859-1), so a header value is the bytes logged. A
 * target in absolute form ({@code http://host/p}) gives its path; the query string is dropped. Stateless and
 * thread-safe.
 */
public final class ClfParser {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private ClfParser() {
    }

    /**
     * Parses one line.
     *
     * @param line the line without its line terminator
     * @param combined true to read the referer and user-agent fields of the combined format
     * @param lineNumber the line's number in its input, from 1
     * @param sequence the line's position over all inputs, from 0
     * @return the record, or null when the line lacks a remote address, timestamp, request line or status
     */
    public static @Nullable LogRecord parse(String line, boolean combined, long lineNumber, long sequence) {
        int n = line.length();
        int i = 0;
        while (i < n && line.charAt(i) == ' ') {
            i++;
        }
        int hostEnd = line.indexOf(' ', i);
        if (hostEnd <= i || (hostEnd == i + 1 && line.charAt(i) == '-')) {
            return null; // no remote address ("-")
        }
        String remote = line.substring(i, hostEnd);
        int open = line.indexOf('[', hostEnd);
        if (open < 0 || open + 28 > n || line.charAt(open + 27) != ']') {
            return null;
        }
        long seconds = timestamp(line, open + 1);
        if (seconds == Long.MIN_VALUE) {
            return null;
        }
        i = open + 28;
        if (i + 1 >= n || line.charAt(i) != ' ' || line.charAt(i + 1) != '"') {
            return null;
        }
        int reqStart = i + 2;
        int reqEnd = closingQuote(line, reqStart);
        if (reqEnd < 0) {
            return null;
        }
        int methodEnd = line.indexOf(' ', reqStart);
        if (methodEnd <= reqStart || methodEnd >= reqEnd) {
            return null;
        }
        int targetStart = methodEnd + 1;
        int targetEnd = line.indexOf(' ', targetStart);
        if (targetEnd < 0 || targetEnd > reqEnd) {
            targetEnd = reqEnd;
        }
        if (targetEnd == targetStart) {
            return null;
        }
        String path = path(line, targetStart, targetEnd);
        i = reqEnd + 1;
        if (i + 4 > n || line.charAt(i) != ' ') {
            return null;
        }
        int status = digit(line.charAt(i + 1)) * 100 + digit(line.charAt(i + 2)) * 10 + digit(line.charAt(i + 3));
        if (status < 0 || (i + 4 < n && line.charAt(i + 4) != ' ')) {
            return null;
        }
        if (combined) {
            i = line.indexOf('"', i + 4);
            long referer = -1;
            long agent = -1;
            if (i >= 0) {
                int end = closingQuote(line, i + 1);
                referer = field(i + 1, end < 0 ? n : end);
                if (end >= 0) {
                    int next = line.indexOf('"', end + 1);
                    if (next >= 0) {
                        int agentEnd = closingQuote(line, next + 1);
                        agent = field(next + 1, agentEnd < 0 ? n : agentEnd);
                    }
                }
            }
            return new LogRecord(lineNumber, sequence, seconds * NANOS_PER_SECOND, remote, method(line, reqStart,
                    methodEnd), path, status, line, referer, agent);
        }
        return new LogRecord(lineNumber, sequence, seconds * NANOS_PER_SECOND, remote, method(line, reqStart,
                methodEnd), path, status, null);
    }

    /** The index of the quote closing a field opened before {@code from}, skipping {@code \x} escapes; or -1. */
    private static int closingQuote(String line, int from) {
        int quote = line.indexOf('"', from);
        int escape = line.indexOf('\\', from);
        if (escape < 0 || (quote >= 0 && escape > quote)) {
            return quote; // no escape before the first quote: it closes the field
        }
        for (int i = escape; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i;
            }
        }
        return -1;
    }

    /** A field's start and end, as {@link LogRecord} holds them. */
    private static long field(int from, int to) {
        return ((long) from << 32) | to;
    }

    /** The common methods' own strings (no copy per line), else the method as written. */
    private static String method(String line, int from, int to) {
        String m = switch (to - from) {
            case 3 -> line.charAt(from) == 'G' ? "GET" : line.charAt(from) == 'P' ? "PUT" : null;
            case 4 -> line.charAt(from) == 'P' ? "POST" : line.charAt(from) == 'H' ? "HEAD" : null;
            case 5 -> "PATCH";
            case 6 -> "DELETE";
            case 7 -> "OPTIONS";
            default -> null;
        };
        return m != null && line.startsWith(m, from) ? m : line.substring(from, to);
    }

    /** A quoted field's value with escapes removed; null for {@code -} or empty (the header was absent). */
    static @Nullable String unquote(String line, int from, int to) {
        if (to <= from || (to == from + 1 && line.charAt(from) == '-')) {
            return null;
        }
        if (line.indexOf('\\', from) < 0 || line.indexOf('\\', from) >= to) {
            return line.substring(from, to);
        }
        StringBuilder sb = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 3 < to && line.charAt(i + 1) == 'x' && Character.digit(line.charAt(i + 2), 16) >= 0
                    && Character.digit(line.charAt(i + 3), 16) >= 0) {
                // Apache's escape of a byte it would not print: the byte itself (one char per byte, ISO-8859-1)
                c = (char) (Character.digit(line.charAt(i + 2), 16) * 16 + Character.digit(line.charAt(i + 3), 16));
                i += 3;
            } else if (c == '\\' && i + 1 < to) {
                c = line.charAt(++i);
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /** The path of a request target: absolute form reduced to its path, query string dropped. */
    static String path(String line, int from, int to) {
        int start = from;
        if (line.charAt(from) == 'h' && (line.startsWith("http://", from) || line.startsWith("https://", from))) {
            int authority = line.indexOf("//", from) + 2;
            int slash = line.indexOf('/', authority);
            start = slash < 0 || slash >= to ? to : slash;
        }
        int q = line.indexOf('?', start);
        int end = q < 0 || q > to ? to : q;
        return end <= start ? "/" : line.substring(start, end);
    }

    private static int digit(char c) {
        return c >= '0' && c <= '9' ? c - '0' : -1000;
    }

    private static int number(String s, int at, int len) {
        int v = 0;
        for (int k = 0; k < len; k++) {
            int d = digit(s.charAt(at + k));
            if (d < 0) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** {@code dd/MMM/yyyy:HH:mm:ss ±hhmm} at {@code at} as epoch seconds, or {@link Long#MIN_VALUE}. */
    static long timestamp(String s, int at) {
        int day = number(s, at, 2);
        int month = month(s, at + 3);
        int year = number(s, at + 7, 4);
        int hour = number(s, at + 12, 2);
        int minute = number(s, at + 15, 2);
        int second = number(s, at + 18, 2);
        char sign = s.charAt(at + 21);
        int zh = number(s, at + 22, 2);
        int zm = number(s, at + 24, 2);
        if (s.charAt(at + 2) != '/' || s.charAt(at + 6) != '/' || s.charAt(at + 11) != ':'
                || s.charAt(at + 14) != ':' || s.charAt(at + 17) != ':' || s.charAt(at + 20) != ' '
                || (sign != '+' && sign != '-') || day < 1 || day > 31 || month < 0 || year < 0 || hour < 0
                || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60 || zh < 0 || zh > 18
                || zm < 0 || zm > 59) {
            return Long.MIN_VALUE;
        }
        long days = daysFromCivil(year, month + 1, day);
        long offset = (zh * 3600L + zm * 60L) * (sign == '+' ? 1 : -1);
        return days * 86_400L + hour * 3600L + minute * 60L + second - offset;
    }

    private static final String MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

    /** The month of its English three-letter name at {@code at} (as Apache writes it), 0 for January; or -1. */
    private static int month(String s, int at) {
        int m = switch (s.charAt(at)) {
            case 'J' -> s.charAt(at + 1) == 'a' ? 0 : s.charAt(at + 2) == 'n' ? 5 : 6;
            case 'F' -> 1;
            case 'M' -> s.charAt(at + 2) == 'r' ? 2 : 4;
            case 'A' -> s.charAt(at + 1) == 'p' ? 3 : 7;
            case 'S' -> 8;
            case 'O' -> 9;
            case 'N' -> 10;
            case 'D' -> 11;
            default -> -1;
        };
        return m >= 0 && s.regionMatches(at, MONTHS, m * 3, 3) ? m : -1;
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
    static long daysFromCivil(long y, int m, int d) {
        y -= m <= 2 ? 1 : 0;
        long era = (y >= 0 ? y : y - 399) / 400;
        long yoe = y - era * 400;
        long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097 + doe - 719_468;
    }
}
