package io.gridlimit.micronaut.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;

import java.util.List;

/**
 * An RFC 9457 problem details body, served as {@code application/problem+json}.
 *
 * @param type the problem type URI; {@code about:blank} for plain HTTP errors
 * @param title a short human-readable summary of the problem type
 * @param status the HTTP status code
 * @param detail a human-readable explanation of this occurrence; never a raw key or a stack trace
 * @param violatedPolicies for quota-exceeded problems, the names as in {@code RateLimit-Policy}; else null
 */
@Serdeable
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(
        String type,
        String title,
        int status,
        @Nullable String detail,
        @Nullable @JsonProperty("violated-policies") List<String> violatedPolicies) {

    /** The media type of problem details bodies (RFC 9457). */
    public static final String MEDIA_TYPE = "application/problem+json";

    /**
     * Problem type of a 429, every door's (docs/SPEC.md §5; draft-ietf-httpapi-ratelimit-headers, "Quota
     * Exceeded").
     */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    /**
     * Problem type of the 503 when the grid does not answer and the failure mode is closed, every door's
     * (docs/SPEC.md §5; same draft, "Temporary Reduced Capacity").
     */
    public static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    /**
     * A problem of type {@code about:blank}.
     *
     * @param status the HTTP status code
     * @param title a short summary, e.g. {@code "Bad Request"}
     * @param detail what was wrong, naming the bad value
     * @return the problem, never null
     */
    public static Problem of(int status, String title, String detail) {
        return new Problem("about:blank", title, status, detail, null);
    }
}
