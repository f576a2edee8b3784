package io.gridlimit.micronaut.decide;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.HeaderMode;
import io.gridlimit.time.TimeSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes the rate-limit header values of SPEC §5 (draft-ietf-httpapi-ratelimit-headers for {@code RateLimit-Policy}
 * and {@code RateLimit}; the de-facto {@code X-RateLimit-*} set). Every seconds value derived from nanoseconds is
 * rounded up and is 0 only when the nanoseconds are 0. Thread-safe; its only state is a bounded cache of each
 * policy's {@code RateLimit-Policy} items.
 */
public final class RateLimitHeaders {
    /** {@code RateLimit-Policy}: one item per band of each matching rule's policy. */
    public static final String RATELIMIT_POLICY = "RateLimit-Policy";
    /** {@code RateLimit}: the binding band. */
    public static final String RATELIMIT = "RateLimit";
    /** Legacy: the binding band's quota. */
    public static final String X_LIMIT = "X-RateLimit-Limit";
    /** Legacy: the binding band's remaining quota. */
    public static final String X_REMAINING = "X-RateLimit-Remaining";
    /** Legacy: delta-seconds until the binding band is full again. */
    public static final String X_RESET = "X-RateLimit-Reset";
    /** {@code Retry-After} (RFC 9110 §10.2.3), delta-seconds. */
    public static final String RETRY_AFTER = "Retry-After";

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    /** Bound of {@link #ITEMS}: policies and their versions seen on this replica. */
    private static final int MAX_CACHED_POLICIES = 4096;
    /** Each policy's {@code RateLimit-Policy} items, which depend on the policy alone (no calendar band). */
    private static final ConcurrentHashMap<Policy, String> ITEMS = new ConcurrentHashMap<>();

    private RateLimitHeaders() {
    }

    /**
     * Rounds nanoseconds up to whole seconds.
     *
     * @param nanos a duration in nanoseconds, >= 0
     * @return {@code ceil(nanos / 10^9)}: 0 only for 0
     */
    public static long ceilSeconds(long nanos) {
        if (nanos <= 0) {
            return 0;
        }
        return (nanos - 1) / NANOS_PER_SECOND + 1;
    }

    /**
     * The {@code w} of a band (SPEC §5): the window in seconds; for buckets and GCRA the time to refill from empty,
     * {@code ceil(C·P/R)} seconds, computed exactly and saturating at {@link Long#MAX_VALUE} nanoseconds; for a
     * calendar band the length of the period that holds {@code clock}'s reading (docs/SPEC.md §14: a Berlin day of
     * 23 or 25 hours, a month of 28 to 31 days), read only for a calendar band.
     *
     * @param band a band
     * @param clock the replica's clock (cluster time), read at most once
     * @return the window in whole seconds, rounded up, >= 1
     */
    public static long windowSeconds(Band band, TimeSource clock) {
        return switch (band.algorithm()) {
            case TOKEN_BUCKET, GCRA -> {
                BigInteger[] qr = BigInteger.valueOf(band.capacity())
                        .multiply(BigInteger.valueOf(band.refillPeriodNanos()))
                        .divideAndRemainder(BigInteger.valueOf(band.refillTokens()));
                BigInteger nanos = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
                yield ceilSeconds(nanos.min(LONG_MAX).longValue());
            }
            case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER -> ceilSeconds(band.windowNanos());
            case CALENDAR -> ceilSeconds(band.calendar().span(clock.nowNanos()).lengthNanos());
        };
    }

    /**
     * The name of a band as headers and problem bodies show it: {@code policy} for a single-band policy,
     * {@code policy/band} otherwise.
     *
     * @param policy the policy
     * @param band the band name (a decision's {@link Decision#band()}), may be null for a single-band policy
     * @return the display name
     */
    public static String itemName(Policy policy, String band) {
        return policy.isComposite() && band != null ? policy.name() + "/" + band : policy.name();
    }

    /**
     * The {@code RateLimit-Policy} value: an item {@code "<name>";q=<quota>;w=<seconds>} per band of each policy,
     * in the order given, each policy once.
     *
     * @param policies the matching rules' policies, in rule order
     * @param clock the replica's clock, for a calendar band's {@code w} ({@link #windowSeconds})
     * @return the field value, never empty for a non-empty list
     */
    public static String policyField(List<Policy> policies, TimeSource clock) {
        if (policies.size() == 1) {
            return items(policies.get(0), clock);
        }
        Set<String> seen = new LinkedHashSet<>();
        StringBuilder field = new StringBuilder();
        for (Policy policy : policies) {
            if (seen.add(policy.name())) {
                if (field.length() > 0) {
                    field.append(", ");
                }
                field.append(items(policy, clock));
            }
        }
        return field.toString();
    }

    /**
     * One policy's items of {@code RateLimit-Policy}, computed once per policy unless a band is a calendar band
     * (its {@code w} is the length of the current period, read from the clock each time).
     */
    private static String items(Policy policy, TimeSource clock) {
        String cached = ITEMS.get(policy);
        if (cached != null) {
            return cached;
        }
        boolean calendar = false;
        List<String> items = new ArrayList<>(policy.bands().size());
        for (Band band : policy.bands()) {
            calendar |= band.algorithm() == Algorithm.CALENDAR;
            items.add("\"" + itemName(policy, band.name()) + "\";q=" + band.quota() + ";w="
                    + windowSeconds(band, clock));
        }
        String value = String.join(", ", items);
        if (!calendar) {
            if (ITEMS.size() >= MAX_CACHED_POLICIES) {
                ITEMS.clear(); // old versions of changed policies: rebuilt on demand
            }
            ITEMS.put(policy, value);
        }
        return value;
    }

    /**
     * The {@code RateLimit} value of the binding band: {@code "<name>";r=<remaining>;t=<seconds>}.
     *
     * @param policy the binding rule's policy
     * @param decision its decision
     * @return the field value
     */
    public static String rateLimitField(Policy policy, Decision decision) {
        return "\"" + itemName(policy, decision.band()) + "\";r=" + decision.remaining() + ";t="
                + ceilSeconds(decision.resetAfterNanos());
    }

    /**
     * Puts the rate-limit fields of a response into {@code out}, per the header mode.
     *
     * @param mode which sets to write
     * @param policies the matching rules' policies, in rule order
     * @param bindingPolicy the binding rule's policy
     * @param binding the binding decision
     * @param clock the replica's clock, for a calendar band's {@code w} ({@link #windowSeconds})
     * @param out receives field name to value, in writing order
     */
    public static void write(HeaderMode mode, List<Policy> policies, Policy bindingPolicy, Decision binding,
                             TimeSource clock, Map<String, String> out) {
        if (mode.ietf()) {
            out.put(RATELIMIT_POLICY, policyField(policies, clock));
            out.put(RATELIMIT, rateLimitField(bindingPolicy, binding));
        }
        if (mode.legacy()) {
            out.put(X_LIMIT, Long.toString(binding.limit()));
            out.put(X_REMAINING, Long.toString(binding.remaining()));
            out.put(X_RESET, Long.toString(ceilSeconds(binding.resetAfterNanos())));
        }
    }
}
