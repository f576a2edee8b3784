package io.gridlimit.micronaut.filter;

import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.config.OnMissingKey;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.metrics.GridLimitMetrics.Outcome;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.FilterContinuation;
import io.micronaut.http.filter.ServerFilterPhase;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.web.router.RouteMatch;
import io.netty.channel.EventLoop;
import org.reactivestreams.Publisher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP rate-limit filter (SPEC §4-7), a coordinator of four steps, each a type of its own:
 * <ol>
 *   <li>{@link RuleMatcher}: the rules that apply (none on an exempt path);</li>
 *   <li>{@link KeyResolver}: each rule's key, and {@link PolicySource} its policy for this request (plan, override,
 *       catalog; local copies only, docs/SPEC.md §11); a key missing because the request is malformed, or absent under
 *       {@code on-missing-key: reject}, answers 400 (later rules are not asked); an absent key under {@code skip}
 *       drops the rule (SPEC §6); counted either way with its own outcome;</li>
 *   <li>{@link GridAsker}: the grid's decisions through the door-neutral {@link io.gridlimit.micronaut.decide.Decider},
 *       one rule after the other, never blocking the event loop, with {@code grid-timeout} and the failure modes;</li>
 *   <li>{@link ResponseWriter}: the headers of the binding rule on the downstream response, or the 429 / 503
 *       problem.</li>
 * </ol>
 * A request stopped by a rule (429 or 503) gives back what the rules before it took (all-or-nothing,
 * docs/SPEC.md §10); an admitted request keeps its rules' reservations on the request for {@link RateLimitCost},
 * and a {@value RateLimitCost#ACTUAL_COST_HEADER} response header settles them (the header is removed).
 * Every decision is counted in {@value GridLimitMetrics#DECISIONS} with {@code source=filter}: allowed, denied,
 * shadow_denied ({@code mode=grid}), fallback (with the failure mode), missing_key_rejected, missing_key_skipped.
 *
 * <p>It runs after the security phase ({@link ServerFilterPhase#SECURITY}), so {@code principal} keys see the
 * authenticated user. The request's answer is completed on its event loop. Thread-safe.
 */
@ServerFilter(Filter.MATCH_ALL_PATTERN)
public class RateLimitFilter implements Ordered {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RateLimitFilter.class);
    /** Problem type of a 429; see {@link ResponseWriter#QUOTA_EXCEEDED}. */
    public static final String QUOTA_EXCEEDED = ResponseWriter.QUOTA_EXCEEDED;
    /** Problem type of the failure-mode closed 503; see {@link ResponseWriter#TEMPORARY_REDUCED_CAPACITY}. */
    public static final String TEMPORARY_REDUCED_CAPACITY = ResponseWriter.TEMPORARY_REDUCED_CAPACITY;

    private final RuleMatcher rules;
    private final KeyResolver keys;
    private final GridAsker grid;
    private final ResponseWriter responses;
    private final GridLimitMetrics metrics;
    private final PolicySource policies;

    /**
     * @param rules finds the matching rules
     * @param keys builds keys
     * @param grid asks the grid
     * @param responses writes the answer
     * @param metrics counts
     * @param policies resolves each rule's policy for the request (plan, override, catalog: SPEC §11)
     */
    public RateLimitFilter(RuleMatcher rules, KeyResolver keys, GridAsker grid, ResponseWriter responses,
                           GridLimitMetrics metrics, PolicySource policies) {
        this.rules = rules;
        this.keys = keys;
        this.grid = grid;
        this.responses = responses;
        this.metrics = metrics;
        this.policies = policies;
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
        List<RouteRule> matching = rules.match(request, routeMatch);
        if (matching.isEmpty()) {
            return chain.proceed();
        }
        List<RuleCheck> checks = new ArrayList<>(matching.size());
        for (RouteRule rule : matching) {
            KeyResolver.Resolved resolved = keys.resolve(rule, request);
            if (resolved.present()) {
                checks.add(new RuleCheck(rule, policies.ask(rule, resolved.key(), request)));
            } else if (resolved.malformed() || rule.onMissingKey() == OnMissingKey.REJECT) {
                // a key missing because the request is malformed is always rejected: skip is for absent keys
                metrics.decision(rule.policy().name(), Outcome.MISSING_KEY_REJECTED);
                return Publishers.just(responses.missingKey(resolved.missing()));
            } else {
                metrics.decision(rule.policy().name(), Outcome.MISSING_KEY_SKIPPED);
            }
        }
        if (checks.isEmpty()) {
            return chain.proceed();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        EventLoop loop = request instanceof NettyHttpRequest<?> netty
                ? netty.getChannelHandlerContext().channel().eventLoop() : null;
        RateLimitCost.Held[] held = new RateLimitCost.Held[1];
        return new DeferredResponse(grid.ask(checks, loop).thenApply(asked -> {
            List<RuleResult> results = asked.results();
            count(results);
            MutableHttpResponse<?> stopped = responses.respond(checks, results, headers);
            if (stopped != null) {
                // all-or-nothing (SPEC §10): a stopped request consumed nothing under its other rules
                asked.decisions().close(results.get(results.size() - 1).failed()
                        ? GridLimitMetrics.GiveBackReason.FAILED : GridLimitMetrics.GiveBackReason.DENIED);
            } else {
                asked.decisions().keep(); // admitted: its reservations stand, for the handler's settle
                held[0] = new RateLimitCost.Held(asked.decisions());
                request.setAttribute(RateLimitCost.ATTRIBUTE, held[0]);
                for (RuleResult r : results) {
                    if (r.decision() != null && r.decision().reservation() != null) {
                        metrics.reservation(GridLimitMetrics.Source.FILTER, r.check().policy().name());
                    }
                }
            }
            return stopped;
        }), chain::proceed, response -> {
            headers.forEach((name, value) -> response.getHeaders().set(name, value));
            actualCostHeader(response, held[0]);
            return response;
        });
    }

    /** The handler's {@value RateLimitCost#ACTUAL_COST_HEADER}: removed from the response, settled with. */
    private void actualCostHeader(MutableHttpResponse<?> response, RateLimitCost.@Nullable Held held) {
        String value = response.getHeaders().get(RateLimitCost.ACTUAL_COST_HEADER);
        if (value == null) {
            return;
        }
        response.getHeaders().remove(RateLimitCost.ACTUAL_COST_HEADER);
        long actual = parseActual(value);
        if (held == null || actual < 0) {
            LOG.debug("ignored {}: {}", RateLimitCost.ACTUAL_COST_HEADER,
                    held == null ? "the request holds no reservation" : "not an integer in [0, 10^15]");
            return;
        }
        if (held.claim()) {
            RateLimitCost.settle(held, actual);
        }
    }

    /** A decimal integer in [0, 10^15] (digits only, at most 16), else -1. */
    static long parseActual(String value) {
        String v = value.trim();
        if (v.isEmpty() || v.length() > 16) {
            return -1;
        }
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return -1;
            }
        }
        long n = Long.parseLong(v);
        return n <= io.gridlimit.api.RateLimiter.MAX_COST ? n : -1;
    }

    private void count(List<RuleResult> results) {
        for (RuleResult r : results) {
            RouteRule rule = r.check().rule();
            String policy = r.check().policy().name();
            if (r.failed() || r.local()) {
                metrics.fallback(policy, grid.failureMode());
            } else if (r.decision().allowed()) {
                metrics.decision(policy, Outcome.ALLOWED);
            } else {
                metrics.decision(policy, rule.shadow() ? Outcome.SHADOW_DENIED : Outcome.DENIED);
            }
        }
    }
}
