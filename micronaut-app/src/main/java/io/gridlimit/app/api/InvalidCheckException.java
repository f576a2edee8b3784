package io.gridlimit.app.api;

import io.micronaut.http.HttpStatus;

/**
 * A decision API request that is rejected before anything is decided: 400 for a malformed request, 404 for an
 * unknown policy. The message names the bad member (with its batch index) and, except for keys, its value.
 * {@link StrictJson} throws it for any body that is not strict JSON, the admin API's too. Carries no stack trace: it
 * is an answer, not a fault.
 */
public final class InvalidCheckException extends Exception {
    private static final long serialVersionUID = 1L;

    private final HttpStatus status;

    /**
     * Creates the exception.
     *
     * @param status {@link HttpStatus#BAD_REQUEST} or {@link HttpStatus#NOT_FOUND}
     * @param detail the problem detail, e.g. {@code "checks[3].cost must be an integer in [1, 10^15], got 0"}
     */
    InvalidCheckException(HttpStatus status, String detail) {
        super(detail, null, false, false);
        this.status = status;
    }

    /** @return the HTTP status to answer with */
    HttpStatus status() {
        return status;
    }
}
