package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;

import java.util.Arrays;

/**
 * Sliding window log (docs/SPEC.md §3).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Formula.</b> Limit {@code L} (at most 100 000) per window {@code W}. An accepted request at {@code s}
 *   counts while {@code t <= s + W}, i.e. in the closed interval {@code [t − W, t]}; its capacity returns at
 *   {@code s + W + 1} ns. With {@code sum} the cost of the entries that count, a request of cost {@code c} is
 *   admitted iff {@code sum + c <= L}; {@code remaining = L − sum} (after the request when admitted; at least 0
 *   after a limit was lowered); {@code resetAfter = newest s + W + 1 − t}, or 0 with no entry. On a denial,
 *   {@code retryAfter = s_i + W + 1 − t} for the oldest entry {@code i} whose expiry (with all older ones) leaves
 *   room for {@code c}; a cost above {@code L} never passes. Hence no closed interval of length {@code W} ever
 *   holds more than {@code L} accepted cost (a property test checks it).</li>
 *   <li><b>Storage.</b> Requests accepted at the same reading share one entry ({@code int} cost, at most
 *   {@code L}), so a log holds at most {@code L} entries; entries that no longer count are pruned on every
 *   write. A denial never writes (except a rebase), so it never prunes.</li>
 *   <li><b>Overflow.</b> Sums are at most 2·10^5; ages {@code t − s} are at most {@code W} for entries that count
 *   (older ones are recognised without subtracting across the {@code long} range).</li>
 *   <li><b>Clock step back</b> (SPEC §2): every entry time shifts back by {@code lastNanos − now}, so the log
 *   looks at the reading exactly as it did at its last write; the rebased state is written even on a denial.</li>
 *   <li><b>Policy change</b> (SPEC §4): entries are kept against the new limit; a state written under another
 *   window length is ignored (fresh).</li>
 *   <li><b>Settle</b> (SPEC §10) of a reservation of {@code c} taken at {@code t0} to an actual {@code a}: the
 *   entry at {@code t0}, while it still counts ({@code t <= t0 + W}), is reduced by {@code c − a} (removed at 0)
 *   when {@code a < c}, or raised by {@code k = min(a − c, L + D − sum)} ({@code D} the band's maximum debt) when
 *   {@code a > c}, reporting {@code a − c − k} as excess; once the entry no longer counts, nothing. Requests
 *   accepted at one reading share an entry: a settle changes only its own reservation's part of it.</li>
 * </ol>
 * Sources: docs/SPEC.md §2-4 (§3: "Retry-After: 6" for the denial at 25 s); the 30 s / 5 table worked by hand in
 * SlidingWindowLogTest.
 */
final class SlidingWindowLog {
    private SlidingWindowLog() {
    }

    private static final long[] NO_NANOS = new long[0];
    private static final int[] NO_COSTS = new int[0];

    /**
     * The log as seen at the reading: entries {@code [first, length)} of {@code nanos}/{@code costs} count, with
     * total {@code sum}; after a step back the arrays are the shifted copies. {@code stored} is null when fresh.
     */
    private record View(long[] nanos, int[] costs, int first, long sum, boolean rebased, SlidingWindowLogState stored) {
        int size() {
            return nanos.length - first;
        }
    }

    private static View load(LimiterState stored, Band band, long nowNanos) {
        long windowNanos = band.windowNanos();
        if (!(stored instanceof SlidingWindowLogState s) || s.windowNanos() != windowNanos) {
            return new View(NO_NANOS, NO_COSTS, 0, 0, false, null);
        }
        long[] nanos = s.entryNanos;
        boolean rebased = nowNanos < s.lastNanos();
        if (rebased) {
            long shift = s.lastNanos() - nowNanos; // > 0; entries were written no later than lastNanos
            long[] shifted = new long[nanos.length];
            for (int i = 0; i < nanos.length; i++) {
                shifted[i] = nanos[i] - shift;
            }
            nanos = shifted;
        }
        long horizon = nowNanos - windowNanos; // entries at or after it count (t <= s + W)
        int first = 0;
        if (nowNanos >= Long.MIN_VALUE + windowNanos) { // else no reading can be older than the horizon
            while (first < nanos.length && nanos[first] < horizon) {
                first++;
            }
        }
        long sum = 0;
        for (int i = first; i < nanos.length; i++) {
            sum += s.entryCosts[i];
        }
        return new View(nanos, s.entryCosts, first, sum, rebased, s);
    }

