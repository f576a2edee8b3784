package io.gridlimit.micronaut.filter;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.RateLimitHeaders;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.problem.Problem;
import io.gridlimit.micronaut.problem.ProblemResponses;
import io.gridlimit.time.TimeSource;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a request's rule results into the filter's answer (SPEC §4-5): the rate-limit headers of the binding rule
 * for an admitted request, or the 400, 429 or 503 {@code application/problem+json} response (each with
 * {@code Date}, written by {@link ProblemResponses}).
 *
 * <ul>
 *   <li>All admit (shadow policies never deny): no response; the headers of the binding rule
 *       ({@link Decision#bindsBefore}: smallest remaining, then nearest reset, then first declared) go onto the
 *       downstream response.</li>
 *   <li>A rule not in shadow mode denies: 429 with the headers, {@code Retry-After} (delta-seconds, rounded up,
 *       never 0; absent when the cost can never pass) and a quota-exceeded problem naming the violated policy.</li>
 *   <li>The last rule failed: {@code closed} (and {@code local} for a policy without a local share, or whose own
 *       decision failed) answers 503 with {@code Retry-After: 1} and a temporary-reduced-capacity problem;
 *       {@code open} lets the request through without headers. A {@code local} decision is written as a grid decision, against this
 *       replica's share of the policy ({@code RateLimit-Policy} shows the divided quota).</li>
 * </ul>
 * Thread-safe.
 */
@Singleton
public class ResponseWriter {
    /** Problem type of a 429; see {@link Problem#QUOTA_EXCEEDED}. */
    public static final String QUOTA_EXCEEDED = Problem.QUOTA_EXCEEDED;
    /** Problem type of the failure-mode closed 503; see {@link Problem#TEMPORARY_REDUCED_CAPACITY}. */
    public static final String TEMPORARY_REDUCED_CAPACITY = Problem.TEMPORARY_REDUCED_CAPACITY;

    private static final Logger LOG = LoggerFactory.getLogger(RateLimitFilter.class);

    private final GridLimitConfig config;
    private final ProblemResponses problems;
    private final TimeSource clock;

    /**
     * @param config the checked configuration: header mode and failure mode
     * @param problems writes problem bodies
     * @param clock cluster time, read for a calendar band's {@code w} (docs/SPEC.md §5, §14)
     */
    public ResponseWriter(GridLimitConfig config, ProblemResponses problems, TimeSource clock) {
        this.config = config;
        this.problems = problems;
        this.clock = clock;
    }

    /**
     * @param missing what is missing (never a value), from {@link KeyResolver.Resolved#missing()}
     * @return the 400 of a request without a rate-limit key under {@code on-missing-key: reject}
     */
    MutableHttpResponse<?> missingKey(String missing) {
        return problems.write(HttpStatus.BAD_REQUEST, Problem.of(400, "Bad Request",
                "This request has no rate-limit key: missing " + missing + "."), Map.of());
    }

    /**
     * The answer to a request whose rules were asked.
     *
     * @param checks every matching rule with its key, in order
     * @param results the results of the rules asked, in order (a prefix of {@code checks}, at least one)
     * @param admittedHeaders receives the rate-limit headers when the request is admitted
     * @return the 429 or 503 response, or null to let the request through
     */
    @Nullable MutableHttpResponse<?> respond(List<RuleCheck> checks, List<RuleResult> results,
                                             Map<String, String> admittedHeaders) {
        RuleResult last = results.get(results.size() - 1);
        if (last.failed()) {
            if (config.failureMode() == FailureMode.OPEN) {
                return null; // open lets through; local without a share of the policy answers as closed
            }
            return problems.write(HttpStatus.SERVICE_UNAVAILABLE, new Problem(TEMPORARY_REDUCED_CAPACITY,
                    "Service temporarily unable to satisfy the request due to reduced capacity", 503,
                    "The rate-limit grid did not answer in time; retry after 1 second.", null),
                    Map.of(RateLimitHeaders.RETRY_AFTER, "1"));
        }
        List<Policy> policies = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            policies.add(i < results.size() ? results.get(i).policy() : checks.get(i).policy());
        }
        if (last.stops()) {
            return tooManyRequests(last, policies);
        }
        RuleResult binding = results.get(0);
        for (RuleResult r : results) {
            if (r.decision().bindsBefore(binding.decision())) {
                binding = r;
            }
        }
        RateLimitHeaders.write(config.headers(), policies, binding.policy(), binding.decision(), clock,
                admittedHeaders);
        return null;
    }

    private MutableHttpResponse<?> tooManyRequests(RuleResult denied, List<Policy> policies) {
        Policy policy = denied.policy();
        Decision d = denied.decision();
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.write(config.headers(), policies, policy, d, clock, headers);
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
            LOG.debug("rate limited: policy={} key#={}", violated, KeyResolver.logHash(denied.check().key()));
        }
        return problems.write(HttpStatus.TOO_MANY_REQUESTS, new Problem(QUOTA_EXCEEDED,
                "Request cannot be satisfied as assigned quota has been exceeded", 429, detail,
                List.of(violated)), headers);
    }
}
