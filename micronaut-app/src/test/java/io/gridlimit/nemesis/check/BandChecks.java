package io.gridlimit.nemesis.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * The checker's exact models (docs/SPEC.md §3, §15), one per algorithm, over one stream's decisions. Every decision
 * happened at some instant of its interval {@code [s, e]} (already widened by the clock tolerance), and the checks
 * err in favour of the system: a window or interval reports a violation only when the admitted requests whose whole
 * interval lies inside it exceed what any exact limiter of the band (plus the faults' allowances,
 * {@link Allowances}) could admit there, wherever in their intervals the decisions fell.
 *
 * <ul>
 *   <li>Token bucket and GCRA (identical decisions, SPEC §3): over any {@code [a, b]}, admitted cost
 *       {@code <= C + R·(b − a)/P}. The largest excess over every {@code a} (an admitted request's start) for each
 *       {@code b} (an admitted request's end) is found by a sweep over {@code b} with a segment tree over {@code a}:
 *       O(n log n).</li>
 *   <li>Fixed window: per window {@code [k·W, (k+1)·W)} aligned to epoch 0, admitted cost {@code <= L}.</li>
 *   <li>Sliding window log: over any closed {@code [a, a + W]}, admitted cost {@code <= L} (an entry at {@code s}
 *       counts while {@code t <= s + W}), by a sweep over {@code a}.</li>
 *   <li>Sliding window counter: in window {@code k}, at each admitted request's end {@code T} (offset
 *       {@code e = T − k·W}), {@code W·cur + (W − e)·prev <= W·L}, with {@code cur} the admitted cost inside window
 *       {@code k} ending by {@code T} and {@code prev} the admitted cost inside window {@code k − 1} (0 where a
 *       fault touches either window: a side or a jump may hold a smaller one).</li>
 * </ul>
 * And lost state: after a denial of cost {@code c} at {@code τ} (in {@code [s_d, e_d]}) the key held less than
 * {@code c}, so the requests admitted after it (starting after {@code e_d}) stay below {@code c} plus what refills:
 * for a bucket {@code c + R·(b − s_d)/P} by {@code b}, for a fixed window nothing more in that window. Give-backs
 * (of reservations whose callers saw no admission) and units held on leases are added to that allowance.
 *
 * <p>Exact {@code long} arithmetic (an overflow throws {@link ArithmeticException}); the ratios are for the report
 * only. Stateless.
 */
final class BandChecks {
    private BandChecks() {
    }

    /**
     * One request of a stream, its interval widened by the clock tolerance, in relative nanoseconds.
     *
     * @param s the earliest instant it may have been decided at
     * @param e the latest
     * @param cost its cost
     * @param decision its history line
     */
    record Req(long s, long e, long cost, History.Decision decision) {
    }

    /** Receives what a check finds, in sweep order. */
    interface Sink {
        /**
         * A checked window: the tightest one ending at an admitted request (buckets), or every window.
         *
         * @param from its start, relative nanoseconds
         * @param to its end
         * @param admitted the admitted cost inside it
         * @param allowed what the bound allows there, as text
         * @param ratio admitted ÷ allowed
         * @param violated true when admitted exceeds allowed
         */
        void window(long from, long to, long admitted, String allowed, double ratio, boolean violated);

        /**
         * A key admitted again sooner after a denial than its refill allows.
         *
         * @param from the denial's start
         * @param to the end of the last admission counted
         * @param admitted the cost admitted after the denial
         * @param allowed what could have refilled (plus allowances), as text
         */
        void lost(long from, long to, long admitted, String allowed);
    }

    /**
     * Token bucket and GCRA: admitted cost over any [a, b] within C + R·(b − a)/P plus the allowances.
     *
     * @param admitted the stream's admitted requests
     * @param band the band (a bucket)
     * @param al the stream's allowances
     * @param leaseUnits the units a clock jump may free from leases (SPEC §13), 0 without leases
     * @param sink receives the findings
     */
    static void bucket(List<Req> admitted, PolicyModel.Band band, Allowances al, long leaseUnits, Sink sink) {
        if (admitted.isEmpty()) {
            return;
        }
        long gcd = gcd(band.refillTokens(), band.periodNanos());
        long r = band.refillTokens() / gcd;
        long p = band.periodNanos() / gcd;
        long c = band.quota();
        long[] cand = admitted.stream().mapToLong(Req::s).sorted().distinct().toArray();
        long[] init = new long[cand.length];
        for (int i = 0; i < cand.length; i++) {
            init[i] = Math.subtractExact(Math.multiplyExact(r, al.g(cand[i])), Math.multiplyExact(p, c));
        }
        MaxTree tree = new MaxTree(init);
        long[] fenwick = new long[cand.length + 1];
        List<Allowances.Extra> extras = al.extras();
        int next = 0;
        for (Req q : byEnd(admitted)) {
            while (next < extras.size() && extras.get(next).spanStart() <= q.e()) {
                Allowances.Extra x = extras.get(next++);
                tree.addPrefix(lastAtOrBefore(cand, x.spanEnd()), -x.bucketScaled(c, r, p, leaseUnits));
            }
            int idx = lastAtOrBefore(cand, q.s());
            tree.addPrefix(idx, Math.multiplyExact(p, q.cost()));
            for (int i = idx + 1; i <= cand.length; i += i & -i) {
                fenwick[i] += q.cost();
            }
            int best = tree.argMaxPrefix(lastAtOrBefore(cand, q.e()));
            long slack = Math.subtractExact(tree.get(best), Math.multiplyExact(r, al.g(q.e())));
            long inside = suffix(fenwick, best);
            long allowedScaled = Math.subtractExact(Math.multiplyExact(p, inside), slack);
            sink.window(cand[best], q.e(), inside, tokens(allowedScaled, p),
                    (double) Math.multiplyExact(p, inside) / allowedScaled, slack > 0);
        }
    }

    /**
     * Token bucket and GCRA: after each denial (a cost it could ever admit), what is admitted afterwards stays
     * below the denied cost plus the refill since and the allowances.
     *
     * @param admitted the stream's admitted requests
     * @param denied the stream's denials
     * @param band the band (a bucket)
     * @param al the allowances, give-backs included
     * @param leaseUnits the units that may be out on leases at once (spent after the denial without the owner)
     * @param sink receives the findings
     */
    static void bucketLost(List<Req> admitted, List<Req> denied, PolicyModel.Band band, Allowances al,
                           long leaseUnits, Sink sink) {
        List<Req> evidence = byEnd(denied.stream().filter(d -> d.cost() <= band.quota()).toList());
        if (evidence.isEmpty() || admitted.isEmpty()) {
            return;
        }
        long gcd = gcd(band.refillTokens(), band.periodNanos());
        long r = band.refillTokens() / gcd;
        long p = band.periodNanos() / gcd;
        long[] pos = evidence.stream().mapToLong(Req::e).toArray();
        long[] init = new long[pos.length];
        long maxSpan = 0;
        for (int i = 0; i < pos.length; i++) {
            Req d = evidence.get(i);
            maxSpan = Math.max(maxSpan, d.e() - d.s());
            init[i] = Math.addExact(Math.subtractExact(Math.multiplyExact(r, al.g(d.s())),
                    Math.multiplyExact(p, Math.addExact(d.cost(), leaseUnits))), 1);
        }
        MaxTree tree = new MaxTree(init);
        List<Allowances.Extra> extras = al.extras();
        int next = 0;
        for (Req q : byEnd(admitted)) {
            while (next < extras.size() && extras.get(next).spanStart() <= q.e()) {
                Allowances.Extra x = extras.get(next++);
                tree.addPrefix(lastAtOrBefore(pos, x.spanEnd() + maxSpan),
                        -x.bucketScaled(band.quota(), r, p, leaseUnits));
            }
            tree.addPrefix(lastAtOrBefore(pos, q.s()), Math.multiplyExact(p, q.cost()));
            int last = lastAtOrBefore(pos, q.e());
            if (last < 0) {
                continue;
            }
            int best = tree.argMaxPrefix(last);
            long slack = Math.subtractExact(tree.get(best), Math.multiplyExact(r, al.g(q.e())));
            if (slack > 0) {
                Req d = evidence.get(best);
                long after = admitted.stream().filter(a -> a.s() >= d.e() && a.e() <= q.e()).mapToLong(Req::cost)
                        .sum();
                long allowedScaled = Math.subtractExact(Math.multiplyExact(p, after), slack) + 1;
                sink.lost(d.s(), q.e(), after, "< " + tokens(allowedScaled, p));
            }
        }
    }

    /**
     * Fixed window: per window aligned to epoch 0, admitted cost within L plus the allowances of faults touching
     * it.
     *
     * @param admitted the stream's admitted requests
     * @param band the band
     * @param al the allowances
     * @param epochOffset epoch nanoseconds minus relative nanoseconds
     * @param sink receives the findings
     */
    static void fixedWindow(List<Req> admitted, PolicyModel.Band band, Allowances al, long epochOffset, Sink sink) {
        long w = band.periodNanos();
        for (var entry : inWindows(admitted, w, epochOffset).entrySet()) {
            long from = Math.subtractExact(Math.multiplyExact(entry.getKey(), w), epochOffset);
            long to = from + w - 1;
            long sum = entry.getValue().stream().mapToLong(Req::cost).sum();
            long allowed = Math.addExact(band.quota(), units(al, band.quota(), from, to));
            sink.window(from, to, sum, Long.toString(allowed), (double) sum / allowed, sum > allowed);
        }
    }

    /**
     * Fixed window: after a denial in a window, what is admitted later in that window stays below the denied cost
     * (plus allowances).
     *
     * @param admitted the stream's admitted requests
     * @param denied the stream's denials
     * @param band the band
     * @param al the allowances, give-backs included
     * @param epochOffset epoch nanoseconds minus relative nanoseconds
     * @param sink receives the findings
     */
    static void fixedWindowLost(List<Req> admitted, List<Req> denied, PolicyModel.Band band, Allowances al,
                                long epochOffset, Sink sink) {
        long w = band.periodNanos();
        TreeMap<Long, List<Req>> adm = inWindows(admitted, w, epochOffset);
        TreeMap<Long, List<Req>> den = inWindows(denied.stream().filter(d -> d.cost() <= band.quota()).toList(), w,
                epochOffset);
        for (var entry : den.entrySet()) {
            List<Req> in = adm.get(entry.getKey());
            if (in == null) {
                continue;
            }
            long from = Math.subtractExact(Math.multiplyExact(entry.getKey(), w), epochOffset);
            long to = from + w - 1;
            Req[] byStart = in.stream().sorted(Comparator.comparingLong(Req::s)).toArray(Req[]::new);
            long[] starts = Arrays.stream(byStart).mapToLong(Req::s).toArray();
            long[] suffix = new long[byStart.length + 1];
            for (int i = byStart.length - 1; i >= 0; i--) {
                suffix[i] = suffix[i + 1] + byStart[i].cost();
            }
            long worst = 0;
            Req worstDenial = null;
            long worstAllowed = 0;
            long worstAfter = 0;
            for (Req d : entry.getValue()) {
                long after = suffix[lastBefore(starts, d.e()) + 1];
                long allowed = Math.addExact(d.cost() - 1, units(al, band.quota(), d.s(), to));
                if (after - allowed > worst) {
                    worst = after - allowed;
                    worstDenial = d;
                    worstAllowed = allowed;
                    worstAfter = after;
                }
            }
            if (worstDenial != null) {
                sink.lost(worstDenial.s(), to, worstAfter, "<= " + worstAllowed);
            }
        }
    }

    /**
     * Sliding window log: over any closed [a, a + W], admitted cost within L plus the allowances of faults touching
     * it.
     *
     * @param admitted the stream's admitted requests
     * @param band the band
     * @param al the allowances
     * @param sink receives the findings
     */
    static void slidingLog(List<Req> admitted, PolicyModel.Band band, Allowances al, Sink sink) {
        long w = band.periodNanos();
        // events over a: a request counts for a in [e − W, s]; an extra for a in [spanStart − W, spanEnd]
        List<long[]> events = new ArrayList<>(); // {a, admitted delta, allowance delta}
        for (Req q : admitted) {
            if (q.e() - q.s() <= w) {
                events.add(new long[] {q.e() - w, q.cost(), 0});
                events.add(new long[] {q.s() + 1, -q.cost(), 0});
            }
        }
        for (Allowances.Extra x : al.extras()) {
            long u = x.windowUnits(band.quota());
            if (u > 0) {
                events.add(new long[] {x.spanStart() - w, 0, u});
                events.add(new long[] {x.spanEnd() + 1, 0, -u});
            }
        }
        events.sort(Comparator.comparingLong(ev -> ev[0]));
        long sum = 0;
        long extra = 0;
        for (int i = 0; i < events.size(); ) {
            long a = events.get(i)[0];
            boolean grew = false;
            for (; i < events.size() && events.get(i)[0] == a; i++) {
                sum += events.get(i)[1];
                extra += events.get(i)[2];
                grew |= events.get(i)[1] > 0 || events.get(i)[2] < 0;
            }
            if (grew && sum > 0) {
                long allowed = Math.addExact(band.quota(), extra);
                sink.window(a, a + w, sum, Long.toString(allowed), (double) sum / allowed, sum > allowed);
            }
        }
    }

    /**
     * Sliding window counter: {@code W·cur + (W − e)·prev <= W·L'} at each admitted request's end in each window,
     * L' the limit plus the allowances of faults touching the window.
     *
     * @param admitted the stream's admitted requests
     * @param band the band
     * @param al the allowances
     * @param epochOffset epoch nanoseconds minus relative nanoseconds
     * @param sink receives the findings
     */
    static void slidingCounter(List<Req> admitted, PolicyModel.Band band, Allowances al, long epochOffset,
                               Sink sink) {
        long w = band.periodNanos();
        TreeMap<Long, List<Req>> windows = inWindows(admitted, w, epochOffset);
        for (var entry : windows.entrySet()) {
            long k = entry.getKey();
            long from = Math.subtractExact(Math.multiplyExact(k, w), epochOffset);
            long to = from + w - 1;
            long extra = units(al, band.quota(), from, to);
            boolean touched = extra > 0 || units(al, band.quota(), from - w, from - 1) > 0;
            List<Req> before = windows.get(k - 1);
            long prev = touched || before == null ? 0 : before.stream().mapToLong(Req::cost).sum();
            long rhs = Math.multiplyExact(w, Math.addExact(band.quota(), extra));
            long cur = 0;
            for (Req q : byEnd(entry.getValue())) {
                cur += q.cost();
                long lhs = Math.addExact(Math.multiplyExact(w, cur), Math.multiplyExact(w - (q.e() - from), prev));
                sink.window(from, q.e(), cur, "(" + rhs + " − " + (w - (q.e() - from)) + "·" + prev + ")/" + w,
                        (double) lhs / rhs, lhs > rhs);
            }
        }
    }

    /** The requests whose whole interval lies in one window, by window index. */
    private static TreeMap<Long, List<Req>> inWindows(List<Req> reqs, long w, long epochOffset) {
        TreeMap<Long, List<Req>> out = new TreeMap<>();
        for (Req q : reqs) {
            long k = Math.floorDiv(Math.addExact(q.s(), epochOffset), w);
            if (k == Math.floorDiv(Math.addExact(q.e(), epochOffset), w)) {
                out.computeIfAbsent(k, x -> new ArrayList<>()).add(q);
            }
        }
        return out;
    }

    /** The window-unit allowances of the extras overlapping [from, to]. */
    private static long units(Allowances al, long quota, long from, long to) {
        long sum = 0;
        for (Allowances.Extra x : al.extras()) {
            if (Allowances.overlaps(x, from, to)) {
                sum = Math.addExact(sum, x.windowUnits(quota));
            }
        }
        return sum;
    }

    private static List<Req> byEnd(List<Req> reqs) {
        List<Req> out = new ArrayList<>(reqs);
        out.sort(Comparator.comparingLong(Req::e));
        return out;
    }

    /** @return the last index whose value is <= x, or -1 (sorted ascending) */
    static int lastAtOrBefore(long[] sorted, long x) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] <= x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** @return the last index whose value is < x, or -1 */
    private static int lastBefore(long[] sorted, long x) {
        return lastAtOrBefore(sorted, x - 1);
    }

    private static long suffix(long[] fenwick, int from) {
        return prefix(fenwick, fenwick.length - 1) - prefix(fenwick, from);
    }

    private static long prefix(long[] fenwick, int count) {
        long s = 0;
        for (int i = count; i > 0; i -= i & -i) {
            s += fenwick[i];
        }
        return s;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** @return a scaled token amount as a decimal for the report */
    private static String tokens(long scaled, long p) {
        return String.format(java.util.Locale.ROOT, "%.2f", (double) scaled / p);
    }
}
