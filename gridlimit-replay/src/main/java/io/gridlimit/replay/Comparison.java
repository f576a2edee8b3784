package io.gridlimit.replay;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The plain sentence and the percentages of issue 24 §4: how far the sliding-window counter is from the exact
 * sliding-window log on a policy's own requests, against the 0.003% of 400 million requests Cloudflare published
 * (seed 003). Percentages are exact ratios rounded half-up to 4 decimals; the comparison with 0.003% is exact
 * (cross-multiplied). Stateless.
 */
public final class Comparison {
    /** Cloudflare's published disagreement of the counter with an exact count, in percent. */
    public static final String CLOUDFLARE_PERCENT = "0.003";

    private Comparison() {
    }

    /**
     * @param part a count
     * @param whole the total, >= part
     * @return {@code 100 × part / whole} rounded half-up to 4 decimals, {@code 0} when whole is 0
     */
    public static BigDecimal percent(long part, long whole) {
        if (whole == 0) {
            return BigDecimal.ZERO;
        }
        return BigDecimal.valueOf(part).multiply(BigDecimal.valueOf(100))
                .divide(BigDecimal.valueOf(whole), 4, RoundingMode.HALF_UP).stripTrailingZeros();
    }

    /**
     * The sentence for one policy.
     *
     * @param stats the policy's counts as configured
     * @param alternatives the policy alone under each algorithm
     * @return one sentence, never null
     */
    public static String sentence(PolicyStats stats, Alternatives alternatives) {
        String name = "'" + stats.name() + "'";
        if (alternatives.unavailable() != null) {
            return "Policy " + name + " has no algorithm comparison: " + alternatives.unavailable() + ".";
        }
        Alternatives.Variant counter = alternatives.variants().stream()
                .filter(v -> v.algorithm() == io.gridlimit.api.Algorithm.SLIDING_WINDOW_COUNTER).findFirst()
                .orElseThrow();
        if (counter.requests() == 0) {
            return "No request reached policy " + name + ", so there is nothing to compare.";
        }
        long off = counter.overAdmitted() + counter.overDenied();
        // off / requests against 3 / 100000, exactly
        int cmp = Long.compare(off * 100_000L, 3L * counter.requests());
        String where = cmp > 0 ? "above" : cmp < 0 ? "below" : "equal to";
        return "Of the " + counter.requests() + " requests of policy " + name + ", the sliding-window counter decided "
                + off + " (" + percent(off, counter.requests()).toPlainString() + "%) differently from the exact "
                + "sliding-window log (" + counter.overAdmitted() + " admitted that it denies, "
                + counter.overDenied() + " denied that it admits): " + where + " the " + CLOUDFLARE_PERCENT
                + "% Cloudflare published.";
    }
}
