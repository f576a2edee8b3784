package io.gridlimit.algorithm;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.internal.Saturating;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Quota leases on the owner (docs/SPEC.md §13), as pure functions over the stored state like the decisions.
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Grant.</b> A replica asks for {@code u} units with the cost {@code c} of the request in hand
 *   ({@code c <= u}). The owner finds {@code a}, the least whole tokens of the policy's bands at the reading
 *   {@code t} (after the cap below), and grants {@code g = min(u, a)} when {@code g >= c}: the grant is a
 *   reservation of {@code g} ({@link Reservations}: consumed now, every band, signed handle) recorded as an open
 *   lease {@code (id, g, end = t + min(D, H), holder)}, {@code D} the asked duration and {@code H} the
 *   reservation's hold. When {@code a < c} the request is decided as without a lease (a denial with its
 *   retryAfter); when the policy has a band that is not a token bucket or GCRA, or the key has
 *   {@link ReservedState#MAX_LEASES} open leases, it is decided (or reserved) as without a lease and nothing is
 *   granted.</li>
 *   <li><b>Cap.</b> While units {@code n} are out on open leases, the bands treat them as consumed and not
 *   refillable: a token bucket holds at most {@code C − n} tokens ({@link TokenBucket#capAt}), a GCRA keeps
 *   {@code TAT >= t + n·T} ({@link Gcra#capAt}). So a full bucket cannot refill behind a lease: with {@code u}
 *   units unused on the holders, {@code tokens + u <= C} at every instant, and the holders' admissions and the
 *   owner's together are admissions of one exact bucket of capacity {@code C} (never above the limit).</li>
 *   <li><b>End.</b> The cap is applied in order of the leases' ends: at each end {@code e <= t} the bands are
 *   brought to {@code e} under the units out until then and the lease's record dropped; then the cap of the
 *   leases still open is applied at {@code t}. A lease the holder never gave back ends so: its units stay
 *   consumed (the holder may have spent them), the cap lifts, refill resumes. Applying the cap is idempotent, so
 *   a plain denial writes nothing and the next reading recomputes the same.</li>
 *   <li><b>Give-back.</b> The holder settles the lease's reservation to the units it used ({@link Reservations}
 *   settle): the lease's record goes first, then the unused units come back (a token bucket
 *   {@code min(C, W + g − used)}, a GCRA TAT moved back), and the cap of the leases still open is applied again.
 *   It never gives back more than {@code g}, and only once. The lease's reservation expires at the lease's end,
 *   so a settle after it changes nothing ({@code expired}): while the lease is open the cap keeps
 *   {@code tokens + u <= C}, so returning {@code u} is exact; once it has ended the bucket may have filled up
 *   and been drawn on since, and returning {@code u} then would give more than the exact limiter has (a jqwik
 *   counterexample: 2 tokens left, 12 unused returned after the end, 14 where the exact limiter has 13).</li>
 *   <li><b>Clock.</b> Ends are owner time. A step back holds the cap longer (errs towards denying), but a lease
 *   whose record a reading at or after its end dropped stays ended: the state's
 *   {@link ReservedState#expiredThroughNanos()} moves up to that end, so its reservation answers {@code expired}
 *   at any later reading, before the end too, and its units stay consumed (a step back frees nothing). A step
 *   forward past an end lifts the cap early: the holder, which counts the lease's life from before it asked on its
 *   own monotonic clock, may still spend its unused units (at most {@code g}, at most {@code D}) while the owner
 *   refills, as a forward step refills any bucket (SPEC §2).</li>
 *   <li><b>Policy change.</b> Open leases stay on the state carried over ({@link CarryOver}); the cap applies to
 *   the new policy's token-bucket and GCRA bands with their new capacity.</li>
 * </ol>
 * Sources: docs/SPEC.md §3, §10, §13.
 */
final class Leases {
    private Leases() {
    }

    /**
     * Whether a policy's keys can be leased: every band a token bucket or GCRA.
     *
     * @param policy the policy
     * @return true when leases apply
     */
    static boolean leasable(Policy policy) {
        for (Band band : policy.bands()) {
            boolean leasable = switch (band.algorithm()) {
                case TOKEN_BUCKET, GCRA -> true;
                // a window would need the lease to end at its boundary on every member's clock (SPEC §13)
                case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER, CALENDAR -> false;
            };
            if (!leasable) {
                return false;
            }
        }
        return true;
    }

    /**
     * The state with the leases that ended by {@code nowNanos} lifted in order and the cap of those still open
     * applied at {@code nowNanos}; {@code r} itself when it has no lease.
     */
    static ReservedState capped(ReservedState r, Policy policy, long nowNanos) {
        int n = r.leaseIds.length;
        if (n == 0) {
            return r;
        }
        LimiterState inner = r.inner();
        int from = 0;
        long endedNanos = Long.MIN_VALUE;
        while (from < n && r.leaseEndsAtNanos[from] <= nowNanos) {
            long end = r.leaseEndsAtNanos[from];
            inner = capInner(inner, policy, unitsFrom(r, from), end);
            while (from < n && r.leaseEndsAtNanos[from] == end) {
                from++;
            }
            endedNanos = end;
        }
        inner = capInner(inner, policy, unitsFrom(r, from), nowNanos);
        if (from == 0 && inner == r.inner()) {
            return r;
        }
        ReservedState left = r.withLeases(inner, Arrays.copyOfRange(r.leaseIds, from, n),
                Arrays.copyOfRange(r.leaseUnits, from, n), Arrays.copyOfRange(r.leaseEndsAtNanos, from, n),
                Arrays.copyOfRange(r.leaseHolderHigh, from, n), Arrays.copyOfRange(r.leaseHolderLow, from, n));
        // an ended lease stays ended (SPEC §2, §13): its reservation expired at its end, and with its record gone a
        // reading stepped back before that end must not find it settleable again (its give-back would return units
        // the bucket may have refilled past and lent out since)
        return from == 0 ? left : left.expiredThrough(endedNanos);
    }

    /** The units out on the leases from index {@code from} on, saturating. */
    private static long unitsFrom(ReservedState r, int from) {
        long out = 0;
        for (int i = from; i < r.leaseUnits.length; i++) {
            out = Saturating.add(out, r.leaseUnits[i]);
        }
        return out;
    }

    /** Every token-bucket and GCRA band of {@code inner} under {@code out} units on lease at {@code atNanos}. */
    static LimiterState capInner(LimiterState inner, Policy policy, long out, long atNanos) {
        if (out == 0) {
            return inner;
        }
        List<Band> bands = policy.bands();
        LimiterState[] after = new LimiterState[bands.size()];
        boolean changed = false;
        for (int i = 0; i < bands.size(); i++) {
            Band band = bands.get(i);
            LimiterState s = Composite.bandState(inner, policy, band);
            LimiterState capped = switch (band.algorithm()) {
                case TOKEN_BUCKET -> TokenBucket.capAt(s, band, Math.min(out, Band.MAX_QUANTITY), atNanos);
                case GCRA -> Gcra.capAt(s, band, Math.min(out, Band.MAX_QUANTITY), atNanos);
                case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER, CALENDAR -> s;
            };
            after[i] = capped;
            changed |= capped != s;
        }
        if (!changed) {
            return inner;
        }
        // bands the policy no longer has are dropped here, as a decision's write drops them
        return Composite.ofBands(policy, after, inner == null ? atNanos : Math.max(atNanos, inner.lastNanos()));
    }

    /** The whole tokens the policy's bands have at the reading: the least over its bands. */
    private static long available(LimiterState inner, Policy policy, long nowNanos) {
        long least = Long.MAX_VALUE;
        for (Band band : policy.bands()) {
            LimiterState s = Composite.bandState(inner, policy, band);
            long a = band.algorithm() == Algorithm.TOKEN_BUCKET ? TokenBucket.available(s, band, nowNanos)
                    : Gcra.available(s, band, nowNanos);
            least = Math.min(least, a);
        }
        return least;
    }

    /**
     * Grants a lease (see the class note) or decides the request as without one.
     *
     * @param stored the stored state, or null
     * @param policy the policy
     * @param key the key
     * @param cost the cost of the request in hand, in [1, 10^15]
     * @param units the units asked, in [cost, 10^15]
     * @param durationNanos the lease's asked life, > 0
     * @param holderHigh the upper 64 bits of the holder's UUID
     * @param holderLow the lower 64 bits of the holder's UUID
     * @param reserve whether a request decided without a lease is taken as a reservation
     * @param nowNanos the reading, epoch nanoseconds
     * @param random the source of a new state's id and secret
     * @return the grant, never null
     * @throws IllegalArgumentException if a quantity is out of range
     * @throws NullPointerException if {@code policy}, {@code key} or {@code random} is null
     */
    static LeaseGrant grant(LimiterState stored, Policy policy, String key, long cost, long units,
                            long durationNanos, long holderHigh, long holderLow, boolean reserve, long nowNanos,
                            RandomGenerator random) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(random, "random");
        RateLimiter.checkCost(cost);
        RateLimiter.checkCost("units", units);
        if (units < cost || durationNanos <= 0) {
            throw new IllegalArgumentException("units " + units + " must be >= cost " + cost
                    + " and durationNanos " + durationNanos + " > 0");
        }
        ReservedState r = stored instanceof ReservedState rs ? capped(rs, policy, nowNanos) : null;
        if (!leasable(policy) || (r != null && r.leaseIds.length >= ReservedState.MAX_LEASES)) {
            return LeaseGrant.none(reserve ? Reservations.reserve(stored, policy, key, cost, nowNanos, random)
                    : Reservations.apply(stored, policy, cost, nowNanos));
        }
        LimiterState inner = r != null ? r.inner() : stored;
        long granted = Math.min(units, available(inner, policy, nowNanos));
        if (granted < cost) {
            return LeaseGrant.none(Reservations.apply(stored, policy, cost, nowNanos));
        }
        // the lease ends at the earlier of its asked life and the reservation's hold; its reservation expires then
        long endNanos = Saturating.add(nowNanos, Math.min(durationNanos,
                Math.max(1, Reservations.holdNanos(policy, nowNanos))));
        Outcome o = Reservations.reserve(r != null ? r : stored, policy, key, granted, nowNanos, random, endNanos);
        if (!o.decision().allowed() || !(o.state() instanceof ReservedState taken)) {
            // cannot happen: granted <= the least band's tokens; decided as without a lease all the same
            return LeaseGrant.none(Reservations.apply(stored, policy, cost, nowNanos));
        }
        int n = taken.leaseIds.length;
        int at = n;
        while (at > 0 && taken.leaseEndsAtNanos[at - 1] > endNanos) {
            at--;
        }
        ReservedState leased = taken.withLeases(taken.inner(),
                insert(taken.leaseIds, at, o.decision().reservation().id()), insert(taken.leaseUnits, at, granted),
                insert(taken.leaseEndsAtNanos, at, endNanos), insert(taken.leaseHolderHigh, at, holderHigh),
                insert(taken.leaseHolderLow, at, holderLow));
        return new LeaseGrant(new Outcome(o.decision(), true, leased, o.ttlNanos()), granted, endNanos);
    }

    private static long[] insert(long[] a, int at, long v) {
        long[] out = new long[a.length + 1];
        System.arraycopy(a, 0, out, 0, at);
        out[at] = v;
        System.arraycopy(a, at, out, at + 1, a.length - at);
        return out;
    }

    /** Whether {@code id} is an open lease of {@code r}; its index or -1. */
    static int openLease(ReservedState r, long id) {
        for (int i = 0; i < r.leaseIds.length; i++) {
            if (r.leaseIds[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /** {@code r} without its open lease at {@code index}. */
    static ReservedState without(ReservedState r, int index) {
        return r.withLeases(r.inner(), remove(r.leaseIds, index), remove(r.leaseUnits, index),
                remove(r.leaseEndsAtNanos, index), remove(r.leaseHolderHigh, index), remove(r.leaseHolderLow, index));
    }

    private static long[] remove(long[] a, int index) {
        long[] out = new long[a.length - 1];
        System.arraycopy(a, 0, out, 0, index);
        System.arraycopy(a, index + 1, out, index, a.length - index - 1);
        return out;
    }

    /** The units out on {@code r}'s open leases, saturating. */
    static long out(ReservedState r) {
        return unitsFrom(r, 0);
    }
}
