package io.gridlimit.nemesis;

import io.gridlimit.nemesis.check.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The nemesis load (issue 25): its policies, keys and the mix of requests, shared by the coordinator (which writes
 * the policies into the members' configuration and the history's first line) and the client processes (which pick
 * requests). Every algorithm of SPEC §3 and two composites (one of buckets only, so that quota leases take it, SPEC
 * §13), with quotas small enough that the hot keys run at their limit. Each policy has one hot key (30 % of the
 * requests, spread over the policies) and 200 keys drawn from a Zipf distribution (exponent 1.2); costs 1 (75 %),
 * 2 (20 %) or 3 (5 %); half the requests go to the decision API ({@code POST /v1/ratelimit/check}), half to the
 * filter ({@code GET /nemesis/<policy>} keyed by the header {@code X-Nemesis-Key}: grid key {@code hdr:<sha-256 hex
 * of the value>}, SPEC §6, which the decision API's requests use too, so both doors spend one quota). Dependency-free
 * (the client processes run on the test classes alone). Thread-safe.
 */
public final class Workload {
    /** The header the filter's routes key by. */
    public static final String KEY_HEADER = "X-Nemesis-Key";
    /** Zipf keys per policy. */
    static final int ZIPF_KEYS = 200;
    private static final double ZIPF_EXPONENT = 1.2;
    private static final double HOT_SHARE = 0.3;

    /** The policies, as the admin API writes them (SPEC §11), in order. */
    public static final Map<String, String> POLICIES = policies();
    private static final List<String> NAMES = List.copyOf(POLICIES.keySet());
    private static final double[] ZIPF_CDF = zipfCdf();
    /** Each band's full quota as {@code RateLimit-Policy} names it: {@code <policy>} or {@code <policy>/<band>}. */
    private static final Map<String, Long> QUOTAS = quotas();

    private Workload() {
    }

    private static Map<String, String> policies() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("tb", bucket("token-bucket", 10, 2, "1s"));
        p.put("gcra", bucket("gcra", 8, 4, "2s"));
        p.put("fw", window("fixed-window", 12, "5s"));
        p.put("swl", window("sliding-window-log", 10, "5s"));
        p.put("swc", window("sliding-window-counter", 12, "5s"));
        p.put("combo", "{\"bands\":{\"burst\":" + bucket("token-bucket", 6, 3, "1s") + ",\"window\":"
                + window("fixed-window", 40, "20s") + "}}");
        p.put("pair", "{\"bands\":{\"fast\":" + bucket("gcra", 12, 6, "1s") + ",\"slow\":"
                + bucket("token-bucket", 30, 1, "1s") + "}}");
        return java.util.Collections.unmodifiableMap(p);
    }

    private static String bucket(String algorithm, long capacity, long refill, String period) {
        return "{\"algorithm\":\"" + algorithm + "\",\"capacity\":" + capacity + ",\"refill-tokens\":" + refill
                + ",\"refill-period\":\"" + period + "\"}";
    }

    private static String window(String algorithm, long limit, String window) {
        return "{\"algorithm\":\"" + algorithm + "\",\"limit\":" + limit + ",\"window\":\"" + window + "\"}";
    }

    /** @return the policies' bodies, parsed, for the history's first line */
    public static Map<String, Object> policyBodies() {
        Map<String, Object> out = new LinkedHashMap<>();
        POLICIES.forEach((name, body) -> out.put(name, Json.parse(body)));
        return out;
    }

    /**
     * The members' configuration: the policies, and one route per policy on the public port.
     *
     * @return YAML for {@code MICRONAUT_CONFIG_FILES}
     */
    public static String serviceConfig() {
        StringBuilder y = new StringBuilder("gridlimit:\n  policies:\n");
        POLICIES.forEach((name, body) -> y.append("    ").append(name).append(": ").append(yaml(Json.parse(body)))
                .append('\n'));
        // every field of each route is written: list entries in a second file replace the service's by index
        y.append("  routes:\n");
        for (String name : NAMES) {
            y.append("    - {pattern: /nemesis/").append(name).append(", methods: [GET], policy: ").append(name)
                    .append(", key: ['header:").append(KEY_HEADER).append("'], cost: 1, on-missing-key: reject}\n");
        }
        return y.toString();
    }

    @SuppressWarnings("unchecked")
    private static String yaml(Object v) {
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (b.length() > 1) {
                    b.append(", ");
                }
                b.append(e.getKey()).append(": ").append(yaml(e.getValue()));
            }
            return b.append('}').toString();
        }
        return String.valueOf(v);
    }

    /**
     * One request to send.
     *
     * @param policy the policy
     * @param value the key's value (the header's value; {@link #gridKey} gives the grid key)
     * @param cost the cost: 1 to 3 through the decision API; the filter's routes cost 1
     * @param filter true for the filter, false for the decision API
     */
    public record Request(String policy, String value, long cost, boolean filter) {
    }

    /**
     * @param random the thread's random source
     * @return the next request of the mix
     */
    public static Request next(SplittableRandom random) {
        String policy = NAMES.get(random.nextInt(NAMES.size()));
        String value = random.nextDouble() < HOT_SHARE ? "hot" : "z" + zipf(random);
        boolean filter = random.nextBoolean();
        double c = random.nextDouble();
        long cost = filter ? 1 : c < 0.75 ? 1 : c < 0.95 ? 2 : 3;
        return new Request(policy, value, cost, filter);
    }

    /**
     * @param value a key's value
     * @return its grid key as the filter writes it (SPEC §6): {@code hdr:} and the SHA-256 of the value, lower-case hex
     */
    public static String gridKey(String value) {
        try {
            return "hdr:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * Tells whether the filter answered from the grid: every item of its {@code RateLimit-Policy} (SPEC §5) shows
     * the band's full quota. A local decision shows the replica's share (SPEC §5), which is smaller.
     *
     * @param rateLimitPolicy the header's value
     * @return true for the grid, false for a local share
     * @throws IllegalArgumentException if an item names no band of the workload or has no quota
     */
    static boolean fromGrid(String rateLimitPolicy) {
        boolean grid = true;
        for (String item : rateLimitPolicy.split(",")) {
            String[] parts = item.trim().split(";");
            String name = parts[0].replace("\"", "");
            Long full = QUOTAS.get(name);
            Long q = null;
            for (String p : parts) {
                if (p.trim().startsWith("q=")) {
                    q = Long.parseLong(p.trim().substring(2));
                }
            }
            if (full == null || q == null) {
                throw new IllegalArgumentException("RateLimit-Policy item '" + item + "' names no band of the load");
            }
            grid &= q.equals(full);
        }
        return grid;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Long> quotas() {
        Map<String, Long> out = new LinkedHashMap<>();
        POLICIES.forEach((name, body) -> {
            Map<String, Object> m = Json.object(body);
            if (m.get("bands") instanceof Map<?, ?> bands) {
                bands.forEach((band, b) -> out.put(name + "/" + band, quota((Map<String, Object>) b)));
            } else {
                out.put(name, quota(m));
            }
        });
        return out;
    }

    private static long quota(Map<String, Object> band) {
        return (Long) (band.containsKey("capacity") ? band.get("capacity") : band.get("limit"));
    }

    private static int zipf(SplittableRandom random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = ZIPF_CDF.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ZIPF_CDF[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static double[] zipfCdf() {
        double[] cdf = new double[ZIPF_KEYS];
        double sum = 0;
        for (int i = 0; i < ZIPF_KEYS; i++) {
            sum += 1 / Math.pow(i + 1, ZIPF_EXPONENT);
            cdf[i] = sum;
        }
        for (int i = 0; i < ZIPF_KEYS; i++) {
            cdf[i] /= sum;
        }
        cdf[ZIPF_KEYS - 1] = 1.0;
        return cdf;
    }
}
