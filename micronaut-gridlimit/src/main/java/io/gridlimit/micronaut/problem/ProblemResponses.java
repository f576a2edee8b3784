package io.gridlimit.micronaut.problem;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * Writes the {@code application/problem+json} responses GridLimit answers itself (RFC 9457): the body serialised
 * with the application's {@link JsonMapper}, the given headers, and {@code Date} (RFC 9110 §6.6.1: an origin
 * server with a clock sends it; responses a filter or an error processor writes do not get Micronaut's). The
 * value is an IMF-fixdate, e.g. {@code Tue, 01 Dec 2026 08:31:27 GMT}. Thread-safe.
 */
@Singleton
public class ProblemResponses {
    /** IMF-fixdate (RFC 9110 §5.6.7): always two-digit days, English names, GMT. */
    public static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

    private final JsonMapper json;
    private final Clock clock;

    /** @param json writes problem bodies */
    @Inject
    public ProblemResponses(JsonMapper json) {
        this(json, Clock.systemUTC());
    }

    /**
     * @param json writes problem bodies
     * @param clock the clock of the {@code Date} header
     */
    public ProblemResponses(JsonMapper json, Clock clock) {
        this.json = json;
        this.clock = clock;
    }

    /**
     * @param status the status
     * @param problem the body
     * @param headers further headers, in order
     * @return the response, with {@code Content-Type: application/problem+json} and {@code Date}
     * @throws IllegalStateException if the body cannot be written
     */
    public MutableHttpResponse<String> write(HttpStatus status, Problem problem, Map<String, String> headers) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a problem body", e);
        }
        MutableHttpResponse<String> response = HttpResponse.<String>status(status)
                .contentType(Problem.MEDIA_TYPE).body(body);
        headers.forEach(response::header);
        response.header("Date", date());
        return response;
    }

    /** @return now as an HTTP-date */
    public String date() {
        return HTTP_DATE.format(clock.instant());
    }
}
