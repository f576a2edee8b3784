package io.gridlimit.app.admin;

import io.gridlimit.micronaut.catalog.PolicyAdmin;
import io.gridlimit.micronaut.catalog.PolicyVersion;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;

import java.util.List;

/**
 * The admin API's entity tags and preconditions (docs/SPEC.md §11; RFC 9110 §8.8.3, §13.1): a policy's
 * {@code ETag} is its version in double quotes ({@code "3"}), an override's is {@code "o-<other policy>"}; a change
 * honours {@code If-Match: <tag>} or {@code *} and {@code If-None-Match: *} (create only), each sent at most once,
 * never both; anything else is 400. Stateless.
 */
final class AdminPreconditions {
    private AdminPreconditions() {
    }

    /**
     * @param version a policy's catalog version
     * @return its {@code ETag}: {@code "<version>"}
     */
    static String etag(long version) {
        return "\"" + version + "\"";
    }

    /**
     * @param target the policy an override names
     * @return its {@code ETag}: {@code "o-<target>"}
     */
    static String overrideTag(String target) {
        return "\"o-" + target + "\"";
    }

    /**
     * {@code If-Match: "<n>"} or {@code *}, {@code If-None-Match: *}, else any version.
     *
     * @param request the request
     * @return the version the change expects, {@link PolicyAdmin#NO_VERSION} (create only) or
     *     {@link PolicyAdmin#ANY_VERSION}
     * @throws AdminProblem 400 for a header that is not one of those, or sent twice
     */
    static long expectedVersion(HttpRequest<?> request) {
        String ifMatch = single(request, HttpHeaders.IF_MATCH);
        if (createOnly(request, ifMatch)) {
            return PolicyAdmin.NO_VERSION;
        }
        if (ifMatch == null || ifMatch.equals("*")) {
            return PolicyAdmin.ANY_VERSION;
        }
        if (!ifMatch.matches("\"[1-9][0-9]{0,18}\"")) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-Match: '" + ifMatch + "' is not an ETag of this API "
                    + "(a version in double quotes, e.g. \"3\", or *)");
        }
        return Long.parseLong(ifMatch.substring(1, ifMatch.length() - 1));
    }

    /**
     * The expected target of an override: {@code ""} for If-None-Match: *, null for any.
     *
     * @param request the request
     * @return the policy the override is expected to name, {@code ""} for none, null for any
     * @throws AdminProblem 400 for a header that is not one of those, or sent twice
     */
    static @Nullable String expectedOverride(HttpRequest<?> request) {
        String ifMatch = single(request, HttpHeaders.IF_MATCH);
        if (createOnly(request, ifMatch)) {
            return "";
        }
        if (ifMatch == null || ifMatch.equals("*")) {
            return null;
        }
        if (!ifMatch.matches("\"o-[a-z0-9-]{1,64}\"")) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-Match: '" + ifMatch + "' is not an override ETag of "
                    + "this API (e.g. \"o-gold\", or *)");
        }
        return ifMatch.substring(3, ifMatch.length() - 1);
    }

    /** True for {@code If-None-Match: *}; 400 for any other If-None-Match, or one beside If-Match. */
    private static boolean createOnly(HttpRequest<?> request, @Nullable String ifMatch) {
        String ifNoneMatch = single(request, HttpHeaders.IF_NONE_MATCH);
        if (ifNoneMatch == null) {
            return false;
        }
        if (!ifNoneMatch.equals("*") || ifMatch != null) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, "If-None-Match: only '*' (create only) is accepted, "
                    + "and not beside If-Match");
        }
        return true;
    }

    private static @Nullable String single(HttpRequest<?> request, String header) {
        List<String> values = request.getHeaders().getAll(header);
        if (values.size() > 1) {
            throw new AdminProblem(HttpStatus.BAD_REQUEST, header + ": sent " + values.size() + " times; send it once");
        }
        return values.isEmpty() ? null : values.get(0).trim();
    }

    /**
     * @param name the policy name
     * @param current the policy's version now (a deletion's included), or null when there is none
     * @return the 412 of a change whose precondition failed, with the current {@code ETag} while the policy is live
     */
    static AdminProblem preconditionFailed(String name, @Nullable PolicyVersion current) {
        boolean live = current != null && current.live();
        return new AdminProblem(HttpStatus.PRECONDITION_FAILED, "policy '" + name + "' is "
                + (live ? "at version " + current.version() : "absent") + ", not the version If-Match or "
                + "If-None-Match names; read it again (GET) and retry", live ? etag(current.version()) : null);
    }
}
