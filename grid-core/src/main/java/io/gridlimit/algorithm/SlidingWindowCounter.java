package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.internal.Wide;

/**
 * Sliding window counter, in exact integers (docs/SPEC.md §3).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Formula.</b> Limit {@code L} per window {@code W}, windows aligned to epoch 0; {@code cur} is the
 *   accepted cost of the reading's window {@code k}, {@code prev} that of window {@code k − 1} (0 when the stored
 *   window is older), {@code e = t − k·W}. The weighted form {@code (1 − x)·prev + cur + c <= L} with {@code x = e/W},
 *   multiplied by {@code W}: admit iff {@code (W − e)·prev + W·(cur + c) <= W·L}. With
 *   {@code w = ceil((W − e)·prev / W)} this is {@code c <= L − cur − w} for integer counts, and
 *   {@code remaining = max(0, floor((W·L − (W − e)·prev − W·cur)/W)) = max(0, L − cur − w)} (after the request
 *   when admitted). {@code resetAfter = (k+2)·W − t} if {@code cur > 0}, {@code (k+1)·W − t} if {@code prev > 0},
 *   else 0.</li>
 *   <li><b>retryAfter</b>, solved exactly: inside window {@code k} (only if {@code A = L − cur − c >= 0} and
 *   {@code prev > 0}) the least {@code d} with {@code (W − e − d)·prev <= W·A} is
 *   {@code W − e − floor(W·A/prev)}, taken when it falls before the window ends; otherwise in window {@code k+1}
 *   ({@code prev' = cur}, {@code cur' = 0}) the least offset is {@code e' = max(0, W − floor(W·(L − c)/cur))}
 *   (0 when {@code cur = 0}; {@code e' = W} is the start of window {@code k+2}, which is empty), so
 *   {@code retryAfter = W − e + e'}. A cost above {@code L} never passes.</li>
 *   <li><b>Overflow.</b> {@code (W − e)·prev} and {@code W·A} reach 3.15·10^16 × 10^15: exact 128-bit products
 *   ({@link Wide}); every duration is relative to the reading and below {@code 2·W}.</li>
 *   <li><b>Clock step back</b> (SPEC §2): both counts are carried into the reading's window (current into
 *   {@code k}, previous into {@code k − 1}) and expire with it; the rebased state is written even on a denial.</li>
 *   <li><b>Policy change</b> (SPEC §4): counts are kept against the new limit; a state written under another
 *   window length is ignored (fresh).</li>
 *   <li><b>Settle</b> (SPEC §10) of a reservation of {@code c} taken at {@code t0} (window {@code k0}) to an
 *   actual {@code a}: the count of window {@code k0} is changed where it now stands: {@code cur} while the
 *   reading is in {@code k0}, {@code prev} in {@code k0 + 1}, nothing once {@code k0} is older (its cost no
 *   longer counts, as a decision of {@code a} would not). {@code a < c} lowers it to
 *   {@code max(0, count − (c − a))}; {@code a > c} raises it by {@code k = min(a − c, L + D − count)}
 *   ({@code D} the band's maximum debt) and reports {@code a − c − k} as excess.</li>
 * </ol>
 * Sources: docs/SPEC.md §2-4 (the tables worked by hand in SlidingWindowCounterTest); Cloudflare's counting
 * approximation (the weighted previous window).
 */
final class SlidingWindowCounter {
    private SlidingWindowCounter() {
    }

    /** Counts as seen from the reading's window; {@code stored} is null when fresh. */
    private record Counts(long current, long previous, boolean rebased, SlidingWindowCounterState stored) {
    }

    private static Counts load(LimiterState stored, Band band, long nowNanos) {
        long windowNanos = band.windowNanos();
        if (!(stored instanceof SlidingWindowCounterState s) || s.windowNanos() != windowNanos) {
            return new Counts(0, 0, false, null);
        }
        if (nowNanos < s.lastNanos()) {
            return new Counts(s.currentCount(), s.previousCount(), true, s);
        }
        long gap = Math.floorDiv(nowNanos, windowNanos) - Math.floorDiv(s.lastNanos(), windowNanos);
        if (gap == 0) {
            return new Counts(s.currentCount(), s.previousCount(), false, s);
        }
        return new Counts(0, gap == 1 ? s.currentCount() : 0, false, s);
    }

