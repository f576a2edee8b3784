package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The log parsers: what makes a line a request, and what each field becomes. */
class ParsersTest {
    private static final long T = Instant.parse("2000-10-10T20:55:36Z").getEpochSecond() * 1_000_000_000L;

    @Test
    void combinedLineWithEveryField() {
        LogRecord r = ClfParser.parse("127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET http://h/a.gif?x=1 "
                + "HTTP/1.0\" 200 2326 \"http://ref/\" \"Mozilla \\\"4\\\" \\x41\"", true, 7, 3);
        assertThat(r).isNotNull();
        assertThat(List.of(r.remote(), r.method(), r.path(), r.status(), r.timeNanos(), r.lineNumber(),
                r.sequence())).containsExactly("127.0.0.1", "GET", "/a.gif", 200, T, 7L, 3L);
        assertThat(r.header("Referer")).containsExactly("http://ref/");
        assertThat(r.header("user-agent")).containsExactly("Mozilla \"4\" A");
    }

    @Test
    void trailingQuotedFieldsMissingOrUnterminatedStillMakeARequest() {
        String head = "10.0.0.1 - - [10/Oct/2000:20:55:36 +0000] \"POST /p HTTP/1.1\" 503 -";
        assertThat(ClfParser.parse(head, true, 1, 0).header("user-agent")).isEmpty();
        assertThat(ClfParser.parse(head + " \"-\" \"curl", true, 1, 0).header("user-agent"))
                .containsExactly("curl");
        assertThat(ClfParser.parse(head + " \"http://r", true, 1, 0).header("referer"))
                .containsExactly("http://r");
        assertThat(ClfParser.parse(head, true, 1, 0).timeNanos()).isEqualTo(T);
    }

    @Test
    void linesWithoutAddressTimestampRequestLineOrStatusAreUnparseable() {
        for (String bad : List.of("", "garbage", "10.0.0.1 - - [10/Oct/2000:20:55:36 +0000] \"-\" 408 -",
                "10.0.0.1 - - [10/Oct/2000:20:55:36 +0000] \"GET /p HTTP/1.1\"",
                "10.0.0.1 - - [10/Oct/2000:20:55:36 +0000] \"GET /p HTTP/1.1\" 2x0 5",
                "10.0.0.1 - - [10/Foo/2000:20:55:36 +0000] \"GET /p HTTP/1.1\" 200 5",
                "10.0.0.1 - - [10/Oct/2000:20:55:36 +0000] \"GET /p HTTP/1.1 200 5",
                " - - [10/Oct/2000:20:55:36 +0000] \"GET /p HTTP/1.1\" 200 5",
                "- - - [10/Oct/2000:20:55:36 +0000] \"GET /p HTTP/1.1\" 200 5")) {
            assertThat(ClfParser.parse(bad, true, 1, 0)).as(bad).isNull();
        }
    }

    @Test
    void everyMonthAndMethodIsReadAndAMisspeltOneIsNot() {
        String[] months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        for (int m = 0; m < 12; m++) {
            String line = "10.0.0.1 - - [28/" + months[m] + "/2024:01:02:03 +0000] \"GET /p HTTP/1.1\" 200 5";
            long expected = Instant.parse(String.format("2024-%02d-28T01:02:03Z", m + 1)).getEpochSecond()
                    * 1_000_000_000L;
            assertThat(ClfParser.parse(line, false, 1, 0).timeNanos()).as(months[m]).isEqualTo(expected);
        }
        for (String misspelt : List.of("Jum", "Mby", "Apu", "Xyz", "jan", "JAN")) {
            assertThat(ClfParser.parse("10.0.0.1 - - [28/" + misspelt + "/2024:01:02:03 +0000] \"GET /p HTTP/1.1\" "
                    + "200 5", false, 1, 0)).as(misspelt).isNull();
        }
        for (String method : List.of("GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS", "GOT", "PURGE",
                "TRACE", "CONNECT", "PROPFIND")) {
            LogRecord r = ClfParser.parse("10.0.0.1 - - [28/Jan/2024:01:02:03 +0000] \"" + method + " /p HTTP/1.1\" "
                    + "200 5", false, 1, 0);
            assertThat(r.method()).isEqualTo(method);
        }
    }

    @Test
    void jsonLinesKeepTheFractionAndTheHeaders() {
        LogRecord r = JsonLinesParser.parse("{\"time\":\"2026-01-01T01:00:05.250+01:00\",\"remote_addr\":\"::1\","
                + "\"method\":\"GET\",\"path\":\"/a?b\",\"status\":\"200\",\"extra\":{\"x\":[1]},"
                + "\"headers\":{\"X-Api-Key\":\"k1\",\"X-Forwarded-For\":[\"1.2.3.4\",\"5.6.7.8\"]}}", 2, 1);
        assertThat(r).isNotNull();
        assertThat(r.timeNanos()).isEqualTo(Instant.parse("2026-01-01T00:00:05Z").getEpochSecond() * 1_000_000_000L
                + 250_000_000L);
        assertThat(List.of(r.remote(), r.method(), r.path(), r.status())).containsExactly("::1", "GET", "/a", 200);
        assertThat(r.header("x-api-key")).containsExactly("k1");
        assertThat(r.header("x-forwarded-for")).containsExactly("1.2.3.4", "5.6.7.8");
        assertThat(JsonLinesParser.parse("{\"time\":\"2026-01-01T00:00:00Z\",\"method\":\"GET\",\"path\":\"/\","
                + "\"status\":200}", 1, 0)).as("no remote_addr").isNull();
        assertThat(JsonLinesParser.parse("[1]", 1, 0)).isNull();
        assertThat(JsonLinesParser.parse("{\"time\":\"yesterday\",\"remote_addr\":\"::1\",\"method\":\"GET\","
                + "\"path\":\"/\",\"status\":200}", 1, 0)).isNull();
    }
}
