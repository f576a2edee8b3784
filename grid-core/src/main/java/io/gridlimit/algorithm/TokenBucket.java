package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.internal.Wide;

/**
 * Token bucket, exact (docs/SPEC.md §3).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Formula.</b> Capacity {@code C}, {@code R} refill tokens per period {@code P}. The level is the exact
 *   rational {@code tokens = W + n/P} ({@code W} whole tokens, {@code 0 <= n < P}); the bucket starts full. After
 *   {@code e} ns it is {@code min(C, tokens + e·R/P)}: the numerator {@code n + e·R} is split into whole tokens and
 *   a new remainder, and a full bucket drops its remainder. A request of cost {@code c} is admitted iff
 *   {@code c <= tokens}, which for integer {@code c} is {@code c <= W}. {@code remaining = floor(tokens) = W};
 *   {@code resetAfter = ceil((C − tokens)·P/R) = ceil(((C − W)·P − n)/R)}; on a denial
 *   {@code retryAfter = ceil((c − tokens)·P/R)}, the least whole {@code d} with {@code tokens + d·R/P >= c}.</li>
 *   <li><b>Overflow.</b> {@code e·R} (100 years × 10^15) and {@code (C − W)·P} (10^15 × 365 days) exceed 64 bits:
 *   both are exact 128-bit products ({@link Wide}, {@link Math#multiplyHigh}); the quotient by {@code P} is
 *   below {@code C} so it fits a long. A resetAfter beyond {@code Long.MAX_VALUE} saturates; a retryAfter beyond
 *   it, or a cost above {@code C}, is unsatisfiable ({@link Decision#NO_RETRY}).</li>
 *   <li><b>Clock step back</b> ({@code now < lastNanos}, SPEC §2): the level is kept and re-stamped at
 *   {@code now} (the refill time shifts back by the difference), then the request is decided; the rebased
 *   state is written even on a denial. Nothing is gained or lost, and refill resumes at once.</li>
 *   <li><b>Policy change</b> (SPEC §4): the time since the last write is credited at the new rate and the level
 *   clamped to the new capacity; a state written under another refill period is ignored (fresh).</li>
 *   <li><b>Settle</b> (SPEC §10) of a reservation of {@code c} to an actual {@code a}, at the reading: the level
 *   {@code W + n/P} is brought to the reading as for a decision; {@code a < c} gives {@code c − a} tokens back,
 *   {@code min(C, W + c − a)} (a full bucket drops its remainder); {@code a > c} charges {@code k = min(a − c,
 *   W + D)} tokens, {@code W − k} (a debt when below zero, at most the band's maximum debt {@code D}), and
 *   reports {@code a − c − k} as excess. Without a decision in between, giving back is exactly deciding
 *   {@code a}: {@code min(C, min(C, L − c + r) + c − a) = min(C, L − a + r)} for a level {@code L} before the
 *   reservation and a refill {@code r} since; a charge is exact while the bucket has not filled up since the
 *   reservation, and takes more (never less) otherwise. Under a debt {@code remaining = max(0, W)}, and
 *   resetAfter and retryAfter count the repayment ({@code C − W} and {@code c − W} tokens to refill).</li>
 * </ol>
 * Sources: docs/SPEC.md §2-4 (capacity 3, 1 token/s, checked in BucketAlgorithmsTest); GCRA equivalence in
 * {@link Gcra}.
 */
final class TokenBucket {
    private TokenBucket() {
    }

    /** The level at the reading: {@code tokens + fraction/P}; {@code stored} is null when fresh. */
    private record Level(long tokens, long fraction, boolean rebased, TokenBucketState stored) {
    }

    private static Level load(LimiterState stored, Band band, long nowNanos) {
        long capacity = band.capacity();
        long periodNanos = band.refillPeriodNanos();
        if (!(stored instanceof TokenBucketState s) || s.refillPeriodNanos() != periodNanos) {
            return new Level(capacity, 0, false, null);
        }
        boolean rebased = nowNanos < s.lastNanos();
        long elapsedNanos = rebased ? 0 : nowNanos - s.lastNanos(); // >= 0; may wrap only across 2^63 ns
        if (elapsedNanos < 0) {
            elapsedNanos = Long.MAX_VALUE;
        }
        long tokens = s.tokens();
        long fraction = s.tokenFraction();
        if (tokens >= capacity) {
            return new Level(capacity, 0, rebased, s);
        }
        Wide missing = Wide.product(capacity - tokens, periodNanos).subtract(fraction); // > 0, in 1/P tokens
        Wide added = Wide.product(elapsedNanos, band.refillTokens());
        if (added.compareTo(missing) >= 0) {
            return new Level(capacity, 0, rebased, s);
        }
        Wide total = added.add(fraction); // < (C - W)·P
        return new Level(tokens + total.floorDiv(periodNanos).longValueExact(), total.floorMod(periodNanos),
                rebased, s);
    }

