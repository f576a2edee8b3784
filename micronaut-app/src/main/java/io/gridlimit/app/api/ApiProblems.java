package io.gridlimit.app.api;

import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;

/**
 * Builds the internal port's RFC 9457 problem responses ({@code application/problem+json}, never a stack trace,
 * never a raw key): the decision API's, its guards', and the admin API's ({@code io.gridlimit.app.admin}).
 */
public final class ApiProblems {
    /** Problem type of a 503 when the grid does not answer: draft-ietf-httpapi-ratelimit-headers-11, §7.2. */
    static final String TEMPORARY_REDUCED_CAPACITY = Problem.TEMPORARY_REDUCED_CAPACITY;

    /** Its title, as the HTTP filter's 503 writes it. */
    static final String TEMPORARY_REDUCED_CAPACITY_TITLE =
            "Service temporarily unable to satisfy the request due to reduced capacity";

    private ApiProblems() {
    }

    /**
     * A problem response of type {@code about:blank} whose title is the status's reason phrase.
     *
     * @param status the HTTP status
     * @param detail what was wrong, naming the bad value (never a raw key)
     * @return the response, never null
     */
    public static MutableHttpResponse<Problem> of(HttpStatus status, String detail) {
        return HttpResponse.<Problem>status(status)
                .contentType(Problem.MEDIA_TYPE)
                .body(Problem.of(status.getCode(), status.getReason(), detail));
    }

    /**
     * The 503 answered when the grid fails or does not answer in time, with {@code Retry-After: 1}.
     *
     * @param detail what happened, without keys or exception messages
     * @return the response, never null
     */
    static MutableHttpResponse<Problem> gridUnavailable(String detail) {
        return HttpResponse.<Problem>status(HttpStatus.SERVICE_UNAVAILABLE)
                .contentType(Problem.MEDIA_TYPE)
                .header("Retry-After", "1")
                .body(new Problem(TEMPORARY_REDUCED_CAPACITY, TEMPORARY_REDUCED_CAPACITY_TITLE, 503, detail,
                        null));
    }
}
