package io.gridlimit.envoy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.HeaderMode;
import io.gridlimit.micronaut.decide.RateLimitHeaders;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.problem.Problem;
import io.gridlimit.time.SystemTimeSource;
import io.micronaut.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds {@link EnvoyRateLimitService}'s answer from its descriptors' outcomes and counts them (docs/SPEC.md §12):
 * one status per descriptor ({@code current_limit} is the configured rule, {@code limit_remaining} and
 * {@code duration_until_reset} the decision's, uint32 saturating; a block list's: 0 and the time left in its unit's
 * window), the SPEC §5 header fields of the decided policies and the binding descriptor in
 * {@code response_headers_to_add}, and on OVER_LIMIT {@code Retry-After} (unless the cost can never pass; none of
 * these when a block list binds, which has no policy), {@code content-type: application/problem+json} and the
 * quota-exceeded problem as {@code raw_body}. Thread-safe.
 */
final class RlsAnswers {
    private static final long MAX_UINT32 = 0xFFFF_FFFFL;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final HeaderMode headerMode;
    private final RlsCompatibility compatibility;
    private final GridLimitMetrics metrics;
    private final JsonMapper json;

    /**
     * @param headerMode which header fields are written ({@code gridlimit.headers}) under {@code gridlimit}
     * @param compatibility under {@code reference}, whether and under which names its three headers are written
     * @param metrics counts decisions ({@code source=envoy})
     * @param json writes problem bodies
     */
    RlsAnswers(HeaderMode headerMode, RlsCompatibility compatibility, GridLimitMetrics metrics, JsonMapper json) {
        this.headerMode = headerMode;
        this.compatibility = compatibility;
        this.metrics = metrics;
        this.json = json;
    }

    /**
     * @param matched each descriptor's rule (null: none)
     * @param outcomes each limited descriptor's outcome (null: not decided)
     * @param over whether a descriptor not in shadow mode is over its limit
     * @return the response to send
     */
    RateLimitResponse response(RlsRule[] matched, RlsOutcome[] outcomes, boolean over) {
        RateLimitResponse.Builder response = RateLimitResponse.newBuilder()
                .setOverallCode(over ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK);
        List<Policy> policies = new ArrayList<>();
        RlsOutcome binding = null;
        for (int i = 0; i < matched.length; i++) {
            RateLimitResponse.DescriptorStatus.Builder s = RateLimitResponse.DescriptorStatus.newBuilder()
                    .setCode(RateLimitResponse.Code.OK);
            RlsRule rule = matched[i];
            RlsOutcome o = outcomes[i];
            if (rule != null && rule.unlimited()) {
                s.setLimitRemaining(EnvoyRateLimitService.UNLIMITED_REMAINING);
            } else if (o != null && o.source() == RlsOutcome.Source.BLOCKED) {
                // a block list: over its limit whatever the cost, no policy, nothing stored (SPEC §12)
                s.setCode(o.denies() ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK)
                        .setCurrentLimit(currentLimit(rule))
                        .setLimitRemaining(0)
                        .setDurationUntilReset(duration(o.blockResetNanos()));
                if (over) {
                    binding = RlsOutcome.binds(o, binding, true);
                }
            } else if (o != null && o.decision() != null) {
                Decision d = o.decision();
                s.setCode(o.denies() ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK)
                        .setCurrentLimit(currentLimit(rule))
                        .setLimitRemaining((int) Math.min(d.remaining(), MAX_UINT32))
                        .setDurationUntilReset(duration(d.resetAfterNanos()));
                policies.add(o.against());
                binding = RlsOutcome.binds(o, binding, over);
            }
            response.addStatuses(s);
        }
        if (binding != null) {
            headers(response, policies, binding, over);
        }
        return response.build();
    }

