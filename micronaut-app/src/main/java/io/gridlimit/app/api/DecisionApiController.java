package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Settlement;
import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.PolicyRegistry;
import io.gridlimit.micronaut.decide.Counting;
import io.gridlimit.micronaut.decide.Decider;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.problem.ExactParameters;
import io.gridlimit.micronaut.problem.Problem;
import io.gridlimit.micronaut.problem.ProblemErrors;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.json.tree.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The decision API for callers that are not Java: they ask the grid for a decision and enforce it themselves
 * (the role of Envoy's RLS or Gubernator's {@code GetRateLimits}). It is meant for trusted internal callers: any
 * caller can spend any key's quota, so it is served on the internal port only ({@code gridlimit.decision-api.port},
 * default {@value DecisionApiSettings#DEFAULT_PORT}, bound to {@code gridlimit.decision-api.host}, default
 * {@value DecisionApiSettings#DEFAULT_HOST}; see {@link InternalListener}), beside the management endpoints; on any
 * other port {@link DecisionApiPortFilter} answers 404. With {@code gridlimit.decision-api.token} set, callers also
 * need {@code Authorization: Bearer <token>} ({@link DecisionApiTokenFilter}).
 *
 * <ul>
 *   <li>{@code POST /v1/ratelimit/check} with {@code {"policy": "demo", "key": "user:42", "cost": 1}} ({@code cost}
 *       optional, default 1) answers 200 with a {@link CheckResponse}.</li>
 *   <li>{@code POST /v1/ratelimit/check/batch} with {@code {"checks": [check, ...]}} (1 to
 *       {@value #MAX_BATCH_CHECKS} checks) answers 200 with {@code {"decisions": [...]}} in request order. The
 *       batch is validated whole before anything is decided: the first invalid check answers 400 (404 for an
 *       unknown policy) naming its index, e.g. {@code checks[2].cost}. Checks with different policy or key are
 *       decided concurrently; checks of the same policy and key are decided one after another in request order,
 *       so a batch sees its own consumption exactly as the same requests sent one by one would.</li>
 * </ul>
 *
 * <p>Keys are used as given (SPEC §6): non-empty, at most 1024 UTF-8 bytes. A key written like the filter's keys
 * (e.g. {@code ip:203.0.113.7}) shares that key's quota with the HTTP filter. Errors are RFC 9457 problems
 * ({@code application/problem+json}): 400 for malformed JSON, a missing or empty policy or key, a key over 1024
 * bytes or a cost outside [1, 10^15]; 404 for an unknown policy; 503 with {@code Retry-After: 1} when the grid
 * fails (a batch: as soon as one of its checks fails) or does not answer within
 * {@code gridlimit.decision-api.timeout} (default 1 s). The HTTP filter's {@code gridlimit.grid-timeout} is not
 * used here: an API caller applies its own deadline and fallback, and this bound only keeps a request from waiting
 * forever. A request answered 503 consumed nothing: every check is taken as a reservation, and on the 503 the
 * admissions are given back, checks still queued are never sent and one in flight is given back when it arrives
 * (docs/SPEC.md §10).
 *
 * <p><b>Reservations</b> (docs/SPEC.md §10): a check with {@code "reserve": true} answers its {@code "reservation"}
 * token; {@code POST /v1/ratelimit/settle} with {@code {"reservation", "actual"}} settles it ({@link #settle}). A
 * batch with {@code "atomic": true} gives back every check when any is denied, and says so per check
 * ({@code "givenBack"}).
 *
 * <p><b>Shadow policies</b> ({@code shadow: true}) are reported as computed: a denial reads {@code "allowed":
 * false}. Shadow mode is the filter's business (it admits anyway); an API caller decides what to do with the
 * answer. A denial consumes nothing (SPEC §3).
 *
 * <p>Every decision goes through the door-neutral {@link Decider} (one reservation per check,
 * {@link RateLimiter#reserveAsync(io.gridlimit.api.Policy, String, long)}): the handlers return futures and never
 * block the Netty event loop (docs/SPEC.md §5: never blocked on the grid).
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@Controller(value = "/v1/ratelimit", port = DecisionApiSettings.PORT_PLACEHOLDER)
public class DecisionApiController {
    /** The most checks one batch may hold; a larger batch answers 400. */
    public static final int MAX_BATCH_CHECKS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(DecisionApiController.class);
    /** Default {@code gridlimit.decision-api.timeout}: 1 s. */
    public static final Duration DEFAULT_TIMEOUT = DecisionApiSettings.DEFAULT_TIMEOUT;

    private final RateLimiter rateLimiter;
    private final PolicyRegistry policies;
    private final GridLimitMetrics metrics;
    private final long timeoutNanos;
    private final io.gridlimit.micronaut.catalog.PolicySource catalog;
    private final Decider decider;

    /**
     * Creates the controller.
     *
     * @param rateLimiter the grid-backed limiter
     * @param policies the configured policies
     * @param settings the checked {@code gridlimit.decision-api.*} values
     * @param metrics counts each decision in {@code gridlimit.decisions} with {@code source=api}
     * @param catalog a key's override under the policy asked for (docs/SPEC.md §11), resolved locally
     * @param decider decides the checks (the door-neutral pipeline, {@link io.gridlimit.micronaut.decide.Door#API})
     */
    public DecisionApiController(RateLimiter rateLimiter, PolicyRegistry policies,
                                 DecisionApiSettings settings, GridLimitMetrics metrics,
                                 io.gridlimit.micronaut.catalog.PolicySource catalog, Decider decider) {
        this.catalog = catalog;
        this.decider = decider;
        this.rateLimiter = rateLimiter;
        this.policies = policies;
        this.metrics = metrics;
        this.timeoutNanos = saturatedNanos(settings.timeout());
    }

    /**
     * Decides one check.
     *
     * @param request the request (it takes no query parameter)
     * @param body the raw request body, JSON {@code {"policy", "key", "cost"}}; null when absent
     * @return a future of 200 with a {@link CheckResponse}, or of a problem response (400, 404, 503)
     */
    @Post(uri = "/check", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public CompletableFuture<HttpResponse<?>> check(HttpRequest<?> request, @Body @Nullable byte[] body) {
        CheckRequests.Check check;
        try {
            check = CheckRequests.single(parse(request, body), policies);
        } catch (InvalidCheckException e) {
            return CompletableFuture.completedFuture(ApiProblems.of(e.status(), e.getMessage()));
        }
        CheckAttempt attempt = attempt(List.of(check), Counting.ALL_OR_NOTHING);
        return withTimeout(attempt.decide(0))
                .<HttpResponse<?>>thenApply(r -> HttpResponse.ok(attempt.shown(0, r)))
                .exceptionally(e -> {
                    attempt.finish();
                    return failure(e, List.of(check));
                });
    }

    /**
     * Settles a reservation that a check with {@code "reserve": true} returned (docs/SPEC.md §10).
     *
     * @param request the request (it takes no query parameter)
     * @param body the raw request body, JSON {@code {"reservation": string, "actual": integer}}; null when absent
     * @return a future of 200 with a {@link SettleResponse} ({@code settled}, or {@code already-settled} for a
     *     retry), or of a problem: 400 for a malformed body, token or actual and for a forged reservation, 404 for
     *     an unknown policy or a reservation its key's state does not hold, 410 for an expired one, 503 when the
     *     grid fails or does not answer in time (the settle may or may not have happened; retrying is safe)
     */
    @Post(uri = "/settle", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public CompletableFuture<HttpResponse<?>> settle(HttpRequest<?> request, @Body @Nullable byte[] body) {
        CheckRequests.Settle settle;
        try {
            settle = CheckRequests.settle(parse(request, body), policies);
        } catch (InvalidCheckException e) {
            return CompletableFuture.completedFuture(ApiProblems.of(e.status(), e.getMessage()));
        }
        String policyName = settle.policy().name();
        CompletableFuture<Settlement> stage;
        try {
            stage = rateLimiter.settleAsync(settle.policy(), settle.reservation(), settle.actual())
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return withTimeout(stage).<HttpResponse<?>>thenApply(s -> {
            metrics.settle(GridLimitMetrics.Source.API, policyName, s);
            return switch (s.status()) {
                case SETTLED, ALREADY_SETTLED -> HttpResponse.ok(SettleResponse.of(s, policyName));
                case EXPIRED -> ApiProblems.of(HttpStatus.GONE, "reservation has expired (its window has ended):"
                        + " the reserved cost stands");
                case UNKNOWN -> ApiProblems.of(HttpStatus.NOT_FOUND, "reservation is unknown to its key's state"
                        + " (the state expired or was lost, or its settle records were closed): the reserved cost"
                        + " stands");
                case FORGED -> ApiProblems.of(HttpStatus.BAD_REQUEST, "reservation's signature does not match its"
                        + " key's state: it was not issued for this key, or was altered");
            };
        }).exceptionally(e -> failure(e, List.of(new CheckRequests.Check(settle.policy(),
                settle.reservation().key(), 1))));
    }

    /**
     * Decides a batch of checks, validated whole first.
     *
     * @param request the request (it takes no query parameter)
     * @param body the raw request body, JSON {@code {"checks": [...]}}; null when absent
     * @return a future of 200 with a {@link BatchCheckResponse} in request order, or of a problem response
     *     (400, 404, 503)
     */
    @Post(uri = "/check/batch", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public CompletableFuture<HttpResponse<?>> batch(HttpRequest<?> request, @Body @Nullable byte[] body) {
        CheckRequests.Batch batch;
        try {
            batch = CheckRequests.batchRequest(parse(request, body), policies, MAX_BATCH_CHECKS);
        } catch (InvalidCheckException e) {
            return CompletableFuture.completedFuture(ApiProblems.of(e.status(), e.getMessage()));
        }
        List<CheckRequests.Check> checks = batch.checks();
        CheckAttempt attempt = attempt(checks, batch.atomic() ? Counting.ALL_OR_NOTHING : Counting.EACH_ON_ITS_OWN);
        List<CompletableFuture<Decision>> decisions = new ArrayList<>(checks.size());
        Map<String, CompletableFuture<Decision>> lastByKey = new HashMap<>();
        for (int i = 0; i < checks.size(); i++) {
            CheckRequests.Check check = checks.get(i);
            int index = i;
            // Same policy and key: decide after the previous check of that key, in request order; once the
            // batch is answered 503, the rest of the chain is never sent.
            String id = check.policy().name() + '\u0000' + check.key();
            CompletableFuture<Decision> previous = lastByKey.get(id);
            CompletableFuture<Decision> decision = previous == null ? attempt.decide(index)
                    : previous.thenCompose(ignored -> attempt.decide(index));
            lastByKey.put(id, decision);
            decisions.add(decision);
        }
        return withTimeout(allOrFirstFailure(decisions))
                .<HttpResponse<?>>thenApply(ignored -> {
                    List<Decision> decided = decisions.stream().map(CompletableFuture::join).toList();
                    boolean denied = decided.stream().anyMatch(d -> !d.allowed());
                    if (denied) {
                        attempt.denied(); // atomic: all-or-nothing gives the admissions back; else they stand
                    }
                    boolean giveBack = batch.atomic() && denied;
                    List<CheckResponse> answers = new ArrayList<>(decided.size());
                    for (int i = 0; i < decided.size(); i++) {
                        CheckResponse r = attempt.shown(i, decided.get(i));
                        answers.add(batch.atomic() ? r.withGivenBack(giveBack && decided.get(i).allowed()) : r);
                    }
                    return HttpResponse.ok(new BatchCheckResponse(answers));
                })
                .exceptionally(e -> {
                    attempt.finish();
                    return failure(e, checks);
                });
    }

    /**
     * Answers errors Micronaut raises for these routes before or around the handlers (for instance a body it
     * cannot read) as problems, so that its default JSON error body never leaks here.
     *
     * @param request the request
     * @param error what was thrown
     * @return a problem response: 413 for a body over {@code micronaut.server.max-request-size} (wherever it is in
     *     the cause chain), the exception's status for HTTP status exceptions, 400 for unreadable input,
     *     else 500 without details
     */
    @Error
    public HttpResponse<Problem> onError(HttpRequest<?> request, Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ContentLengthExceededException) {
                return ApiProblems.of(HttpStatus.REQUEST_ENTITY_TOO_LARGE, ProblemErrors.detail(413));
            }
        }
        if (error instanceof ExactParameters.Refused refused) {
            return ApiProblems.of(HttpStatus.BAD_REQUEST, refused.getMessage());
        }
        if (error instanceof HttpStatusException statusError && statusError.getStatus().getCode() < 500) {
            HttpStatus status = statusError.getStatus();
            String detail = switch (status) {
                case UNSUPPORTED_MEDIA_TYPE -> "the request body must be sent as Content-Type: application/json";
                case METHOD_NOT_ALLOWED -> "the decision API accepts POST only";
                case NOT_ACCEPTABLE -> "the decision API answers application/json or application/problem+json";
                default -> "the request could not be processed";
            };
            return ApiProblems.of(status, detail);
        }
        if (isClientError(error)) {
            return ApiProblems.of(HttpStatus.BAD_REQUEST,
                    "the request body must be valid JSON: " + CheckRequests.CHECK_SHAPE);
        }
        LOG.warn("decision API {} failed: {}", request.getPath(), error.getClass().getName());
        return ApiProblems.of(HttpStatus.INTERNAL_SERVER_ERROR, "internal error");
    }

    private static boolean isClientError(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String name = t.getClass().getName();
            if (t instanceof IOException || name.startsWith("io.micronaut.core.convert.exceptions")
                    || name.startsWith("io.micronaut.http.codec") || name.startsWith("io.micronaut.serde")
                    || name.startsWith("io.micronaut.web.router.exceptions")
                    || name.startsWith("io.micronaut.http.server.exceptions")) {
                return true;
            }
        }
        return false;
    }

    private CheckAttempt attempt(List<CheckRequests.Check> checks, Counting counting) {
        return new CheckAttempt(checks, counting, decider, catalog, metrics);
    }

    private static JsonNode parse(HttpRequest<?> request, @Nullable byte[] body) throws InvalidCheckException {
        try {
            // The API reads nothing but the body: a query parameter is refused, never ignored (SPEC §5).
            ExactParameters.check(request);
        } catch (ExactParameters.Refused e) {
            throw new InvalidCheckException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
        if (body == null || body.length == 0) {
            return null;
        }
        // Exactly one JSON value, no duplicate members, number literals kept exact; messages never quote the body.
        return StrictJson.parse(body);
    }

    /** Completes when every future has, or exceptionally as soon as one fails (unlike {@code allOf}). */
    private static CompletableFuture<Void> allOrFirstFailure(List<CompletableFuture<Decision>> futures) {
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger pending = new AtomicInteger(futures.size());
        for (CompletableFuture<Decision> f : futures) {
            f.whenComplete((ignored, error) -> {
                if (error != null) {
                    all.completeExceptionally(error);
                } else if (pending.decrementAndGet() == 0) {
                    all.complete(null);
                }
            });
        }
        return all;
    }

    private <T> CompletableFuture<T> withTimeout(CompletableFuture<T> future) {
        return future.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private HttpResponse<?> failure(Throwable error, List<CheckRequests.Check> checks) {
        Throwable cause = Futures.unwrap(error);
        String policyNames = checks.stream().map(c -> c.policy().name()).distinct().toList().toString();
        if (cause instanceof TimeoutException) {
            LOG.warn("decision API: the grid did not answer within {} ms (policies {})",
                    TimeUnit.NANOSECONDS.toMillis(timeoutNanos), policyNames);
            return ApiProblems.gridUnavailable("the rate-limit grid did not answer within "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; retry after 1 second");
        }
        if (cause instanceof IllegalArgumentException) {
            // Validated above, so the limiter should not object; answer as the limiter says, without its message
            // (it may quote the key).
            return ApiProblems.of(HttpStatus.BAD_REQUEST, "the check was rejected by the rate limiter");
        }
        LOG.warn("decision API: the grid failed (policies {}): {}", policyNames, cause.getClass().getName());
        return ApiProblems.gridUnavailable("the rate-limit grid is unavailable; retry after 1 second");
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
