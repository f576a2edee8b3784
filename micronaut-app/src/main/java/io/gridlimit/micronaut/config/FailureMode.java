package io.gridlimit.micronaut.config;

/** What a request gets when the grid does not answer within {@code gridlimit.grid-timeout} (SPEC §5). */
public enum FailureMode {
    /** Let the request through without rate-limit headers (the default). */
    OPEN,
    /** Answer 503 with {@code Retry-After: 1} and a temporary-reduced-capacity problem. */
    CLOSED
}