    /**
     * The answer as envoyproxy/ratelimit shapes it ({@code compatibility: reference}, docs/SPEC.md §12): statuses as
     * in {@link #response}, but {@code duration_until_reset} in whole seconds to the end of the unit's window
     * aligned to epoch 0 (the decision's reset rounded up, or from the replica's clock while nothing is counted);
     * no {@code raw_body}, no {@code Retry-After} and no SPEC §5 fields; when its headers are on, the three of the
     * descriptor envoyproxy/ratelimit picks: the last OVER_LIMIT one not in quota mode, else the first of the least
     * remaining among those with a limit.
     *
     * @param matched each descriptor's rule (null: none)
     * @param outcomes each limited descriptor's outcome (null: not decided)
     * @param over whether the call is answered OVER_LIMIT
     * @param nowNanos the replica's time, epoch nanoseconds
     * @return the response to send
     */
    RateLimitResponse referenceResponse(RlsRule[] matched, RlsOutcome[] outcomes, boolean over, long nowNanos) {
        RateLimitResponse.Builder response = RateLimitResponse.newBuilder()
                .setOverallCode(over ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK);
        RateLimitResponse.DescriptorStatus.Builder minimum = null;
        int minimumRemaining = -1; // 2^32 - 1, compared unsigned as the reference's uint32
        for (int i = 0; i < matched.length; i++) {
            RateLimitResponse.DescriptorStatus.Builder s = RateLimitResponse.DescriptorStatus.newBuilder()
                    .setCode(RateLimitResponse.Code.OK);
            RlsRule rule = matched[i];
            RlsOutcome o = outcomes[i];
            if (rule != null && rule.unlimited()) {
                s.setLimitRemaining(EnvoyRateLimitService.UNLIMITED_REMAINING);
            } else if (o != null && (o.source() == RlsOutcome.Source.BLOCKED || o.decision() != null)) {
                boolean blocked = o.source() == RlsOutcome.Source.BLOCKED;
                long resetNanos = blocked ? o.blockResetNanos() : o.decision().resetAfterNanos();
                long windowSeconds = rule.unit().length().toSeconds();
                long seconds = resetNanos > 0 ? RateLimitHeaders.ceilSeconds(resetNanos)
                        : windowSeconds - Math.floorMod(Math.floorDiv(nowNanos, NANOS_PER_SECOND), windowSeconds);
                s.setCode(o.denies() ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK)
                        .setCurrentLimit(currentLimit(rule))
                        // over its limit: 0, the reference's value (the decision tells what was left before the hit)
                        .setLimitRemaining(blocked || o.over() ? 0 : (int) Math.min(o.decision().remaining(),
                                MAX_UINT32))
                        .setDurationUntilReset(Duration.newBuilder().setSeconds(seconds));
                if (Integer.compareUnsigned(s.getLimitRemaining(), minimumRemaining) < 0) {
                    minimum = s;
                    minimumRemaining = s.getLimitRemaining();
                }
                if (o.denies() && !rule.quotaMode()) {
                    minimum = s;
                    minimumRemaining = 0;
                }
            }
            response.addStatuses(s);
        }
        if (compatibility.headers() && minimum != null) {
            response.addResponseHeadersToAdd(header(compatibility.limitHeader(),
                    Integer.toUnsignedString(minimum.getCurrentLimit().getRequestsPerUnit())));
            response.addResponseHeadersToAdd(header(compatibility.remainingHeader(),
                    Integer.toUnsignedString(minimum.getLimitRemaining())));
            response.addResponseHeadersToAdd(header(compatibility.resetHeader(),
                    Long.toString(minimum.getDurationUntilReset().getSeconds())));
        }
        return response.build();
    }

    private static HeaderValue.Builder header(String name, String value) {
        return HeaderValue.newBuilder().setKey(name).setValue(value);
    }

    private static RateLimitResponse.RateLimit.Builder currentLimit(RlsRule rule) {
        return RateLimitResponse.RateLimit.newBuilder()
                .setName(rule.name() == null ? "" : rule.name())
                .setRequestsPerUnit((int) rule.requestsPerUnit())
                .setUnit(rule.unit().proto());
    }

