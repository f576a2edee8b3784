package io.gridlimit.micronaut.config;

/** What a rule does when its key cannot be resolved for a request (SPEC §6). */
public enum OnMissingKey {
    /** Answer 400 with a problem naming what is missing (the default). */
    REJECT,
    /** Exempt the request from this rule. */
    SKIP
}
