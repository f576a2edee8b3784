package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.internal.Wide;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The conservative carry-over of a key's state across a policy change of period, window or algorithm
 * (docs/SPEC.md §4). A pure function of its arguments: no clock is read, nothing is stored. Thread-safe
 * (stateless).
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>When.</b> A band whose stored state its algorithm reads ({@link MergeStates#fits}: same algorithm and
 *   refill period or window) needs nothing here: the band algorithm applies SPEC §4's same-shape rules (tokens
 *   clamped to the new capacity, counts kept against the new limit, the time since the last write credited at
 *   the new rate). A band whose stored state it would ignore is carried over from the band of the same name of the
 *   newest earlier policy that reads that state. A band without a stored state stays fresh, unless stored band
 *   states are left that no band of the new policy reads by name (a band renamed or removed, a single-band policy
 *   made composite or the reverse, an override or plan deciding with another policy's bands): then it starts with
 *   the smallest share those states leave (each read as below), so renaming bands never starts a key fresh.</li>
 *   <li><b>Formula.</b> With {@code Q} a band's quota (capacity for buckets, limit for windows), the old band's
 *   {@code remaining} read at {@code t} exactly as a decision at {@code t} would report it (SPEC §3: refill, window
 *   roll-over, log pruning, clock step back), the new band starts at {@code t} with
 *   {@code remaining' = floor(remaining · Q' / Q)}, i.e. {@code used' = Q' − remaining'}: the share of the quota
 *   left never grows, so a change never admits more than the old share allowed (rounding takes from the
 *   caller).</li>
 *   <li><b>New state per algorithm</b>, at {@code t}: token bucket {@code remaining'} whole tokens, no fraction;
 *   GCRA a TAT of {@code t + used'·T} (debt {@code used'·P}); fixed window a count of {@code used'} in the window of
 *   {@code t}; calendar band a count of {@code used'} in the period of {@code t}; sliding window counter a current
 *   count of {@code used'}, previous 0; sliding window log one entry of cost {@code used'} at {@code t}.
 *   {@code used' = 0} is no state at all (fresh).</li>
 *   <li><b>Unknown writer.</b> A stored band state that no given earlier policy reads (the state was written by a
 *   version this member never saw) is carried as fully consumed: {@code used' = Q'}. That under-admits until the
 *   new band refills or its window passes, and never over-admits (SPEC §4).</li>
 *   <li><b>Overflow.</b> {@code remaining · Q'} reaches 10^30: an exact 128-bit product ({@link Wide}); the quotient
 *   is at most {@code Q'}.</li>
 * </ol>
 * Sources: docs/SPEC.md §3-4.
 */
public final class CarryOver {
    private CarryOver() {
    }

    /**
     * Tells whether a stored state holds a band that {@code to} would ignore (another algorithm, refill period or
     * window), so that {@link #carry} would change it.
     *
     * @param stored the stored state, or null
     * @param to the policy about to decide
     * @return true when {@link #carry} is needed
     * @throws NullPointerException if {@code to} is null
     */
    public static boolean needed(LimiterState stored, Policy to) {
        Objects.requireNonNull(to, "to");
        if (stored instanceof ReservedState r) {
            return needed(r.inner(), to);
        }
        if (stored == null) {
            return false;
        }
        boolean unread = false;
        for (Band band : to.bands()) {
            LimiterState s = Composite.bandState(stored, to, band);
            if (s != null && !MergeStates.fits(s, band)) {
                return true;
            }
            unread |= s == null;
        }
        return unread && !orphans(stored, to).isEmpty();
    }

    /**
     * The stored band states that no band of {@code to} reads by name (a band renamed or removed, a single-band
     * state under a composite policy or the reverse), by their names.
     */
    private static java.util.Map<String, LimiterState> orphans(LimiterState stored, Policy to) {
        java.util.Map<String, LimiterState> out = new java.util.LinkedHashMap<>();
        if (stored instanceof CompositeState c) {
            c.bands().forEach(out::put);
        } else {
            out.put(to.name(), stored); // a single band is named after its policy
        }
        for (Band band : to.bands()) {
            if (Composite.bandState(stored, to, band) != null) {
                out.remove(stored instanceof CompositeState ? band.name() : to.name());
            }
        }
        return out;
    }

    /**
     * Carries a stored state over to {@code to} (see the class note).
     *
     * @param stored the stored state, or null
     * @param earlier the earlier policies of the same name that may have written it, newest first (may be empty)
     * @param to the policy about to decide
     * @param nowNanos the reading, epoch nanoseconds
     * @return {@code stored} itself when nothing needs carrying; else a state that {@code to} reads in every band
     *     (null when every band is fresh)
     * @throws NullPointerException if {@code earlier} or {@code to} is null
     */
    public static LimiterState carry(LimiterState stored, List<Policy> earlier, Policy to, long nowNanos) {
        Objects.requireNonNull(earlier, "earlier");
        if (!needed(stored, to)) {
            return stored;
        }
        if (stored instanceof ReservedState r) {
            // the limiter state inside is carried; the reservations stay settleable against it (SPEC §10, §4).
            // When every band carries over fresh, the reservations go with it: their cost stands (never given back).
            LimiterState inner = carry(r.inner(), earlier, to, nowNanos);
            return inner == null ? null : r.withInner(inner);
        }
        List<String> names = new ArrayList<>();
        List<LimiterState> states = new ArrayList<>();
        java.util.Map<String, LimiterState> orphans = orphans(stored, to);
        for (Band band : to.bands()) {
            LimiterState s = Composite.bandState(stored, to, band);
            LimiterState next = s == null ? carryOrphans(orphans, earlier, band, nowNanos)
                    : MergeStates.fits(s, band) ? s : carryBand(s, earlier, band, nowNanos);
            if (next != null) {
                names.add(band.name());
                states.add(next);
            }
        }
        if (!to.isComposite()) {
            return states.isEmpty() ? null : states.get(0);
        }
        return states.isEmpty() ? null : new CompositeState(nowNanos, names.toArray(new String[0]),
                states.toArray(new LimiterState[0]), false);
    }

    /**
     * The time after {@code nowNanos} at which a state equals a fresh one under {@code policy}: the TTL a carried
     * state is written with (SPEC §8).
     *
     * @param state a state {@code policy} reads in every band, or null
     * @param policy the policy
     * @param nowNanos the reading, epoch nanoseconds
     * @return nanoseconds, >= 0, saturating
     */
    public static long nanosUntilFresh(LimiterState state, Policy policy, long nowNanos) {
        long ttl = 0;
        if (state == null) {
            return 0;
        }
        if (state instanceof ReservedState r) {
            long holdNanos = r.holdUntilNanos() - nowNanos;
            return Math.max(Math.max(0, holdNanos), nanosUntilFresh(r.inner(), policy, nowNanos));
        }
        for (Band band : policy.bands()) {
            ttl = Math.max(ttl, Composite.nanosUntilFresh(Composite.bandState(state, policy, band), band, nowNanos));
        }
        return ttl;
    }

    /** A band state another period, window or algorithm wrote, carried to {@code band}. */
    private static LimiterState carryBand(LimiterState s, List<Policy> earlier, Band band, long nowNanos) {
        return carried(leftOf(s, band.name(), earlier, band, nowNanos), band.quota(), band, nowNanos);
    }

    /**
     * A band that no stored state names while other stored bands are read by no band of the new policy (renamed or
     * removed; single-band to composite or back): it starts with the smallest share any of those states leaves, so
     * a change that swaps band names never starts the key fresh (SPEC §4). Null when there are none, or they leave
     * the whole quota.
     */
    private static LimiterState carryOrphans(java.util.Map<String, LimiterState> orphans, List<Policy> earlier,
                                             Band band, long nowNanos) {
        if (orphans.isEmpty()) {
            return null;
        }
        long left = band.quota();
        for (java.util.Map.Entry<String, LimiterState> o : orphans.entrySet()) {
            left = Math.min(left, leftOf(o.getValue(), o.getKey(), earlier, band, nowNanos));
        }
        return carried(left, band.quota(), band, nowNanos);
    }

    /** {@code floor(remaining·Q'/Q)}: the new band's share of a stored band state named {@code name}. */
    private static long leftOf(LimiterState s, String name, List<Policy> earlier, Band band, long nowNanos) {
        for (Policy p : earlier) {
            for (Band old : p.bands()) {
                if (old.name().equals(name) && MergeStates.fits(s, old)) {
                    return Math.min(band.quota(), Wide.product(remainingAt(s, old, nowNanos), band.quota())
                            .floorDiv(old.quota()).longValueExact());
                }
            }
        }
        return 0; // an unknown writer: fully consumed
    }

    /**
     * The remaining quota a decision at {@code nowNanos} would report for {@code s} under {@code band}, read
     * through a request it can never admit (so nothing is consumed).
     *
     * @param s a band state {@code band} reads
     * @param band the band
     * @param nowNanos the reading
     * @return remaining, in [0, quota]
     */
    static long remainingAt(LimiterState s, Band band, long nowNanos) {
        return Composite.decideBand(s, band, band.quota() + 1, nowNanos).remaining;
    }

    /** The state under {@code band} at {@code nowNanos} with {@code floor(remaining·Q'/Q)} left; null when full. */
    static LimiterState carried(long remaining, long quota, Band band, long nowNanos) {
        long newQuota = band.quota();
        long left = Math.min(newQuota, Wide.product(remaining, newQuota).floorDiv(quota).longValueExact());
        long used = newQuota - left;
        if (used == 0) {
            return null;
        }
        return switch (band.algorithm()) {
            case TOKEN_BUCKET -> new TokenBucketState(nowNanos, left, 0, band.refillPeriodNanos());
            case GCRA -> Gcra.withDebt(nowNanos, Wide.product(used, band.refillPeriodNanos()), band);
            case FIXED_WINDOW -> new FixedWindowState(nowNanos, used, band.windowNanos());
            case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounterState(nowNanos, used, 0, band.windowNanos());
            case SLIDING_WINDOW_LOG -> new SlidingWindowLogState(nowNanos, band.windowNanos(), new long[] {nowNanos},
                    new int[] {(int) used}, false);
            case CALENDAR -> {
                io.gridlimit.calendar.CalendarSpan period = band.calendar().span(nowNanos);
                yield new CalendarState(nowNanos, period.localStartSeconds(), period.startNanos(), period.endNanos(),
                        period.endNanos(), used, 0, band.calendar().id());
            }
        };
    }
}
