package io.gridlimit.app;

import io.gridlimit.app.support.ServiceJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service jar with a user's override file ({@code MICRONAUT_CONFIG_FILES}), as README "Configuration reference"
 * shows it: a list in the file replaces the jar's list whole. The attack (issue 21): the file's one route
 * {@code {pattern: /nothing/**, policy: api}} inherited the jar's {@code routes[0]} {@code methods: [GET]}, so POST
 * went unlimited while GET was limited. Over real HTTP: POST is limited as the file's route says, and the jar's
 * {@code /demo/hello} route leaves nothing behind (its GETs are no longer limited).
 */
class ServiceOverrideFileTest {
    @TempDir
    Path dir;

    @Test
    void theOverrideFilesRoutesReplaceTheJarsAndPostIsLimited() throws Exception {
        Path file = dir.resolve("override.yml");
        // a year's window: the wall clock's window cannot end between these requests
        Files.writeString(file, "gridlimit:\n  policies:\n    api: {algorithm: fixed-window, limit: 2, window: 365d}\n"
                + "  routes: [{pattern: /nothing/**, policy: api}]\n");
        HttpClient http = HttpClient.newHttpClient();
        try (ServiceJvm service = ServiceJvm.start(Map.of("MICRONAUT_CONFIG_FILES", file.toString()), Map.of())) {
            service.awaitServing();
            for (int i = 1; i <= 2; i++) {
                HttpResponse<String> passed = send(http, service, "POST", "/nothing/" + i);
                assertThat(passed.statusCode()).as(service.output()).isEqualTo(404); // admitted; no such page
                assertThat(passed.headers().firstValue("RateLimit-Policy")).contains("\"api\";q=2;w=31536000");
                assertThat(passed.headers().firstValue("X-RateLimit-Remaining")).contains(Integer.toString(2 - i));
            }
            HttpResponse<String> denied = send(http, service, "POST", "/nothing/3");
            assertThat(denied.statusCode()).isEqualTo(429);
            assertThat(denied.headers().firstValue("Content-Type")).contains("application/problem+json");
            // the jar's routes[0] (GET /demo/hello, policy demo, 5 per 10 s) is gone: no limit, no headers
            for (int i = 0; i < 7; i++) {
                HttpResponse<String> hello = send(http, service, "GET", "/demo/hello");
                assertThat(hello.statusCode()).isEqualTo(200);
                assertThat(hello.headers().firstValue("RateLimit-Policy")).isEmpty();
            }
        }
    }

    private static HttpResponse<String> send(HttpClient http, ServiceJvm service, String method, String path)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(service.url() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
