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
        MutableHttpResponse<String> response = HttpResponse.<String>status(status)
                .contentType(Problem.MEDIA_TYPE).body(json(problem));
        headers.forEach(response::header);
        response.header("Date", date());
        return response;
    }

    /**
     * Turns a response Micronaut built into a problem response in place: its status and other headers (e.g.
     * {@code Allow} of a 405) are kept; its body becomes the problem, its {@code Content-Type}
     * {@code application/problem+json}, and {@code Date} is set.
     *
     * @param response the response to rewrite
     * @param problem the body
     * @return the same response, typed for its new body
     * @throws IllegalStateException if the body cannot be written
     */
    @SuppressWarnings("unchecked")
    public MutableHttpResponse<Object> rewrite(MutableHttpResponse<?> response, Problem problem) {
        MutableHttpResponse<Object> r = (MutableHttpResponse<Object>) response;
        r.body(json(problem));
        r.contentType(Problem.MEDIA_TYPE);
        r.header("Date", date());
        return r;
    }

    /**
     * @param problem a problem
     * @return its JSON text, as the application's {@link JsonMapper} writes it
     * @throws IllegalStateException if the body cannot be written
     */
    public String json(Problem problem) {
        try {
            return json.writeValueAsString(problem);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a problem body", e);
        }
    }

    /** @return now as an HTTP-date */
    public String date() {
        return HTTP_DATE.format(clock.instant());
    }
}
