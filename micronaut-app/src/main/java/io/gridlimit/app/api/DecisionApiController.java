package io.gridlimit.app.api;

import io.gridlimit.api.Decision;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.PolicyRegistry;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.gridlimit.app.Application;
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
import java.util.concurrent.CompletionStage;
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
 * forever. A batch that fails this way may have consumed quota for the checks decided before the failure.
 *
 * <p><b>Shadow policies</b> ({@code shadow: true}) are reported as computed: a denial reads {@code "allowed":
 * false}. Shadow mode is the filter's business (it admits anyway); an API caller decides what to do with the
 * answer. A denial consumes nothing (SPEC §3).
 *
 * <p>Every decision goes through {@link RateLimiter#tryAcquireAsync}: the handlers return futures and never block
 * the Netty event loop (docs/SPEC.md §5: never blocked on the grid).
 */
@Requires(property = Application.SERVICE_PROPERTY, value = "true")
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

    /**
     * Creates the controller.
     *
     * @param rateLimiter the grid-backed limiter
     * @param policies the configured policies
     * @param settings the checked {@code gridlimit.decision-api.*} values
     * @param metrics counts each decision in {@code gridlimit.decisions} with {@code source=api}
     * @param catalog a key's override under the policy asked for (docs/SPEC.md §11), resolved locally
     */
    public DecisionApiController(RateLimiter rateLimiter, PolicyRegistry policies,
                                 DecisionApiSettings settings, GridLimitMetrics metrics,
                                 io.gridlimit.micronaut.catalog.PolicySource catalog) {
        this.catalog = catalog;
        this.rateLimiter = rateLimiter;
        this.policies = policies;
        this.metrics = metrics;
        this.timeoutNanos = saturatedNanos(settings.timeout());
    }

    /**
     * Decides one check.
     *
     * @param body the raw request body, JSON {@code {"policy", "key", "cost"}}; null when absent
     * @return a future of 200 with a {@link CheckResponse}, or of a problem response (400, 404, 503)
     */
    @Post(uri = "/check", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public CompletableFuture<HttpResponse<?>> check(@Body @Nullable byte[] body) {
        CheckRequests.Check check;
        try {
            check = CheckRequests.single(parse(body), policies);
        } catch (InvalidCheckException e) {
            return CompletableFuture.completedFuture(ApiProblems.of(e.status(), e.getMessage()));
        }
        return withTimeout(decide(check))
                .<HttpResponse<?>>thenApply(HttpResponse::ok)
                .exceptionally(e -> failure(e, List.of(check)));
    }

    /**
     * Decides a batch of checks, validated whole first.
     *
     * @param body the raw request body, JSON {@code {"checks": [...]}}; null when absent
     * @return a future of 200 with a {@link BatchCheckResponse} in request order, or of a problem response
     *     (400, 404, 503)
     */
    @Post(uri = "/check/batch", consumes = MediaType.APPLICATION_JSON,
            produces = {MediaType.APPLICATION_JSON, Problem.MEDIA_TYPE})
    public CompletableFuture<HttpResponse<?>> batch(@Body @Nullable byte[] body) {
        List<CheckRequests.Check> checks;
        try {
            checks = CheckRequests.batch(parse(body), policies, MAX_BATCH_CHECKS);
        } catch (InvalidCheckException e) {
            return CompletableFuture.completedFuture(ApiProblems.of(e.status(), e.getMessage()));
        }
        List<CompletableFuture<CheckResponse>> decisions = new ArrayList<>(checks.size());
        Map<String, CompletableFuture<CheckResponse>> lastByKey = new HashMap<>();
        for (CheckRequests.Check check : checks) {
            // Same policy and key: decide after the previous check of that key, in request order.
            String id = check.policy().name() + '\u0000' + check.key();
            CompletableFuture<CheckResponse> previous = lastByKey.get(id);
            CompletableFuture<CheckResponse> decision = previous == null ? decide(check)
                    : previous.thenCompose(ignored -> decide(check));
            lastByKey.put(id, decision);
            decisions.add(decision);
        }
        return withTimeout(allOrFirstFailure(decisions))
                .<HttpResponse<?>>thenApply(ignored -> HttpResponse.ok(
                        new BatchCheckResponse(decisions.stream().map(CompletableFuture::join).toList())))
                .exceptionally(e -> failure(e, checks));
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
                return ApiProblems.of(HttpStatus.REQUEST_ENTITY_TOO_LARGE, DecisionApiErrorFilter.TOO_LARGE_DETAIL);
            }
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

    private static JsonNode parse(@Nullable byte[] body) throws InvalidCheckException {
        if (body == null || body.length == 0) {
            return null;
        }
        // Exactly one JSON value, no duplicate members, number literals kept exact; messages never quote the body.
        return StrictJson.parse(body);
    }

    private CompletableFuture<CheckResponse> decide(CheckRequests.Check check) {
        CompletableFuture<CheckResponse> result = new CompletableFuture<>();
        CompletionStage<Decision> stage;
        // an override of this key names the policy that decides it instead (docs/SPEC.md §11)
        io.gridlimit.api.Policy policy = catalog.resolve(check.policy(), check.key());
        try {
            // on the state of the policy asked for: removing or changing the override carries it over (SPEC §4)
            stage = rateLimiter.tryAcquireAsync(catalog.onStateOf(policy, check.policy().name()), check.key(),
                    check.cost());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return result;
        }
        String policyName = policy.name();
        stage.whenComplete((decision, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                metrics.decision(GridLimitMetrics.Source.API, policyName,
                        decision.allowed() ? GridLimitMetrics.Outcome.ALLOWED : GridLimitMetrics.Outcome.DENIED);
                result.complete(CheckResponse.of(decision, policyName));
            }
        });
        return result;
    }

    /** Completes when every future has, or exceptionally as soon as one fails (unlike {@code allOf}). */
    private static CompletableFuture<Void> allOrFirstFailure(List<CompletableFuture<CheckResponse>> futures) {
        CompletableFuture<Void> all = new CompletableFuture<>();
        AtomicInteger pending = new AtomicInteger(futures.size());
        for (CompletableFuture<CheckResponse> f : futures) {
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
