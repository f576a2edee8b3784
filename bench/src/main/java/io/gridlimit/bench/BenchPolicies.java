package io.gridlimit.bench;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarPeriods;

import java.time.Duration;
import java.time.ZoneId;

/**
 * The policies every benchmark uses, one per algorithm name, all with a sustained rate of 100 per second so the
 * algorithms are compared on equal terms (SPEC §3 parameters).
 *
 * <ul>
 *   <li>{@code token-bucket}, {@code gcra}: capacity 100, 100 tokens per 1 s;</li>
 *   <li>{@code fixed-window}, {@code sliding-window-log}, {@code sliding-window-counter}: limit 100 per 1 s (the
 *       log thus holds up to 100 entries per key);</li>
 *   <li>{@code calendar}: limit 8 640 000 per day of Europe/Berlin (100 per second sustained over a 24-hour day;
 *       docs/SPEC.md §14), the fixed window of a customer's calendar;</li>
 *   <li>{@code composite}: two bands, {@code burst} = token bucket 100 per 1 s and {@code minute} = sliding window
 *       counter 5000 per 1 min.</li>
 * </ul>
 *
 * <p>Bucket4j's peer uses the bandwidth {@link #BUCKET4J_EQUIVALENT}: capacity 100, greedy refill of 100 per 1 s,
 * the same bucket as {@code token-bucket}. Policy names are {@code bench-<algorithm>}, so their maps are
 * {@code gridlimit.bench-<algorithm>} (SPEC §8).
 *
 * <p>The skewed-workload rows ({@link SkewedBenchmark}, {@link SkewedClusterBenchmark}, {@link LeaseAccuracy})
 * use {@link #skewedTokenBucket()} instead: a token bucket of capacity {@value #SKEWED_CAPACITY} refilling
 * {@value #SKEWED_CAPACITY} per second, large enough that busy keys can take quota leases (issue 14: a lease is at
 * most a tenth of the capacity). Stateless; thread-safe.
 */
public final class BenchPolicies {
    /** The algorithm names a {@code @Param} may take, in table order. */
    public static final String[] ALGORITHMS = {
        "token-bucket", "gcra", "fixed-window", "calendar", "sliding-window-log", "sliding-window-counter",
        "composite"
    };

    /** Sustained rate of every policy: 100 requests (tokens) per second. */
    public static final long RATE_PER_SECOND = 100;

    /** Bucket4j's equivalent: capacity and refill tokens of {@code token-bucket}, per this period. */
    public static final Duration BUCKET4J_EQUIVALENT = Duration.ofSeconds(1);

    /** Capacity and tokens per second of {@link #skewedTokenBucket()}. */
    public static final long SKEWED_CAPACITY = 1_000;

    /** Name of {@link #skewedTokenBucket()} (its map is {@code gridlimit.bench-skewed-token-bucket}). */
    public static final String SKEWED_NAME = "bench-skewed-token-bucket";

    private BenchPolicies() {
    }

    /**
     * The policy of the skewed-workload rows: a token bucket of capacity {@value #SKEWED_CAPACITY}, refilling
     * {@value #SKEWED_CAPACITY} tokens per 1 s.
     *
     * @return a new policy named {@value #SKEWED_NAME}, never null
     */
    public static Policy skewedTokenBucket() {
        return Policy.builder(SKEWED_NAME).tokenBucket(SKEWED_CAPACITY, SKEWED_CAPACITY, Duration.ofSeconds(1))
                .build();
    }

    /**
     * Returns the policy for an algorithm name.
     *
     * @param algorithm one of {@link #ALGORITHMS}
     * @return a new policy named {@code bench-<algorithm>}, never null
     * @throws IllegalArgumentException if the name is none of {@link #ALGORITHMS}
     */
    public static Policy of(String algorithm) {
        Duration second = Duration.ofSeconds(1);
        Policy.Builder b = Policy.builder("bench-" + algorithm);
        switch (algorithm) {
            case "token-bucket" -> b.tokenBucket(RATE_PER_SECOND, RATE_PER_SECOND, second);
            case "gcra" -> b.gcra(RATE_PER_SECOND, RATE_PER_SECOND, second);
            case "fixed-window" -> b.fixedWindow(RATE_PER_SECOND, second);
            case "calendar" -> b.calendar(RATE_PER_SECOND * 86_400,
                    CalendarPeriods.daily(ZoneId.of("Europe/Berlin")));
            case "sliding-window-log" -> b.slidingWindowLog(RATE_PER_SECOND, second);
            case "sliding-window-counter" -> b.slidingWindowCounter(RATE_PER_SECOND, second);
            case "composite" -> b.band(Band.tokenBucket("burst", RATE_PER_SECOND, RATE_PER_SECOND, second))
                    .band(Band.slidingWindowCounter("minute", 5000, Duration.ofMinutes(1)));
            default -> throw new IllegalArgumentException("unknown benchmark algorithm '" + algorithm + "'");
        }
        return b.build();
    }
}
