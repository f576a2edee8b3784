package io.gridlimit.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls a member's decision API ({@code POST /v1/ratelimit/check}) on its published port on 127.0.0.1 and reads
 * the answer. Thread-safe.
 */
final class DecisionClient {
    private static final Pattern ALLOWED = Pattern.compile("\"allowed\":(true|false)");
    private static final Pattern REMAINING = Pattern.compile("\"remaining\":(\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    /** What one call gave: HTTP status (or -1 when no answer came), and for a 200 the decision's fields. */
    record Answer(int status, boolean allowed, long remaining) {
        boolean decided() {
            return status == 200;
        }
    }

    Answer check(String baseUrl, String policy, String key, long cost) {
        String body = "{\"policy\":\"" + policy + "\",\"key\":\"" + key + "\",\"cost\":" + cost + "}";
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/ratelimit/check"))
                .timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return new Answer(r.statusCode(), false, -1);
            }
            Matcher a = ALLOWED.matcher(r.body());
            Matcher m = REMAINING.matcher(r.body());
            if (!a.find() || !m.find()) {
                throw new IllegalStateException("unexpected decision body: " + r.body());
            }
            return new Answer(200, Boolean.parseBoolean(a.group(1)), Long.parseLong(m.group(1)));
        } catch (IOException e) {
            return new Answer(-1, false, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(-1, false, -1);
        }
    }

    /**
     * Reads what a key has left without consuming: a cost above the limit is denied, can never pass, and reports
     * what is left now (SPEC §3); a denial writes nothing.
     *
     * @return the remaining quota, or -1 when the member gave no decision
     */
    long remaining(String baseUrl, String policy, String key, long limit) {
        Answer a = check(baseUrl, policy, key, limit + 1);
        if (a.decided() && a.allowed()) {
            throw new IllegalStateException("a probe above the limit was admitted: " + policy + "/" + key);
        }
        return a.decided() ? a.remaining() : -1;
    }
}