    /** {@code ceil((W − e)·prev / W)}, in [0, prev]. */
    private static long weightedPrevious(long previous, long untilWindowEndNanos, long windowNanos) {
        return previous == 0 ? 0 : Wide.product(untilWindowEndNanos, previous).ceilDiv(windowNanos).longValueExact();
    }

    private static long resetAfter(long current, long previous, long untilWindowEndNanos, long windowNanos) {
        return current > 0 ? untilWindowEndNanos + windowNanos : previous > 0 ? untilWindowEndNanos : 0;
    }

    static BandResult decide(LimiterState stored, Band band, long cost, long nowNanos) {
        Counts c = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        long untilEnd = windowNanos - Math.floorMod(nowNanos, windowNanos); // W − e, in [1, W]
        long limit = band.limit();
        long weighted = weightedPrevious(c.previous, untilEnd, windowNanos);
        long free = limit - c.current - weighted; // may be negative after a limit was lowered
        LimiterState keep = c.stored == null ? null
                : c.rebased ? new SlidingWindowCounterState(nowNanos, c.current, c.previous, windowNanos) : c.stored;
        long keepReset = resetAfter(c.current, c.previous, untilEnd, windowNanos);
        if (cost <= free) {
            long current = c.current + cost;
            return BandResult.admitted(free - cost, resetAfter(current, c.previous, untilEnd, windowNanos),
                    new SlidingWindowCounterState(nowNanos, current, c.previous, windowNanos), c.rebased, keep,
                    keepReset);
        }
        return BandResult.denied(Math.max(0, free), retryAfter(c.current, c.previous, cost, limit, untilEnd,
                windowNanos), c.rebased, keep, keepReset);
    }

    private static long retryAfter(long current, long previous, long cost, long limit, long untilEnd,
                                   long windowNanos) {
        if (cost > limit) {
            return Decision.NO_RETRY;
        }
        long room = limit - current - cost;
        if (room >= 0 && previous > 0) {
            // (untilEnd − d)·prev <= W·room  <=>  d >= untilEnd − floor(W·room / prev)
            long allowedWeight = Wide.product(windowNanos, room).floorDiv(previous).saturatedLong();
            if (allowedWeight > 0) {
                return untilEnd - allowedWeight; // >= 1: the request is denied now
            }
        }
        long offset = 0;
        if (current > 0) {
            long allowed = Wide.product(windowNanos, limit - cost).floorDiv(current).saturatedLong();
            offset = Math.max(0, windowNanos - allowed);
        }
        return untilEnd + offset;
    }

    static BandResult.Settle settle(LimiterState stored, Band band, long reserved, long actual, long reservedAtNanos,
                             long nowNanos) {
        Counts c = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        long gap = Math.floorDiv(nowNanos, windowNanos) - Math.floorDiv(reservedAtNanos, windowNanos);
        if (c.stored == null || (gap != 0 && gap != 1)) {
            return BandResult.Settle.unchanged(stored);
        }
        long count = gap == 0 ? c.current : c.previous;
        long changed;
        long excess = 0;
        if (actual < reserved) {
            changed = Math.max(0, count - (reserved - actual));
        } else {
            long charge = actual - reserved;
            long taken = Math.max(0, Math.min(charge, band.limit() + band.maxDebt() - count));
            changed = count + taken;
            excess = charge - taken;
        }
        SlidingWindowCounterState s = gap == 0
                ? new SlidingWindowCounterState(nowNanos, changed, c.previous, windowNanos)
                : new SlidingWindowCounterState(nowNanos, c.current, changed, windowNanos);
        return new BandResult.Settle(s, true, excess, changed > band.limit());
    }

    static long nanosUntilFresh(LimiterState stored, Band band, long nowNanos) {
        Counts c = load(stored, band, nowNanos);
        long untilEnd = band.windowNanos() - Math.floorMod(nowNanos, band.windowNanos());
        return resetAfter(c.current, c.previous, untilEnd, band.windowNanos());
    }
}