    private void headers(RateLimitResponse.Builder response, List<Policy> policies, RlsOutcome binding,
                         boolean over) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (binding.source() == RlsOutcome.Source.BLOCKED) {
            // no policy to show (SPEC §12: no RateLimit fields, no Retry-After: it never passes)
            String rule = binding.check().rule().policyName();
            headers.put("content-type", Problem.MEDIA_TYPE);
            response.setRawBody(ByteString.copyFrom(problem(new Problem(Problem.QUOTA_EXCEEDED,
                    "Request cannot be satisfied as assigned quota has been exceeded", 429, "Rule '" + rule
                    + "' (requests_per_unit: 0) refuses every request.", List.of(rule)))));
            headers.forEach((k, v) -> response.addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(k)
                    .setValue(v)));
            return;
        }
        // Envoy's rules have no calendar band (refused at boot, docs/SPEC.md §12), so no field reads the clock
        RateLimitHeaders.write(headerMode, policies, binding.against(), binding.decision(),
                SystemTimeSource.systemUtc(), headers);
        if (over) {
            long retryNanos = binding.retryAfterNanos();
            String violated = RateLimitHeaders.itemName(binding.against(), binding.decision().band());
            String detail;
            if (retryNanos == Decision.NO_RETRY) {
                detail = "The cost of this request exceeds what policy '" + violated + "' can ever admit.";
            } else {
                long seconds = RateLimitHeaders.ceilSeconds(retryNanos);
                headers.put(RateLimitHeaders.RETRY_AFTER, Long.toString(seconds));
                detail = "Quota of policy '" + violated + "' exceeded; retry after " + seconds + " s.";
            }
            headers.put("content-type", Problem.MEDIA_TYPE);
            response.setRawBody(ByteString.copyFrom(problem(new Problem(Problem.QUOTA_EXCEEDED,
                    "Request cannot be satisfied as assigned quota has been exceeded", 429, detail,
                    List.of(violated)))));
        }
        headers.forEach((k, v) -> response.addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(k)
                .setValue(v)));
    }

    /**
     * Counts each descriptor's decision in {@value GridLimitMetrics#DECISIONS} with {@code source=envoy}; peeks
     * decide nothing and a cancelled descriptor has no decision, so neither is counted.
     *
     * @param outcomes the outcomes (null entries skipped)
     */
    void count(RlsOutcome[] outcomes) {
        for (RlsOutcome o : outcomes) {
            if (o == null || o.check().peek()) {
                continue;
            }
            String policy = o.check().rule().policyName();
            switch (o.source()) {
                case BLOCKED -> metrics.decision(GridLimitMetrics.Source.ENVOY, policy, o.check().rule().shadow()
                        ? GridLimitMetrics.Outcome.SHADOW_DENIED : GridLimitMetrics.Outcome.DENIED);
                case GRID -> metrics.decision(GridLimitMetrics.Source.ENVOY, policy, o.decision().allowed()
                        ? GridLimitMetrics.Outcome.ALLOWED : o.check().rule().shadow()
                        ? GridLimitMetrics.Outcome.SHADOW_DENIED : GridLimitMetrics.Outcome.DENIED);
                case LOCAL -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.LOCAL);
                case OPEN -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.OPEN);
                case UNAVAILABLE -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.CLOSED);
                case CANCELLED -> {
                    // the call was cancelled before the grid answered: no decision to count
                }
            }
        }
    }

    private byte[] problem(Problem problem) {
        try {
            return json.writeValueAsString(problem).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a problem body", e);
        }
    }

    private static Duration duration(long nanos) {
        return Duration.newBuilder().setSeconds(nanos / 1_000_000_000L).setNanos((int) (nanos % 1_000_000_000L))
                .build();
    }
}
