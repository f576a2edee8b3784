package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;

/**
 * Fixed window (SPEC §3).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Formula.</b> Limit {@code L} per window {@code W}; windows are aligned to epoch 0 (window {@code k} is
 *   {@code [k·W, (k+1)·W)}, {@code k = floorDiv(t, W)}, {@code e = floorMod(t, W)}). {@code count} is the accepted
 *   cost in the reading's window (0 when the stored window is another one). A request of cost {@code c} is
 *   admitted iff {@code count + c <= L}. {@code remaining = L − count} (after the request when admitted; at least
 *   0 after a limit was lowered); {@code resetAfter = (k+1)·W − t = W − e} when {@code count > 0}, else 0; on a
 *   denial {@code retryAfter = W − e} (the next window starts empty), and a cost above {@code L} never passes.</li>
 *   <li><b>Overflow.</b> Counts and costs are at most 10^15 each, so {@code count + c} fits; durations are taken
 *   relative to the reading ({@code W − e}), so no absolute window end is computed.</li>
 *   <li><b>Clock step back</b> (SPEC §2): the count is carried into the reading's window and expires with it;
 *   the rebased state (re-stamped at the reading) is written even on a denial.</li>
 *   <li><b>Policy change</b> (SPEC §4): the count is kept against the new limit; a state written under another
 *   window length is ignored (fresh).</li>
 *   <li><b>Settle</b> (SPEC §10) of a reservation of {@code c} taken at {@code t0} to an actual {@code a}: only
 *   while the reading is in {@code t0}'s window (and the state was written in it): {@code a < c} lowers the count
 *   to {@code max(0, count − (c − a))}; {@code a > c} raises it by {@code k = min(a − c, L + D − count)}
 *   ({@code D} the band's maximum debt) and reports {@code a − c − k} as excess. Once the window is gone,
 *   nothing: the cost left with it, exactly as a decision of {@code a} would have. Under a debt
 *   ({@code count > L}) {@code remaining = 0} and the window's end is both resetAfter and retryAfter.</li>
 * </ol>
 * Sources: docs/SPEC.md §2-4 (§3: the boundary burst of aligned windows).
 */
final class FixedWindow {
    private FixedWindow() {
    }

    /** The count in the reading's window; {@code stored} is null when fresh. */
    private record Count(long count, boolean rebased, FixedWindowState stored) {
    }

    private static Count load(LimiterState stored, Band band, long nowNanos) {
        long windowNanos = band.windowNanos();
        if (!(stored instanceof FixedWindowState s) || s.windowNanos() != windowNanos) {
            return new Count(0, false, null);
        }
        if (nowNanos < s.lastNanos()) {
            return new Count(s.count(), true, s);
        }
        boolean sameWindow = Math.floorDiv(nowNanos, windowNanos) == Math.floorDiv(s.lastNanos(), windowNanos);
        return new Count(sameWindow ? s.count() : 0, false, s);
    }

    static BandResult decide(LimiterState stored, Band band, long cost, long nowNanos) {
        Count c = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        long untilWindowEndNanos = windowNanos - Math.floorMod(nowNanos, windowNanos);
        long limit = band.limit();
        LimiterState keep = c.stored == null ? null
                : c.rebased ? new FixedWindowState(nowNanos, c.count, windowNanos) : c.stored;
        long keepReset = c.count > 0 ? untilWindowEndNanos : 0;
        if (c.count + cost <= limit) {
            long count = c.count + cost;
            return BandResult.admitted(limit - count, untilWindowEndNanos,
                    new FixedWindowState(nowNanos, count, windowNanos), c.rebased, keep, keepReset);
        }
        long retry = cost <= limit ? untilWindowEndNanos : Decision.NO_RETRY;
        return BandResult.denied(Math.max(0, limit - c.count), retry, c.rebased, keep, keepReset);
    }

    static BandResult.Settle settle(LimiterState stored, Band band, long reserved, long actual, long reservedAtNanos,
                             long nowNanos) {
        Count c = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        if (c.stored == null || Math.floorDiv(nowNanos, windowNanos) != Math.floorDiv(reservedAtNanos, windowNanos)) {
            return BandResult.Settle.unchanged(stored); // the reservation's window is gone (or the band changed shape)
        }
        if (actual < reserved) {
            long count = Math.max(0, c.count - (reserved - actual));
            return new BandResult.Settle(new FixedWindowState(nowNanos, count, windowNanos), true, 0, count > band.limit());
        }
        long charge = actual - reserved;
        long taken = Math.max(0, Math.min(charge, band.limit() + band.maxDebt() - c.count));
        return new BandResult.Settle(new FixedWindowState(nowNanos, c.count + taken, windowNanos), true, charge - taken,
                c.count + taken > band.limit());
    }

    static long nanosUntilFresh(LimiterState stored, Band band, long nowNanos) {
        Count c = load(stored, band, nowNanos);
        return c.count > 0 ? band.windowNanos() - Math.floorMod(nowNanos, band.windowNanos()) : 0;
    }
}
