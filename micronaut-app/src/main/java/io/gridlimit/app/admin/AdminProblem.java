package io.gridlimit.app.admin;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;

/**
 * A problem an admin API handler answers with (docs/SPEC.md §11): its status, its detail (the exception's
 * message) and, on a 412 of a policy that exists, the current {@code ETag}. Thrown by the handlers and their
 * helpers, answered by {@link AdminErrors#answer(AdminProblem)}. No stack trace is recorded.
 */
final class AdminProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final HttpStatus status;
    private final String etag;

    /**
     * @param status the HTTP status
     * @param detail the problem's detail
     */
    AdminProblem(HttpStatus status, String detail) {
        this(status, detail, null);
    }

    /**
     * @param status the HTTP status
     * @param detail the problem's detail
     * @param etag the {@code ETag} header the answer carries, or null for none
     */
    AdminProblem(HttpStatus status, String detail, @Nullable String etag) {
        super(detail, null, false, false);
        this.status = status;
        this.etag = etag;
    }

    /** @return the HTTP status */
    HttpStatus status() {
        return status;
    }

    /** @return the {@code ETag} header of the answer, or null for none */
    @Nullable String etag() {
        return etag;
    }
}
