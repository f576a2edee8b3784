package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.internal.Wide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The conservative merge of two states of one key after a split brain (docs/SPEC.md §8): the
 * result is at least as consumed as each input, so no capacity spent on either side of the split comes back when
 * the sides heal. A pure function of its arguments: no clock is read, nothing is stored. Thread-safe (stateless).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Common instant.</b> Both states are read at {@code t = max(a.lastNanos, b.lastNanos)}, the instant
 *   the later side last wrote, exactly as a decision at {@code t} would read them (SPEC §3: refill, window
 *   roll-over, log pruning); the result is stamped {@code lastNanos = t}. Neither input is after {@code t}, so no
 *   rebase (SPEC §2) is involved.</li>
 *   <li><b>Per algorithm</b>, with {@code band} the policy's band when known:
 *   <ul>
 *     <li>token bucket: the fewer tokens at {@code t} (whole tokens, then the fraction), exact
 *     ({@code tokens = min(C, tokens + elapsed·R/P)} of SPEC §3). Without the band (capacity and rate unknown)
 *     the fewer stored tokens, stamped at {@code t}: never more than either side has at {@code t} (a state only
 *     gains tokens with time), but it withholds up to {@code (t − earlier lastNanos)·R/P} tokens of refill.</li>
 *     <li>GCRA: the larger debt {@code (max(TAT, t) − t)·R} at {@code t}, i.e. the later TAT; the band is
 *     rebuilt from the state's own parameters when not given.</li>
 *     <li>fixed window: the higher count in the window of {@code t}; a count of an earlier window is 0 at
 *     {@code t}.</li>
 *     <li>calendar band: both read at {@code t}; of one period the higher counts over the union of its instants,
 *     of two the earlier period with the higher count, the later side's counting for its next period too
 *     ({@link FixedWindow}'s calendar note).</li>
 *     <li>sliding window counter: the higher current and the higher previous count, both as seen from the window
 *     of {@code t} (a state one window behind contributes its current count as previous).</li>
 *     <li>sliding window log: the union of the entries that still count at {@code t} ({@code t − W <= s}); an
 *     entry time present on both sides is one entry with the larger cost (both sides hold the history from
 *     before the split, so equal entries are not counted twice). Bounded by the limit {@code L} (at most
 *     {@link Band#MAX_LOG_LIMIT} when the band is unknown): the newest entries are kept, up to a total cost of
 *     {@code L}, the oldest kept entry trimmed to fit; so the merged log admits nothing until enough of its
 *     newest {@code L} cost has expired.</li>
 *     <li>composite: each band merged as above, matched by band name (a band present on one side only is kept
 *     as it is).</li>
 *   </ul></li>
 *   <li><b>Different shapes.</b> A state that the band would ignore (another algorithm, refill period or window:
 *   SPEC §4 "starts that key fresh") is worth nothing: the other state is kept. When both are of another shape
 *   than the band, or the band is unknown and the shapes differ, the newer state ({@code lastNanos}, the first
 *   argument on a tie) is kept.</li>
 *   <li><b>Freshness.</b> The merged state becomes fresh no later than the later of the two inputs does (each
 *   rule above takes a value from one side, or for the log the newest entry of the two), so the later of the two
 *   entries' expiration times is a valid TTL for it (SPEC §8).</li>
 *   <li><b>Overflow.</b> Token and debt comparisons are exact ({@link Wide}); counts are kept, not added; a
 *   log's costs are summed to at most {@code L} (at most 10^5).</li>
 * </ol>
 * Sources: docs/SPEC.md §2-4, §8 (the merge keeps the more consumed side: fewer tokens, higher counts in the same
 * window, later TAT, union of log entries bounded by the limit).
 */
public final class MergeStates {
    private MergeStates() {
    }

    /**
     * Merges two states of one key conservatively (see the class note).
     *
     * @param a a state, or null when that side has none
     * @param b a state, or null when that side has none
     * @param policyOrNull the key's policy, or null when it is unknown (then the rules that need a capacity, a rate
     *     or a limit fall back as the class note says)
     * @return a state at least as consumed as each input; null only when both are null; one of the inputs when
     *     the other is null or of a shape the policy ignores
     */
    public static LimiterState moreConsumed(LimiterState a, LimiterState b, Policy policyOrNull) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a instanceof ReservedState || b instanceof ReservedState) {
            return mergeReserved(a, b, policyOrNull);
        }
        if (policyOrNull == null) {
            return mergeUnknownPolicy(a, b);
        }
        if (!policyOrNull.isComposite()) {
            Band band = policyOrNull.bands().get(0);
            return mergeBand(Composite.bandState(a, policyOrNull, band), Composite.bandState(b, policyOrNull, band),
                    band);
        }
        long t = Math.max(a.lastNanos(), b.lastNanos());
        List<String> names = new ArrayList<>();
        List<LimiterState> states = new ArrayList<>();
        for (Band band : policyOrNull.bands()) {
            LimiterState merged = mergeBand(Composite.bandState(a, policyOrNull, band),
                    Composite.bandState(b, policyOrNull, band), band);
            if (merged != null) {
                names.add(band.name());
                states.add(merged);
            }
        }
        return new CompositeState(t, names.toArray(new String[0]), states.toArray(new LimiterState[0]), false);
    }

    /**
     * Reserved states (SPEC §10): the limiter states inside are merged as any; the bookkeeping of either side is
     * kept with every id closed (a reservation of one side must not give back to what the other side consumed),
     * the later hold, so reservations taken before the heal can no longer be settled and their cost stands.
     */
    private static LimiterState mergeReserved(LimiterState a, LimiterState b, Policy policyOrNull) {
        ReservedState ra = a instanceof ReservedState r ? r : null;
        ReservedState rb = b instanceof ReservedState r ? r : null;
        LimiterState inner = moreConsumed(Reservations.unwrap(a), Reservations.unwrap(b), policyOrNull);
        ReservedState w = ra != null ? ra : rb;
        long nextId = Math.max(ra == null ? 1 : ra.nextId(), rb == null ? 1 : rb.nextId());
        long hold = Math.max(ra == null ? Long.MIN_VALUE : ra.holdUntilNanos(),
                rb == null ? Long.MIN_VALUE : rb.holdUntilNanos());
        long[] none = new long[0];
        // the open leases of both sides stay open: either side's holders may be spending them (SPEC §13)
        ReservedState joined = joinLeases(ra, rb);
        return new ReservedState(inner, w.stateId(), w.secretHigh(), w.secretLow(), nextId, hold, nextId, none, none,
                none, joined.leaseIds, joined.leaseUnits, joined.leaseEndsAtNanos, joined.leaseHolderHigh,
                joined.leaseHolderLow, Math.max(ra == null ? Long.MIN_VALUE : ra.expiredThroughNanos(),
                rb == null ? Long.MIN_VALUE : rb.expiredThroughNanos()),
                Math.max(ra == null ? Long.MIN_VALUE : ra.lastFullNanos(),
                        rb == null ? Long.MIN_VALUE : rb.lastFullNanos()), false);
    }

    /** A state carrying the open leases of {@code a} and {@code b} (either may be null), ordered by end. */
    private static ReservedState joinLeases(ReservedState a, ReservedState b) {
        ReservedState one = a != null ? a : b;
        ReservedState other = a != null ? b : null;
        if (other == null || other.leaseIds.length == 0) {
            return one;
        }
        int n = one.leaseIds.length + other.leaseIds.length;
        long[] ids = new long[n];
        long[] units = new long[n];
        long[] ends = new long[n];
        long[] high = new long[n];
        long[] low = new long[n];
        int i = 0;
        int j = 0;
        for (int k = 0; k < n; k++) {
            boolean fromOne = j >= other.leaseIds.length
                    || (i < one.leaseIds.length && one.leaseEndsAtNanos[i] <= other.leaseEndsAtNanos[j]);
            ReservedState src = fromOne ? one : other;
            int at = fromOne ? i++ : j++;
            ids[k] = src.leaseIds[at];
            units[k] = src.leaseUnits[at];
            ends[k] = src.leaseEndsAtNanos[at];
            high[k] = src.leaseHolderHigh[at];
            low[k] = src.leaseHolderLow[at];
        }
        return one.withLeases(one.inner(), ids, units, ends, high, low);
    }

    private static LimiterState mergeUnknownPolicy(LimiterState a, LimiterState b) {
        if (a instanceof CompositeState ca && b instanceof CompositeState cb) {
            Set<String> names = new LinkedHashSet<>(Arrays.asList(ca.bandNames()));
            names.addAll(Arrays.asList(cb.bandNames()));
            List<LimiterState> states = new ArrayList<>();
            for (String name : names) {
                states.add(mergeBand(ca.bandState(name), cb.bandState(name), null));
            }
            return new CompositeState(Math.max(a.lastNanos(), b.lastNanos()), names.toArray(new String[0]),
                    states.toArray(new LimiterState[0]), false);
        }
        if (a instanceof CompositeState || b instanceof CompositeState) {
            return newer(a, b);
        }
        return mergeBand(a, b, null);
    }

    /** Merges two single-algorithm states; {@code band} may be null (unknown policy). */
    private static LimiterState mergeBand(LimiterState a, LimiterState b, Band band) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (band != null) {
            boolean aCounts = fits(a, band);
            boolean bCounts = fits(b, band);
            if (!aCounts || !bCounts) {
                return aCounts ? a : bCounts ? b : newer(a, b);
            }
        } else if (!sameShape(a, b)) {
            return newer(a, b);
        }
        long t = Math.max(a.lastNanos(), b.lastNanos());
        if (a instanceof TokenBucketState ta) {
            return tokenBucket(ta, (TokenBucketState) b, band, t);
        }
        if (a instanceof GcraState ga) {
            return gcra(ga, (GcraState) b, band, t);
        }
        if (a instanceof FixedWindowState fa) {
            return fixedWindow(fa, (FixedWindowState) b, t);
        }
        if (a instanceof SlidingWindowCounterState ca) {
            return slidingWindowCounter(ca, (SlidingWindowCounterState) b, t);
        }
        if (a instanceof CalendarState ca) {
            return FixedWindow.mergeCalendar(ca, (CalendarState) b, band, t);
        }
        return slidingWindowLog((SlidingWindowLogState) a, (SlidingWindowLogState) b,
                band != null ? band.limit() : Band.MAX_LOG_LIMIT, t);
    }

    private static LimiterState newer(LimiterState a, LimiterState b) {
        return a.lastNanos() >= b.lastNanos() ? a : b;
    }

    /**
     * Tells whether a decision under {@code band} reads {@code s} instead of starting fresh (SPEC §4): a state of
     * the band's algorithm written under the same refill period (buckets, GCRA) or window (window algorithms).
     * The one home of that rule: merging ({@link #moreConsumed}) and the member's seen policies ({@code SeenPolicies}) both ask it.
     *
     * @param s a single-algorithm state, or null (never fits)
     * @param band a band, not null
     * @return true when the band's algorithm would read {@code s}
     */
    public static boolean fits(LimiterState s, Band band) {
        return switch (band.algorithm()) {
            case TOKEN_BUCKET -> s instanceof TokenBucketState t && t.refillPeriodNanos() == band.refillPeriodNanos();
            case GCRA -> s instanceof GcraState g && g.refillPeriodNanos() == band.refillPeriodNanos();
            case FIXED_WINDOW -> s instanceof FixedWindowState f && f.windowNanos() == band.windowNanos();
            case SLIDING_WINDOW_LOG -> s instanceof SlidingWindowLogState l && l.windowNanos() == band.windowNanos();
            case SLIDING_WINDOW_COUNTER ->
                    s instanceof SlidingWindowCounterState c && c.windowNanos() == band.windowNanos();
            case CALENDAR -> s instanceof CalendarState c && c.calendar().equals(band.calendar().id());
        };
    }

    /** True when two states of one algorithm were written under the same parameters they carry. */
    private static boolean sameShape(LimiterState a, LimiterState b) {
        if (a instanceof TokenBucketState x && b instanceof TokenBucketState y) {
            return x.refillPeriodNanos() == y.refillPeriodNanos();
        }
        if (a instanceof GcraState x && b instanceof GcraState y) {
            return x.refillPeriodNanos() == y.refillPeriodNanos() && x.capacity() == y.capacity()
                    && x.refillTokens() == y.refillTokens();
        }
        if (a instanceof FixedWindowState x && b instanceof FixedWindowState y) {
            return x.windowNanos() == y.windowNanos();
        }
        if (a instanceof SlidingWindowCounterState x && b instanceof SlidingWindowCounterState y) {
            return x.windowNanos() == y.windowNanos();
        }
        if (a instanceof SlidingWindowLogState x && b instanceof SlidingWindowLogState y) {
            return x.windowNanos() == y.windowNanos();
        }
        if (a instanceof CalendarState x && b instanceof CalendarState y) {
            return x.calendar().equals(y.calendar());
        }
        return false;
    }

    private static TokenBucketState tokenBucket(TokenBucketState a, TokenBucketState b, Band band, long t) {
        TokenBucketState x = band == null ? a : TokenBucket.levelAt(a, band, t);
        TokenBucketState y = band == null ? b : TokenBucket.levelAt(b, band, t);
        boolean xFewer = x.tokens() < y.tokens()
                || (x.tokens() == y.tokens() && x.tokenFraction() <= y.tokenFraction());
        TokenBucketState fewer = xFewer ? x : y;
        return fewer.lastNanos() == t ? fewer
                : new TokenBucketState(t, fewer.tokens(), fewer.tokenFraction(), fewer.refillPeriodNanos());
    }

    private static GcraState gcra(GcraState a, GcraState b, Band band, long t) {
        if (band == null) {
            // same B, R, P: the debt at any common instant grows with TAT, so the later TAT is the larger debt
            int c = Wide.of(a.tatHigh(), a.tatLow()).compareTo(Wide.of(b.tatHigh(), b.tatLow()));
            GcraState later = c >= 0 ? a : b;
            return later.lastNanos() == t ? later : new GcraState(t, later.tatHigh(), later.tatLow(),
                    later.capacity(), later.refillTokens(), later.refillPeriodNanos());
        }
        Wide debt = Wide.max(Gcra.debtAt(a, band, t), Gcra.debtAt(b, band, t));
        return Gcra.withDebt(t, debt, band);
    }

    private static FixedWindowState fixedWindow(FixedWindowState a, FixedWindowState b, long t) {
        long w = a.windowNanos();
        long window = Math.floorDiv(t, w);
        long countA = Math.floorDiv(a.lastNanos(), w) == window ? a.count() : 0;
        long countB = Math.floorDiv(b.lastNanos(), w) == window ? b.count() : 0;
        return new FixedWindowState(t, Math.max(countA, countB), w);
    }

    private static SlidingWindowCounterState slidingWindowCounter(SlidingWindowCounterState a,
                                                                  SlidingWindowCounterState b, long t) {
        long w = a.windowNanos();
        long window = Math.floorDiv(t, w);
        long[] x = countsIn(a, window);
        long[] y = countsIn(b, window);
        return new SlidingWindowCounterState(t, Math.max(x[0], y[0]), Math.max(x[1], y[1]), w);
    }

    /** {current, previous} of {@code s} as seen from window {@code window} (not before the state's own window). */
    private static long[] countsIn(SlidingWindowCounterState s, long window) {
        long gap = window - Math.floorDiv(s.lastNanos(), s.windowNanos());
        if (gap == 0) {
            return new long[] {s.currentCount(), s.previousCount()};
        }
        return new long[] {0, gap == 1 ? s.currentCount() : 0};
    }

    private static SlidingWindowLogState slidingWindowLog(SlidingWindowLogState a, SlidingWindowLogState b,
                                                          long limit, long t) {
        long w = a.windowNanos();
        boolean prune = t >= Long.MIN_VALUE + w; // else no entry can be older than the horizon
        long horizon = prune ? t - w : Long.MIN_VALUE;
        long[] an = a.entryNanos;
        int[] ac = a.entryCosts;
        long[] bn = b.entryNanos;
        int[] bc = b.entryCosts;
        long[] nanos = new long[an.length + bn.length];
        int[] costs = new int[an.length + bn.length];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < an.length || j < bn.length) {
            long s;
            int c;
            if (j >= bn.length || (i < an.length && an[i] < bn[j])) {
                s = an[i];
                c = ac[i++];
            } else if (i >= an.length || bn[j] < an[i]) {
                s = bn[j];
                c = bc[j++];
            } else { // the same entry time on both sides: one entry, the larger cost
                s = an[i];
                c = Math.max(ac[i++], bc[j++]);
            }
            if (s >= horizon) {
                nanos[n] = s;
                costs[n++] = c;
            }
        }
        // keep the newest entries up to a total cost of `limit`, trimming the oldest kept one
        long sum = 0;
        int first = n;
        while (first > 0 && sum < limit) {
            first--;
            long room = limit - sum;
            if (costs[first] > room) {
                costs[first] = (int) room;
            }
            sum += costs[first];
        }
        return new SlidingWindowLogState(t, w, Arrays.copyOfRange(nanos, first, n),
                Arrays.copyOfRange(costs, first, n), false);
    }
}
