package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * With {@code gridlimit.decision-api.token} set, every {@code /v1/**} request must carry exactly one
 * {@code Authorization: Bearer <token>} header (RFC 6750 §2.1: the scheme, case-insensitive (RFC 9110 §11.1), one
 * or more spaces, the token exactly);
 * otherwise it answers 401 with an RFC 9457 problem and {@code WWW-Authenticate: Bearer realm="gridlimit"} (plus
 * {@code error="invalid_token"} when a token was sent but is wrong, RFC 6750 §3), before anything is decided. The
 * token is compared in constant time ({@link MessageDigest#isEqual}, whose running time depends on the length of
 * the configured token only). Without a token every request passes. Health and metrics are not under {@code /v1}
 * and stay open on the internal port. The admin API ({@code /v1/policies/**}) is guarded the same way by
 * {@code gridlimit.admin-api.token}, or the decision API's token when it has none ({@link AdminApiSettings}).
 * Runs right after {@link DecisionApiPortFilter}: on the public port the answer is 404, never 401. Stateless.
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@ServerFilter("/v1/**")
public class DecisionApiTokenFilter implements Ordered {
    /** The challenge of every 401: RFC 6750 §3. */
    static final String CHALLENGE = "Bearer realm=\"gridlimit\"";
    /** Detail of the 401 without credentials. */
    static final String MISSING_DETAIL = "the decision API requires Authorization: Bearer <token>"
            + " (gridlimit.decision-api.token)";
    /** Detail of the admin API's 401 without credentials. */
    static final String ADMIN_MISSING_DETAIL = "the admin API requires Authorization: Bearer <token>"
            + " (gridlimit.admin-api.token, else gridlimit.decision-api.token)";
    /** Detail of the admin API's 403 to a caller that is not on this host, without a token configured. */
    static final String ADMIN_LOCAL_ONLY_DETAIL = "without gridlimit.admin-api.token (or gridlimit.decision-api.token)"
            + " the admin API answers callers on this host only";
    /** Detail of the 401 with wrong credentials. */
    static final String INVALID_DETAIL = "the bearer token is not valid";

    private static final String SCHEME = "Bearer ";

    private final byte[] token;
    /** The admin API's token ({@code /v1/policies/**}, docs/SPEC.md §11): its own, else the decision API's. */
    private final byte[] adminToken;

    /**
     * @param settings the checked {@code gridlimit.decision-api.*} values
     * @param admin the checked {@code gridlimit.admin-api.*} values
     */
    public DecisionApiTokenFilter(DecisionApiSettings settings, AdminApiSettings admin) {
        this.token = settings.token().orElse(null);
        this.adminToken = admin.token().orElse(null);
    }

    /**
     * Lets the request through when no token is configured or it carries the right one.
     *
     * @param request the request
     * @return null to continue, or the 401 problem response
     */
    @RequestFilter
    @Nullable
    public HttpResponse<?> requireToken(HttpRequest<?> request) {
        String path = request.getPath();
        boolean admin = path.equals(AdminApiSettings.PATH) || path.startsWith(AdminApiSettings.PATH + "/");
        byte[] token = admin ? adminToken : this.token;
        if (token == null) {
            // without a token the admin API answers local callers only (kubectl port-forward, exec): an internal
            // port opened to decision-API callers (k8s/) never lets them change policies (docs/SPEC.md §11)
            return admin && !fromLoopback(request) ? ApiProblems.of(HttpStatus.FORBIDDEN, ADMIN_LOCAL_ONLY_DETAIL)
                    : null;
        }
        List<String> values = request.getHeaders().getAll(HttpHeaders.AUTHORIZATION);
        if (values.isEmpty()) {
            return unauthorized(admin ? ADMIN_MISSING_DETAIL : MISSING_DETAIL, CHALLENGE);
        }
        if (values.size() == 1 && matches(values.get(0), token)) {
            return null;
        }
        return unauthorized(INVALID_DETAIL, CHALLENGE + ", error=\"invalid_token\"");
    }

    private static boolean fromLoopback(HttpRequest<?> request) {
        java.net.InetSocketAddress peer = request.getRemoteAddress();
        return peer != null && peer.getAddress() != null && peer.getAddress().isLoopbackAddress();
    }

    private static boolean matches(String credentials, byte[] token) {
        if (credentials.length() <= SCHEME.length()
                || !credentials.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        int start = SCHEME.length();
        while (start < credentials.length() && credentials.charAt(start) == ' ') {
            start++; // credentials = auth-scheme 1*SP token68
        }
        byte[] sent = credentials.substring(start).getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(token, sent);
    }

    private static HttpResponse<Problem> unauthorized(String detail, String challenge) {
        return ApiProblems.of(HttpStatus.UNAUTHORIZED, detail).header(HttpHeaders.WWW_AUTHENTICATE, challenge);
    }

    /**
     * Runs right after the port filter, before rate limiting or anything else.
     *
     * @return the filter order
     */
    @Override
    public int getOrder() {
        return ServerFilterPhase.FIRST.after();
    }
}
