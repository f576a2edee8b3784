package io.gridlimit.nemesis.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A policy as the checker models it, read from the admin API's policy body (docs/SPEC.md §11: the YAML shape as
 * JSON, kebab-case names, durations in Micronaut's syntax): one band, or the {@code bands} of a composite (SPEC §4,
 * every admitted request consumed from every band). The checker's own reading of SPEC §1, §3 and §5, not grid-core's
 * classes.
 *
 * @param name the policy name
 * @param bands one band for a single-band policy (named after the policy), else the composite's bands in order
 */
public record PolicyModel(String name, List<Band> bands) {
    /** The longest period or window SPEC §1 allows: 365 days. */
    static final long MAX_PERIOD_NANOS = Duration.ofDays(365).toNanos();
    private static final long MIN_PERIOD_NANOS = 1_000_000L;
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final Set<String> BAND_MEMBERS = Set.of("algorithm", "capacity", "refill-tokens",
            "refill-period", "limit", "window", "max-debt");

    /** The algorithms of SPEC §3. */
    public enum Kind {
        TOKEN_BUCKET, GCRA, FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER;

        /** @return true for the token bucket and GCRA (identical decisions, SPEC §3) */
        public boolean bucket() {
            return this == TOKEN_BUCKET || this == GCRA;
        }
    }

    /**
     * One band.
     *
     * @param name the band name (the policy's name for a single-band policy)
     * @param kind the algorithm
     * @param quota capacity C for buckets, limit L for windows; >= 1
     * @param refillTokens R tokens per period for buckets; 0 for windows
     * @param periodNanos the refill period P for buckets, the window W for windows; in [1 ms, 365 d]
     */
    public record Band(String name, Kind kind, long quota, long refillTokens, long periodNanos) {
        /**
         * This band's local share for {@code n} expected replicas (docs/SPEC.md §5): limit and capacity
         * {@code floor(q / n)}; refill R per P becomes R/N per P when N divides R, else R per N·P when N·P <= 365 d,
         * else floor(R·365 d / (N·P)) per 365 d; windows and periods unchanged.
         *
         * @param n the expected replicas, >= 1
         * @return the share, or null when it is below one unit (the band, and so its policy, has no share)
         */
        public Band share(long n) {
            long q = quota / n;
            if (q < 1) {
                return null;
            }
            if (!kind.bucket()) {
                return new Band(name, kind, q, 0, periodNanos);
            }
            if (refillTokens % n == 0) {
                return new Band(name, kind, q, refillTokens / n, periodNanos);
            }
            if (periodNanos <= MAX_PERIOD_NANOS / n) {
                return new Band(name, kind, q, refillTokens, periodNanos * n);
            }
            // floor(R·365d / (N·P)), exactly
            long r = java.math.BigInteger.valueOf(refillTokens).multiply(java.math.BigInteger.valueOf(MAX_PERIOD_NANOS))
                    .divide(java.math.BigInteger.valueOf(n).multiply(java.math.BigInteger.valueOf(periodNanos)))
                    .longValueExact();
            return r < 1 ? null : new Band(name, kind, q, r, MAX_PERIOD_NANOS);
        }
    }

    /**
     * @param n the expected replicas
     * @return the policy of one replica's local share (every band's share), or null when a band has none
     */
    public PolicyModel share(long n) {
        List<Band> out = new ArrayList<>();
        for (Band b : bands) {
            Band s = b.share(n);
            if (s == null) {
                return null;
            }
            out.add(s);
        }
        return new PolicyModel(name, out);
    }

    /** @return the least capacity of the bucket bands (0 when there is none), for lease sizes */
    long leastBucketCapacity() {
        long least = 0;
        for (Band b : bands) {
            if (b.kind().bucket() && (least == 0 || b.quota() < least)) {
                least = b.quota();
            }
        }
        return least;
    }

    /** @return true when every band is a token bucket or GCRA (SPEC §13: only such policies are leased) */
    boolean leasable() {
        return bands.stream().allMatch(b -> b.kind().bucket());
    }

