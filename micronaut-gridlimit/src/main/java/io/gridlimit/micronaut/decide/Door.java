package io.gridlimit.micronaut.decide;

import io.gridlimit.micronaut.metrics.GridLimitMetrics;

/**
 * The doors a request comes through to the {@link Decider}, each with what the decider does differently for it.
 * Everything else (the grid timeout, the cancel of what is still queued, the local share, all-or-nothing, the
 * give-back of late admissions, the settle) is the same behind every door (docs/SPEC.md §5, §10).
 */
public enum Door {
    /** The HTTP filter: {@code gridlimit.failure-mode} applies (SPEC §5). */
    FILTER(GridLimitMetrics.Source.FILTER, true),
    /**
     * The decision API: a failure is the caller's to handle (503), so no failure mode applies and nothing is decided
     * locally (its controller's class comment; docs/SPEC.md §10 for the give-backs).
     */
    API(GridLimitMetrics.Source.API, false),
    /** Envoy's {@code ShouldRateLimit}: {@code gridlimit.failure-mode} applies (SPEC §12). */
    ENVOY(GridLimitMetrics.Source.ENVOY, true);

    private final GridLimitMetrics.Source source;
    private final boolean failureMode;

    Door(GridLimitMetrics.Source source, boolean failureMode) {
        this.source = source;
        this.failureMode = failureMode;
    }

    /** @return the {@code source} tag of this door's meters */
    public GridLimitMetrics.Source source() {
        return source;
    }

    /** @return whether {@code gridlimit.failure-mode} applies (so {@code local} decides on this replica's share) */
    public boolean failureMode() {
        return failureMode;
    }
}