    /** The entries that count, as a state stamped at the reading (prunes). */
    private static SlidingWindowLogState keepAt(View v, long nowNanos, long windowNanos) {
        return new SlidingWindowLogState(nowNanos, windowNanos, Arrays.copyOfRange(v.nanos, v.first, v.nanos.length),
                Arrays.copyOfRange(v.costs, v.first, v.costs.length), false);
    }

    private static long resetAfter(View v, long nowNanos, long windowNanos) {
        if (v.size() == 0) {
            return 0;
        }
        long newestAge = nowNanos - v.nanos[v.nanos.length - 1]; // in [0, W]
        return windowNanos + 1 - newestAge;
    }

    static BandResult decide(LimiterState stored, Band band, long cost, long nowNanos) {
        View v = load(stored, band, nowNanos);
        long windowNanos = band.windowNanos();
        long limit = band.limit();
        LimiterState keep = v.stored == null ? null : v.rebased ? keepAt(v, nowNanos, windowNanos) : v.stored;
        long keepReset = resetAfter(v, nowNanos, windowNanos);
        if (v.sum + cost <= limit) {
            int n = v.size();
            long[] nanos;
            int[] costs;
            if (n > 0 && v.nanos[v.nanos.length - 1] == nowNanos) {
                nanos = Arrays.copyOfRange(v.nanos, v.first, v.nanos.length);
                costs = Arrays.copyOfRange(v.costs, v.first, v.costs.length);
                costs[n - 1] += (int) cost;
            } else {
                nanos = Arrays.copyOfRange(v.nanos, v.first, v.nanos.length + 1);
                costs = Arrays.copyOfRange(v.costs, v.first, v.costs.length + 1);
                nanos[n] = nowNanos;
                costs[n] = (int) cost;
            }
            return BandResult.admitted(limit - v.sum - cost, windowNanos + 1,
                    new SlidingWindowLogState(nowNanos, windowNanos, nanos, costs, false), v.rebased, keep, keepReset);
        }
        long retry = Decision.NO_RETRY;
        if (cost <= limit) {
            long sum = v.sum;
            for (int i = v.first; i < v.nanos.length; i++) {
                sum -= v.costs[i];
                if (sum + cost <= limit) {
                    retry = windowNanos + 1 - (nowNanos - v.nanos[i]);
                    break;
                }
            }
        }
        return BandResult.denied(Math.max(0, limit - v.sum), retry, v.rebased, keep, keepReset);
    }

    static BandResult.Settle settle(LimiterState stored, Band band, long reserved, long actual, long reservedAtNanos,
                             long nowNanos) {
        View v = load(stored, band, nowNanos);
        int at = -1;
        for (int i = v.first; i < v.nanos.length; i++) {
            if (v.nanos[i] == reservedAtNanos) {
                at = i;
                break;
            }
        }
        if (v.stored == null || at < 0) {
            return BandResult.Settle.unchanged(stored); // the entry no longer counts (or the band changed shape)
        }
        long[] nanos = Arrays.copyOfRange(v.nanos, v.first, v.nanos.length);
        int[] costs = Arrays.copyOfRange(v.costs, v.first, v.costs.length);
        int i = at - v.first;
        long excess = 0;
        long sum = v.sum;
        if (actual < reserved) {
            long left = costs[i] - (reserved - actual);
            sum -= Math.min(costs[i], reserved - actual);
            if (left <= 0) {
                int n = nanos.length;
                long[] n2 = new long[n - 1];
                int[] c2 = new int[n - 1];
                System.arraycopy(nanos, 0, n2, 0, i);
                System.arraycopy(nanos, i + 1, n2, i, n - 1 - i);
                System.arraycopy(costs, 0, c2, 0, i);
                System.arraycopy(costs, i + 1, c2, i, n - 1 - i);
                nanos = n2;
                costs = c2;
            } else {
                costs[i] = (int) left;
            }
        } else {
            long charge = actual - reserved;
            long taken = Math.max(0, Math.min(charge, band.limit() + band.maxDebt() - v.sum));
            costs[i] += (int) taken; // sum <= limit + maxDebt <= 2·10^5
            sum += taken;
            excess = charge - taken;
        }
        return new BandResult.Settle(new SlidingWindowLogState(nowNanos, band.windowNanos(), nanos, costs, false), true,
                excess, sum > band.limit());
    }

    static long nanosUntilFresh(LimiterState stored, Band band, long nowNanos) {
        return resetAfter(load(stored, band, nowNanos), nowNanos, band.windowNanos());
    }
}