    /**
     * Reads a policy body.
     *
     * @param name the policy name
     * @param body the admin API's body: {@code {"algorithm": ..., ...}} or {@code {"bands": {"<band>": {...}}}}
     *     (optional {@code "shadow": false} and {@code "max-debt"}, which do not change a decision)
     * @return the model
     * @throws IllegalArgumentException naming the policy and the member for a missing, unknown or out-of-range
     *     member, and for a shadow policy (it never denies: there is nothing to check)
     */
    @SuppressWarnings("unchecked")
    public static PolicyModel of(String name, Map<String, Object> body) {
        Object shadow = body.get("shadow");
        if (Boolean.TRUE.equals(shadow)) {
            throw new IllegalArgumentException("policy '" + name + "': a shadow policy never denies; the checker"
                    + " has no bound to check for it");
        }
        if (body.containsKey("bands")) {
            for (String member : body.keySet()) {
                if (!Set.of("bands", "shadow", "max-debt").contains(member)) {
                    throw new IllegalArgumentException("policy '" + name + "': unknown member '" + member
                            + "' beside bands");
                }
            }
            if (!(body.get("bands") instanceof Map<?, ?> bands) || bands.isEmpty()) {
                throw new IllegalArgumentException("policy '" + name + "': bands must be a non-empty object");
            }
            List<Band> out = new ArrayList<>();
            for (Map.Entry<?, ?> e : bands.entrySet()) {
                if (!(e.getValue() instanceof Map)) {
                    throw new IllegalArgumentException("policy '" + name + "': band '" + e.getKey()
                            + "' must be an object");
                }
                out.add(band(name, (String) e.getKey(), (Map<String, Object>) e.getValue()));
            }
            return new PolicyModel(name, List.copyOf(out));
        }
        Map<String, Object> rest = new java.util.LinkedHashMap<>(body);
        rest.remove("shadow");
        return new PolicyModel(name, List.of(band(name, name, rest)));
    }

    private static Band band(String policy, String band, Map<String, Object> m) {
        String where = "policy '" + policy + "'" + (policy.equals(band) ? "" : ", band '" + band + "'");
        for (String member : m.keySet()) {
            if (!BAND_MEMBERS.contains(member)) {
                throw new IllegalArgumentException(where + ": unknown member '" + member + "'");
            }
        }
        if (!(m.get("algorithm") instanceof String algorithm)) {
            throw new IllegalArgumentException(where + ": algorithm is missing");
        }
        Kind kind = switch (algorithm.toLowerCase(Locale.ROOT)) {
            case "token-bucket" -> Kind.TOKEN_BUCKET;
            case "gcra", "leaky-bucket" -> Kind.GCRA;
            case "fixed-window" -> Kind.FIXED_WINDOW;
            case "sliding-window-log" -> Kind.SLIDING_WINDOW_LOG;
            case "sliding-window-counter" -> Kind.SLIDING_WINDOW_COUNTER;
            default -> throw new IllegalArgumentException(where + ": unknown algorithm '" + algorithm + "'");
        };
        if (kind.bucket()) {
            return new Band(band, kind, quantity(where, m, "capacity"), quantity(where, m, "refill-tokens"),
                    duration(where, m, "refill-period"));
        }
        return new Band(band, kind, quantity(where, m, "limit"), 0, duration(where, m, "window"));
    }

    private static long quantity(String where, Map<String, Object> m, String member) {
        if (!(m.get(member) instanceof Long v)) {
            throw new IllegalArgumentException(where + ": " + member + " must be an integer");
        }
        if (v < 1 || v > 1_000_000_000_000_000L) {
            throw new IllegalArgumentException(where + ": " + member + " must be in [1, 10^15], got " + v);
        }
        return v;
    }

    /**
     * Reads a duration in Micronaut's syntax ({@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d}) or
     * ISO-8601 ({@code PT1S}).
     *
     * @param text the duration
     * @return nanoseconds
     * @throws IllegalArgumentException when it is neither
     */
    static long parseDuration(String text) {
        Matcher simple = SIMPLE_DURATION.matcher(text.trim());
        if (simple.matches()) {
            long n = Long.parseLong(simple.group(1));
            return switch (simple.group(2)) {
                case "ms" -> Duration.ofMillis(n).toNanos();
                case "s" -> Duration.ofSeconds(n).toNanos();
                case "m" -> Duration.ofMinutes(n).toNanos();
                case "h" -> Duration.ofHours(n).toNanos();
                default -> Duration.ofDays(n).toNanos();
            };
        }
        try {
            return Duration.parse(text.trim()).toNanos();
        } catch (java.time.format.DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (100ms, 10s, 5m, 1h, 2d or PT1S)");
        }
    }

    private static long duration(String where, Map<String, Object> m, String member) {
        if (!(m.get(member) instanceof String text)) {
            throw new IllegalArgumentException(where + ": " + member + " must be a duration string");
        }
        long nanos;
        try {
            nanos = parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + member + ": " + e.getMessage());
        }
        if (nanos < MIN_PERIOD_NANOS || nanos > MAX_PERIOD_NANOS) {
            throw new IllegalArgumentException(where + ": " + member + " must be in [1ms, 365d], got '" + text + "'");
        }
        return nanos;
    }
}
