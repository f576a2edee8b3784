package io.gridlimit.micronaut.config;

/** What a request gets when the grid does not answer within {@code gridlimit.grid-timeout} (SPEC §5). */
public enum FailureMode {
    /** Let the request through without rate-limit headers: the limit is lifted while the grid is silent. */
    OPEN,
    /** Answer 503 with {@code Retry-After: 1} and a temporary-reduced-capacity problem. */
    CLOSED,
    /**
     * Decide on this replica's local approximation: the same algorithms on an in-process map, each band's quota
     * and refill rate divided by {@code gridlimit.local.expected-replicas} (docs/SPEC.md §5; see
     * {@link io.gridlimit.micronaut.decide.LocalFallback}). The default: overload never lifts a limit beyond the
     * bound SPEC §5 states.
     */
    LOCAL
}
