package io.gridlimit.replay;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Hand-built log lines and a way to run the command line in process. */
final class Logs {
    /** 2026-01-01T00:00:00Z: a multiple of 30 s and of a minute since the epoch, so windows start there. */
    static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");
    private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private Logs() {
    }

    /** A combined line at BASE + seconds. */
    static String combined(String ip, long seconds, String method, String path, String userAgent) {
        return ip + " - - [" + CLF.format(BASE.plusSeconds(seconds)) + "] \"" + method + " " + path
                + " HTTP/1.1\" 200 512 \"-\" \"" + userAgent + "\"";
    }

    /** Seed 003's sliding-window-log table as a log: 1 at 0 s, 2 at 5 s, 2 at 15 s, 1 at 25 s, 1 at 35 s, 3 at 40 s. */
    static String seed003() {
        StringBuilder sb = new StringBuilder();
        for (long t : new long[] {0, 5, 5, 15, 15, 25, 35, 40, 40, 40}) {
            sb.append(combined("203.0.113.7", t, "GET", "/parking/spaces", "curl/8.5")).append('\n');
        }
        return sb.toString();
    }

    static Path resource(String name) {
        try {
            return Path.of(Logs.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What one in-process run printed. */
    record Result(int status, String out, String err) {
    }

    static Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ReplayMain.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.ISO_8859_1)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
