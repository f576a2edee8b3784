package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.OnMissingKey;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.metrics.GridLimitMetrics.Outcome;
import io.gridlimit.micronaut.problem.Problem;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.FilterContinuation;
import io.micronaut.http.filter.ServerFilterPhase;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.json.JsonMapper;
import io.micronaut.web.router.RouteMatch;
import io.netty.channel.EventLoop;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP rate-limit filter (SPEC §4-7). For each request whose normalised path (SPEC §7) is not exempt, it
 * collects the matching rules: route rules ({@code gridlimit.routes}) in declared order, then the matched
 * controller method's {@link RateLimited} rule. It resolves every rule's key first (SPEC §6: a missing key answers
 * 400 under {@code on-missing-key: reject}, or drops the rule under {@code skip}), then asks the grid one rule
 * after the other with {@link RateLimiter#tryAcquireAsync}, each answer bounded by {@code grid-timeout}. The
 * Netty event loop never waits: the filter returns a future, completed back on the request's event loop.
 *
 * <ul>
 *   <li>All admit (shadow policies never deny): the request proceeds and the response gets the headers of the
 *       binding rule (SPEC §4: smallest remaining, then nearest reset, then first declared).</li>
 *   <li>A rule that is not in shadow mode denies: later rules are not asked (consumption by earlier rules stands,
 *       SPEC §4) and the answer is 429 with the headers, {@code Retry-After} (delta-seconds, rounded up, so never
 *       0; absent when the cost can never pass) and an {@code application/problem+json} quota-exceeded body.</li>
 *   <li>The grid fails or does not answer in time: {@code failure-mode: open} lets the request through without
 *       rate-limit headers; {@code closed} answers 503 with {@code Retry-After: 1} and a
 *       temporary-reduced-capacity problem (SPEC §5); {@code local} decides that rule on this replica's
 *       {@link LocalFallback} (quota divided by the expected replicas) and carries on as with a grid decision: the
 *       headers, 429 and problem are those of the local decision, and {@code RateLimit-Policy} shows the divided
 *       quota of that rule. Every request still asks the grid first, so decisions return to the grid as soon as it
 *       answers. Each failure-mode answer is counted as {@code outcome=fallback} with the {@code mode}.</li>
 * </ul>
 *
 * <p>It runs after the security phase ({@link ServerFilterPhase#SECURITY}), so {@code principal} keys see the
 * authenticated user. Thread-safe.
 */
@ServerFilter(Filter.MATCH_ALL_PATTERN)
public class RateLimitFilter implements Ordered {
    /** Problem type of a 429 (draft-ietf-httpapi-ratelimit-headers, "Quota Exceeded"). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    /** Problem type of the failure-mode closed 503 (same draft, "Temporary Reduced Capacity"). */
    public static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    private static final Logger LOG = LoggerFactory.getLogger(RateLimitFilter.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final GridLimitConfig config;
    private final RateLimitedRoutes annotated;
    private final KeyResolver keys;
    private final RateLimiter limiter;
    private final GridLimitMetrics metrics;
    private final LocalFallback local;
    private final JsonMapper json;
    private final long timeoutNanos;
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * @param config the checked configuration
     * @param annotated the {@code @RateLimited} rules
     * @param keys builds keys
     * @param limiter decides
     * @param metrics counts
     * @param json writes problem bodies
     * @param local decides when the grid cannot, under {@code failure-mode: local}
     */
    public RateLimitFilter(GridLimitConfig config, RateLimitedRoutes annotated, KeyResolver keys,
                           RateLimiter limiter, GridLimitMetrics metrics, JsonMapper json, LocalFallback local) {
        this.local = local;
        this.config = config;
        this.annotated = annotated;
        this.keys = keys;
        this.limiter = limiter;
        this.metrics = metrics;
        this.json = json;
        this.timeoutNanos = config.gridTimeout().toNanos();
    }

    @Override
    public int getOrder() {
        return ServerFilterPhase.SECURITY.after();
    }

    /**
     * Decides a request.
     *
     * @param request the request
     * @param routeMatch the matched route, or null (no route: 404/405 paths are still limited by route rules)
     * @param chain the rest of the filter chain and the route
     * @return a publisher of the response: the downstream one with the rate-limit headers added, or the 400, 429
     *     or 503 answer. (Not a {@code CompletableFuture<@Nullable HttpResponse>}: Micronaut 4.10 drops a null
     *     that completes a pending future and answers 503.)
     */
    @RequestFilter
    public Publisher<MutableHttpResponse<?>> limit(HttpRequest<?> request, @Nullable RouteMatch<?> routeMatch,
                                                  FilterContinuation<Publisher<MutableHttpResponse<?>>> chain) {
        String path = PathNormalizer.normalize(request.getPath());
        if (config.isExempt(path)) {
            return chain.proceed();
        }
        List<RouteRule> rules = new ArrayList<>();
        String method = request.getMethodName();
        for (RouteRule rule : config.routes()) {
            if (rule.matches(method, path)) {
                rules.add(rule);
            }
        }
        annotated.ruleFor(routeMatch == null ? null : routeMatch.getRouteInfo()).ifPresent(rules::add);
        if (rules.isEmpty()) {
            return chain.proceed();
        }
        List<Check> checks = new ArrayList<>(rules.size());
        for (RouteRule rule : rules) {
            KeyResolver.Resolved resolved = keys.resolve(rule, request);
            if (resolved.present()) {
                checks.add(new Check(rule, resolved.key()));
            } else if (resolved.malformed() || rule.onMissingKey() == OnMissingKey.REJECT) {
                // a key missing because the request is malformed is always rejected: skip is for absent keys
                return Publishers.just(problem(HttpStatus.BAD_REQUEST, Problem.of(400, "Bad Request",
                        "This request has no rate-limit key: missing " + resolved.missing() + "."), Map.of()));
            }
        }
        if (checks.isEmpty()) {
            return chain.proceed();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        EventLoop loop = request instanceof NettyHttpRequest<?> netty
                ? netty.getChannelHandlerContext().channel().eventLoop() : null;
        CompletableFuture<@Nullable MutableHttpResponse<?>> answer = run(checks, 0, new ArrayList<>(), loop)
                .thenApply(results -> respond(checks, results, headers));
        return new DeferredResponse(onEventLoop(loop, answer), chain::proceed, response -> {
            headers.forEach((name, value) -> response.getHeaders().set(name, value));
            return response;
        });
    }

    /**
     * Decides the checks one after the other; with a Netty request every answer, and every timeout, is delivered
     * on the request's event loop ({@code loop}), so no other thread touches the request.
     */
    private CompletableFuture<List<Result>> run(List<Check> checks, int index, List<Result> done,
                                                @Nullable EventLoop loop) {
        if (index == checks.size()) {
            return CompletableFuture.completedFuture(done);
        }
        Check check = checks.get(index);
        return decide(check, loop).thenCompose(result -> {
            done.add(result);
            if (result.failed() || (!result.decision().allowed() && !check.rule().shadow())) {
                return CompletableFuture.completedFuture(done);
            }
            return run(checks, index + 1, done, loop);
        });
    }

    private CompletableFuture<Result> decide(Check check, @Nullable EventLoop loop) {
        Policy policy = check.rule().policy();
        long startNanos = System.nanoTime();
        CompletableFuture<Decision> answer = new CompletableFuture<>();
        CompletableFuture<Decision> asked = null;
        try {
            CompletionStage<Decision> stage = loop == null
                    ? limiter.tryAcquireAsync(policy, check.key(), check.rule().cost())
                    : limiter.tryAcquireAsync(policy, check.key(), check.rule().cost(), loop);
            asked = stage instanceof CompletableFuture<Decision> future ? future : null;
            stage.whenComplete((decision, error) -> {
                if (error != null) {
                    answer.completeExceptionally(error);
                } else {
                    answer.complete(decision);
                }
            });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        if (!answer.isDone()) {
            scheduleTimeout(answer, loop);
            CompletableFuture<Decision> pending = asked;
            // on a timeout, cancel the request: if it is still queued on this replica (coalescing), it is never
            // sent and consumes nothing
            answer.whenComplete((decision, error) -> {
                if (error instanceof TimeoutException && pending != null) {
                    pending.cancel(false);
                }
            });
        }
        return answer.handle((decision, error) -> {
            metrics.latency(policy.name(), System.nanoTime() - startNanos);
            if (error == null) {
                return new Result(check, decision, false, false);
            }
            Throwable cause = unwrap(error);
            boolean timeout = cause instanceof TimeoutException;
            metrics.gridError(policy.name(), timeout);
            long now = System.nanoTime();
            long last = lastWarnNanos.get();
            boolean warn = now - last >= WARN_INTERVAL_NANOS && lastWarnNanos.compareAndSet(last, now);
            if (warn || LOG.isDebugEnabled()) {
                String message = timeout ? "grid did not answer policy '" + policy.name() + "' within "
                        + config.gridTimeout() : "grid failed to decide policy '" + policy.name() + "': " + cause;
                if (warn) {
                    LOG.warn("{} (failure-mode {}; logged at most every 10 s, see metric {})", message,
                            config.failureMode().name().toLowerCase(Locale.ROOT), GridLimitMetrics.GRID_ERRORS);
                } else {
                    LOG.debug(message);
                }
            }
            if (config.failureMode() == FailureMode.LOCAL) {
                try {
                    return new Result(check, local.decide(policy, check.key(), check.rule().cost()), false, true);
                } catch (RuntimeException e) {
                    LOG.warn("local fallback failed for policy '{}' ({}); the request is let through",
                            policy.name(), e.toString());
                }
            }
            return new Result(check, null, true, false);
        });
    }

    /**
     * Fails {@code answer} with a {@link TimeoutException} after {@code grid-timeout}: on the request's event
     * loop's own timer (cancelled when the answer comes), or, without a loop or when the loop refuses the task
     * (shutting down), with {@link CompletableFuture#orTimeout}.
     */
    private void scheduleTimeout(CompletableFuture<Decision> answer, @Nullable EventLoop loop) {
        if (loop != null) {
            try {
                ScheduledFuture<?> timer = loop.schedule(() -> {
                    answer.completeExceptionally(new TimeoutException());
                }, timeoutNanos, TimeUnit.NANOSECONDS);
                answer.whenComplete((decision, error) -> timer.cancel(false));
                return;
            } catch (RejectedExecutionException e) {
                // the loop is shutting down: fall back to the JDK's timer below
            }
        }
        answer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private @Nullable MutableHttpResponse<?> respond(List<Check> checks, List<Result> results,
                                                     Map<String, String> admittedHeaders) {
        Result last = results.get(results.size() - 1);
        for (Result r : results) {
            String policy = r.check().rule().policy().name();
            if (r.failed() || r.local()) {
                metrics.fallback(policy, config.failureMode());
            } else if (r.decision().allowed()) {
                metrics.decision(policy, Outcome.ALLOWED);
            } else {
                metrics.decision(policy, r.check().rule().shadow() ? Outcome.SHADOW_DENIED : Outcome.DENIED);
            }
        }
        if (last.failed()) {
            if (config.failureMode() != FailureMode.CLOSED) {
                return null; // open; or local whose own decision failed (logged): let through
            }
            Map<String, String> headers = Map.of(RateLimitHeaders.RETRY_AFTER, "1");
            return problem(HttpStatus.SERVICE_UNAVAILABLE, new Problem(TEMPORARY_REDUCED_CAPACITY,
                    "Service temporarily unable to satisfy the request due to reduced capacity", 503,
                    "The rate-limit grid did not answer in time; retry after 1 second.", null), headers);
        }
        List<Policy> policies = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            policies.add(i < results.size() ? results.get(i).policy(local) : checks.get(i).rule().policy());
        }
        if (!last.decision().allowed() && !last.check().rule().shadow()) {
            Policy policy = last.policy(local);
            Decision d = last.decision();
            Map<String, String> headers = new LinkedHashMap<>();
            RateLimitHeaders.write(config.headers(), policies, policy, d, headers);
            String violated = RateLimitHeaders.itemName(policy, d.band());
            String detail;
            if (d.isUnsatisfiable()) {
                detail = "The cost of this request exceeds what policy '" + violated + "' can ever admit.";
            } else {
                long retrySeconds = RateLimitHeaders.ceilSeconds(d.retryAfterNanos());
                headers.put(RateLimitHeaders.RETRY_AFTER, Long.toString(retrySeconds));
                detail = "Quota of policy '" + violated + "' exceeded; retry after " + retrySeconds + " s.";
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("rate limited: policy={} key#={}", violated, KeyResolver.logHash(last.check().key()));
            }
            return problem(HttpStatus.TOO_MANY_REQUESTS, new Problem(QUOTA_EXCEEDED,
                    "Request cannot be satisfied as assigned quota has been exceeded", 429, detail,
                    List.of(violated)), headers);
        }
        Result binding = results.get(0);
        for (Result r : results) {
            Decision d = r.decision();
            Decision b = binding.decision();
            if (d.remaining() < b.remaining()
                    || (d.remaining() == b.remaining() && d.resetAfterNanos() < b.resetAfterNanos())) {
                binding = r;
            }
        }
        RateLimitHeaders.write(config.headers(), policies, binding.policy(local), binding.decision(),
                admittedHeaders);
        return null;
    }

    private MutableHttpResponse<?> problem(HttpStatus status, Problem problem, Map<String, String> headers) {
        String body;
        try {
            body = json.writeValueAsString(problem);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a problem body", e);
        }
        MutableHttpResponse<String> response = HttpResponse.<String>status(status)
                .contentType(Problem.MEDIA_TYPE).body(body);
        headers.forEach(response::header);
        return response;
    }

    /**
     * The answer, completed on the request's event loop: as is when it already completes there (the usual case:
     * decisions and timeouts are delivered on the loop), else handed to the loop; completed where it is if the
     * loop rejects the task (shutting down), so the request is never left hanging.
     */
    private static <T> CompletableFuture<T> onEventLoop(@Nullable EventLoop loop, CompletableFuture<T> future) {
        if (loop == null || future.isDone()) {
            return future;
        }
        CompletableFuture<T> onLoop = new CompletableFuture<>();
        future.whenComplete((value, error) -> {
            Runnable complete = () -> {
                if (error != null) {
                    onLoop.completeExceptionally(error);
                } else {
                    onLoop.complete(value);
                }
            };
            if (loop.inEventLoop()) {
                complete.run();
                return;
            }
            try {
                loop.execute(complete);
            } catch (RejectedExecutionException e) {
                complete.run();
            }
        });
        return onLoop;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** A rule with its resolved key. */
    private record Check(RouteRule rule, String key) {
    }

    /**
     * A rule's decision, or its failure (timeout or grid error) with a null decision; {@code local} when the
     * decision is {@link LocalFallback}'s.
     */
    private record Result(Check check, @Nullable Decision decision, boolean failed, boolean local) {
        /** @return the policy the decision was taken against: the derived one for a local decision */
        Policy policy(LocalFallback fallback) {
            Policy configured = check.rule().policy();
            if (local) {
                Policy derived = fallback.derived(configured.name());
                return derived == null ? configured : derived;
            }
            return configured;
        }
    }
}
