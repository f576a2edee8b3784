package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.calendar.CalendarPeriods;
import io.gridlimit.calendar.CalendarSpan;
import io.gridlimit.internal.Saturating;

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
 *
 * <h2>Calendar bands</h2>
 * A calendar band (docs/SPEC.md §14) is a fixed window whose windows are the periods of its calendar
 * ({@link CalendarPeriods}) instead of {@code [k·W, (k+1)·W)}: the same rule ({@code count + c <= L}), remaining,
 * settle and TTL, with {@code W − e} replaced by {@code E − t}, {@code E} the end of the period the count belongs
 * to. The state ({@link CalendarState}) names that period ({@code n}, its nominal local start) and stores its
 * instants as the deciding members computed them, so that members whose tz data differ (a JDK update on some of
 * them) never over-admit. At the reading {@code t}, with {@code [s, e)} this member's period of {@code t} and
 * {@code e(n)} this member's end of the stored period {@code n}:
 * <ol>
 *   <li>the ends become {@code E1 = min(E1, e(n))} and {@code E2 = max(E2, e(n))};</li>
 *   <li>{@code t < E2}: the count is {@code n}'s (no member's rules have ended it for every member);</li>
 *   <li>{@code t >= E2}: a new period, this member's of {@code t}, starting at {@code max(s, E2)} with the count
 *   {@code next}: the cost taken at readings at or after {@code E1}, which some member's rules placed in the next
 *   period already;</li>
 *   <li>an admission at {@code t >= E1} adds its cost to {@code next} as well as to the count;</li>
 *   <li>{@code t < lastNanos} (clock step back, SPEC §2): the count is carried into {@code [s, e)}, as a fixed
 *   window's is.</li>
 * </ol>
 * {@code resetAfter} (and the TTL) is {@code E2 − t}, or with {@code next > 0} the end of the period after
 * {@code n} less {@code t}; on a denial {@code retryAfter} is {@code E2 − t} when {@code next + c <= L}, else that
 * later end less {@code t}. With one set of zone rules {@code E1 = E2 = e(n)}, {@code next} stays 0 and the band is
 * exactly the fixed window of its periods. A decision inside the cached current period allocates only the state it
 * writes.
 * Sources: docs/SPEC.md §2-4 (§3: the boundary burst of aligned windows), §14.
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

    /**
     * One hit of envoyproxy/ratelimit's counting (docs/SPEC.md §3, "Every hit counts"): the cost is counted whether
     * or not the request passes. With {@code count} the window's count before it, the count becomes
     * {@code min(count + c, 10^15)} (saturating: no limit is above 10^15, so a higher count answers alike); the hit
     * passes iff {@code count + c <= L}; {@code remaining = L − count − c} when it passes, else what was left when
     * it came, {@code max(0, L − count)}, as a denial reports it (so that a caller can tell how much of the hit was
     * above the limit); {@code resetAfter = W − e} when
     * the new count is above 0, else 0; on a denial {@code retryAfter = W − e} for {@code c <= L}, none above. A
     * hit of cost 0 (a peek) passes iff {@code count <= L} and writes nothing (unless the state was rebased after a
     * clock step back, SPEC §2). Every other hit writes, a denied one too, with the TTL {@code W − e}.
     *
     * @param stored the band's stored state, or null
     * @param band a fixed-window band
     * @param cost the hit's cost, in [0, 10^15]
     * @param nowNanos the reading, epoch nanoseconds
     * @return the decision (limit: the band's) and what to write
     */
    static Outcome hit(LimiterState stored, Band band, long cost, long nowNanos) {
        Count c = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        long untilWindowEndNanos = windowNanos - Math.floorMod(nowNanos, windowNanos);
        long limit = band.limit();
        long after = Math.min(c.count + cost, Band.MAX_QUANTITY);
        boolean allowed = c.count + cost <= limit;
        long reset = after > 0 ? untilWindowEndNanos : 0;
        long retry = allowed ? Decision.NO_RETRY : cost <= limit ? untilWindowEndNanos : Decision.NO_RETRY;
        // remaining: after the hit when it passes; when denied, what was left when it came (SPEC §3's denial)
        Decision d = new Decision(allowed, limit, Math.max(0, limit - c.count - (allowed ? cost : 0)), reset, retry,
                null);
        if (cost == 0 && !c.rebased) {
            return new Outcome(d, false, stored, 0);
        }
        return new Outcome(d, true, new FixedWindowState(nowNanos, after, windowNanos), reset);
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
            return new BandResult.Settle(new FixedWindowState(nowNanos, count, windowNanos), true, 0,
                    count > band.limit());
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

    /** The stored state of {@code band}'s calendar, or null (fresh, or another calendar's: SPEC §4). */
    private static CalendarState storedCalendar(LimiterState stored, Band band) {
        return stored instanceof CalendarState c && c.calendar().equals(band.calendar().id()) ? c : null;
    }

    /**
     * A calendar band's count at the reading, before the request, as a state (the class note; its
     * {@code lastNanos} means nothing): the stored state itself while it is current and this member's rules end
     * its period where it says, so that a decision inside the cached period allocates no view.
     */
    private static CalendarState view(CalendarState s, CalendarPeriods calendar, long nowNanos) {
        CalendarSpan now = calendar.span(nowNanos);
        if (s != null && nowNanos >= s.lastNanos() && s.localStartSeconds() == now.localStartSeconds()
                && s.earliestEndNanos() == now.endNanos() && s.latestEndNanos() == now.endNanos()) {
            return s;
        }
        if (s == null || nowNanos < s.lastNanos()) { // fresh; or a clock step back: into the reading's period
            return new CalendarState(nowNanos, now.localStartSeconds(), now.startNanos(), now.endNanos(),
                    now.endNanos(), s == null ? 0 : s.count(), 0, calendar.id());
        }
        if (s.localStartSeconds() < now.localStartSeconds() && s.latestEndNanos() <= nowNanos) {
            // an earlier period ends for this member by now's period start: over for every member (no computing)
            return next(s, now, s.latestEndNanos(), calendar);
        }
        long end = s.localStartSeconds() == now.localStartSeconds() ? now.endNanos()
                : calendar.endNanosOf(s.localStartSeconds());
        long latest = Math.max(s.latestEndNanos(), end);
        if (nowNanos < latest) {
            return new CalendarState(s.lastNanos(), s.localStartSeconds(), s.startNanos(),
                    Math.min(s.earliestEndNanos(), end), latest, s.count(), s.nextCount(), s.calendar());
        }
        return next(s, now, latest, calendar);
    }

    /** This member's period of the reading, begun once {@code s}'s ended at {@code latestEndNanos}: its next count. */
    private static CalendarState next(CalendarState s, CalendarSpan now, long latestEndNanos,
                                      CalendarPeriods calendar) {
        return new CalendarState(s.lastNanos(), now.localStartSeconds(), Math.min(now.endNanos(),
                Math.max(now.startNanos(), latestEndNanos)), now.endNanos(), now.endNanos(), s.nextCount(), 0,
                calendar.id());
    }

    /** {@code view} with {@code count} and {@code nextCount} as written at the reading. */
    private static CalendarState at(CalendarState view, long nowNanos, long count, long nextCount) {
        return new CalendarState(nowNanos, view.localStartSeconds(), view.startNanos(), view.earliestEndNanos(),
                view.latestEndNanos(), count, nextCount, view.calendar());
    }

    /** {@code end − t}, at least 1 ns (only an end saturated at the bounds of a {@code long} could be reached). */
    private static long until(long endNanos, long nowNanos) {
        return Math.max(1, Saturating.subtract(endNanos, nowNanos));
    }

    /** When a count with {@code next} of it carried into the next period is all gone (the class note). */
    private static long untilEmpty(CalendarPeriods calendar, CalendarState view, long next, long nowNanos) {
        if (next == 0) {
            return until(view.latestEndNanos(), nowNanos);
        }
        long afterNext = calendar.endNanosOf(calendar.nextLocalStartSeconds(view.localStartSeconds()));
        return until(Math.max(view.latestEndNanos(), afterNext), nowNanos);
    }

    static BandResult decideCalendar(LimiterState stored, Band band, long cost, long nowNanos) {
        CalendarPeriods calendar = band.calendar();
        CalendarState s = storedCalendar(stored, band);
        boolean rebased = s != null && nowNanos < s.lastNanos();
        CalendarState p = view(s, calendar, nowNanos);
        long limit = band.limit();
        LimiterState keep = s == null ? null : rebased ? p : s;
        long keepReset = p.count() > 0 ? untilEmpty(calendar, p, p.nextCount(), nowNanos) : 0;
        if (p.count() + cost <= limit) {
            long count = p.count() + cost;
            long next = p.nextCount() + (nowNanos >= p.earliestEndNanos() ? cost : 0);
            return BandResult.admitted(limit - count, untilEmpty(calendar, p, next, nowNanos),
                    at(p, nowNanos, count, next), rebased, keep, keepReset);
        }
        long retry = cost > limit ? Decision.NO_RETRY
                : p.nextCount() + cost <= limit ? until(p.latestEndNanos(), nowNanos)
                : untilEmpty(calendar, p, p.nextCount(), nowNanos);
        return BandResult.denied(Math.max(0, limit - p.count()), retry, rebased, keep, keepReset);
    }

    static BandResult.Settle settleCalendar(LimiterState stored, Band band, long reserved, long actual,
                                            long reservedAtNanos, long nowNanos) {
        CalendarState s = storedCalendar(stored, band);
        if (s == null) {
            return BandResult.Settle.unchanged(stored);
        }
        CalendarState p = view(s, band.calendar(), nowNanos);
        if (reservedAtNanos < p.startNanos() || reservedAtNanos >= p.latestEndNanos()) {
            return BandResult.Settle.unchanged(stored); // the reservation's period is gone
        }
        if (actual < reserved) {
            long count = Math.max(0, p.count() - (reserved - actual));
            long next = Math.min(count, reservedAtNanos >= p.earliestEndNanos()
                    ? Math.max(0, p.nextCount() - (reserved - actual)) : p.nextCount());
            return new BandResult.Settle(at(p, nowNanos, count, next), true, 0, count > band.limit());
        }
        long charge = actual - reserved;
        long taken = Math.max(0, Math.min(charge, band.limit() + band.maxDebt() - p.count()));
        long next = p.nextCount() + (nowNanos >= p.earliestEndNanos() ? taken : 0);
        return new BandResult.Settle(at(p, nowNanos, p.count() + taken, next), true, charge - taken,
                p.count() + taken > band.limit());
    }

    static long nanosUntilFreshCalendar(LimiterState stored, Band band, long nowNanos) {
        CalendarState s = storedCalendar(stored, band);
        if (s == null) {
            return 0;
        }
        CalendarState p = view(s, band.calendar(), nowNanos);
        return p.count() > 0 ? untilEmpty(band.calendar(), p, p.nextCount(), nowNanos) : 0;
    }

    /** A calendar band's hold of a reservation taken at the reading (SPEC §10): until its period's end. */
    static long calendarHoldNanos(Band band, long nowNanos) {
        return until(band.calendar().span(nowNanos).endNanos(), nowNanos);
    }

    /**
     * Merges two states of one calendar (docs/SPEC.md §8), both read at {@code t} (not before either's
     * {@code lastNanos}) under {@code bandOrNull}'s rules, or as stored when the band is unknown: of one period, the
     * higher counts over the union of its instants; of two, the earlier period with the higher count, the later
     * side's count counted as its next period's. At least as consumed as each side.
     */
    static CalendarState mergeCalendar(CalendarState a, CalendarState b, Band bandOrNull, long t) {
        CalendarState x = bandOrNull == null ? a : view(a, bandOrNull.calendar(), t);
        CalendarState y = bandOrNull == null ? b : view(b, bandOrNull.calendar(), t);
        if (y.localStartSeconds() < x.localStartSeconds()) {
            CalendarState swap = x;
            x = y;
            y = swap;
        }
        long count = Math.max(x.count(), y.count());
        if (x.localStartSeconds() == y.localStartSeconds()) {
            return new CalendarState(t, x.localStartSeconds(), Math.min(x.startNanos(), y.startNanos()),
                    Math.min(x.earliestEndNanos(), y.earliestEndNanos()),
                    Math.max(x.latestEndNanos(), y.latestEndNanos()), count, Math.max(x.nextCount(), y.nextCount()),
                    a.calendar());
        }
        return new CalendarState(t, x.localStartSeconds(), x.startNanos(), x.earliestEndNanos(), x.latestEndNanos(),
                count, Math.min(count, Math.max(x.nextCount(), y.count())), a.calendar());
    }
}
