package io.gridlimit.micronaut.config;

/** Which rate-limit headers responses carry ({@code gridlimit.headers}, SPEC §5). */
public enum HeaderMode {
    /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
    IETF,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}. */
    LEGACY,
    /** Both sets (the default). */
    BOTH;

    /** @return true when the IETF fields are written */
    public boolean ietf() {
        return this != LEGACY;
    }

    /** @return true when the X-RateLimit-* fields are written */
    public boolean legacy() {
        return this != IETF;
    }
}