    /** ceil(((C − tokens)·P − fraction)/R), saturating. */
    private static long resetAfterNanos(long tokens, long fraction, Band band) {
        Wide missing = Wide.product(band.capacity() - tokens, band.refillPeriodNanos()).subtract(fraction);
        return missing.ceilDiv(band.refillTokens()).saturatedLong();
    }

    static BandResult decide(LimiterState stored, Band band, long cost, long nowNanos) {
        Level level = load(stored, band, nowNanos);
        long periodNanos = band.refillPeriodNanos();
        LimiterState keep = level.stored == null ? null
                : level.rebased ? new TokenBucketState(nowNanos, level.tokens, level.fraction, periodNanos)
                : level.stored;
        long keepReset = resetAfterNanos(level.tokens, level.fraction, band);
        if (cost <= level.tokens) {
            long left = level.tokens - cost;
            return BandResult.admitted(left, resetAfterNanos(left, level.fraction, band),
                    new TokenBucketState(nowNanos, left, level.fraction, periodNanos), level.rebased, keep, keepReset);
        }
        long retry = Decision.NO_RETRY;
        if (cost <= band.capacity()) {
            Wide wait = Wide.product(cost - level.tokens, periodNanos).subtract(level.fraction)
                    .ceilDiv(band.refillTokens());
            if (wait.fitsLong()) {
                retry = wait.longValueExact();
            }
        }
        return BandResult.denied(Math.max(0, level.tokens), retry, level.rebased, keep, keepReset);
    }

    static BandResult.Settle settle(LimiterState stored, Band band, long reserved, long actual, long nowNanos) {
        Level level = load(stored, band, nowNanos);
        long periodNanos = band.refillPeriodNanos();
        long capacity = band.capacity();
        if (actual < reserved) {
            if (level.stored == null) {
                return BandResult.Settle.unchanged(stored); // fresh: full already
            }
            long back = reserved - actual;
            long tokens = level.tokens + back; // <= 2·10^15 + 10^15: no overflow
            return tokens >= capacity
                    ? new BandResult.Settle(new TokenBucketState(nowNanos, capacity, 0, periodNanos), true, 0, false)
                    : new BandResult.Settle(new TokenBucketState(nowNanos, tokens, level.fraction, periodNanos), true,
                            0, tokens < 0);
        }
        long charge = actual - reserved; // > 0
        long room = level.tokens + band.maxDebt(); // >= 0: the balance never is below -maxDebt
        long taken = Math.max(0, Math.min(charge, room));
        return new BandResult.Settle(new TokenBucketState(nowNanos, level.tokens - taken, level.fraction, periodNanos),
                true, charge - taken, level.tokens - taken < 0);
    }

    /**
     * The band under {@code out} units on lease at {@code atNanos} (docs/SPEC.md §13): the level there, at most
     * {@code C − out} (a full-less-the-lease bucket drops its remainder), stamped at {@code atNanos}; the stored
     * state itself (possibly null) when the cap changes nothing.
     */
    static LimiterState capAt(LimiterState stored, Band band, long out, long atNanos) {
        Level level = load(stored, band, atNanos);
        long cap = band.capacity() - out;
        if (level.tokens > cap || (level.tokens == cap && level.fraction > 0)) {
            return new TokenBucketState(atNanos, cap, 0, band.refillPeriodNanos());
        }
        if (level.stored == null || out == 0) {
            return stored;
        }
        return new TokenBucketState(atNanos, level.tokens, level.fraction, band.refillPeriodNanos());
    }

    /** Whole tokens at the reading, as a decision would find them (below zero under a debt). */
    static long available(LimiterState stored, Band band, long nowNanos) {
        return load(stored, band, nowNanos).tokens;
    }

    static long nanosUntilFresh(LimiterState stored, Band band, long nowNanos) {
        Level level = load(stored, band, nowNanos);
        return resetAfterNanos(level.tokens, level.fraction, band);
    }

    /**
     * The level at {@code nowNanos} (after a step back: the level kept), as the state
     * a decision would start from, stamped at the reading: for {@link MergeStates}.
     */
    static TokenBucketState levelAt(LimiterState stored, Band band, long nowNanos) {
        Level level = load(stored, band, nowNanos);
        return new TokenBucketState(nowNanos, level.tokens, level.fraction, band.refillPeriodNanos());
    }
}
