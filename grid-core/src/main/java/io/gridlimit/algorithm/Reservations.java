package io.gridlimit.algorithm;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.internal.Saturating;
import io.gridlimit.internal.Wide;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Reservations and settles (docs/SPEC.md §10), as pure functions over the stored state like the decisions.
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>Reserve.</b> A decision taken as a reservation is the decision itself (SPEC §3-4); when admitted, the
 *   state becomes (or stays) a {@link ReservedState} around the limiter state, and the decision carries a
 *   {@link Reservation}: the state's id, the next id, the reading {@code t0}, the cost, the bands' shapes and an
 *   expiry {@code t0 + H}, signed with the state's secret. {@code H} is the longest band's hold: a token bucket
 *   or GCRA {@code ceil(C·P/R)} (the time to refill from empty: later, any give-back finds the bucket full); a
 *   fixed window until the end of {@code t0}'s window, a calendar band until the end of {@code t0}'s period; a
 *   sliding window counter until the end of the window after it; a log {@code W + 1} ns (the entry's life). The state's TTL is at least {@code H}, so it is held until the
 *   reservation expires.</li>
 *   <li><b>Settle</b> to {@code a} in [0, 10^15] at the reading {@code t}: unknown state id, wrong signature, an
 *   expiry at or before {@code t}, or an id already settled (or closed) change nothing and say so
 *   ({@link Settlement.Status}). Otherwise each band of the policy with the reservation's name, algorithm and
 *   period or window takes {@code a − c} as its algorithm says ({@link TokenBucket}, {@link Gcra},
 *   {@link FixedWindow}, {@link SlidingWindowLog}, {@link SlidingWindowCounter}: give back, or charge up to the
 *   band's maximum debt), the id is recorded as settled with {@code a}, and the state is written once with its
 *   TTL (the longest of the bands' time until fresh and of the reservations' hold). A retried settle finds the
 *   record and changes nothing; a give-back is never more than {@code c} per band.</li>
 *   <li><b>Records</b> are dropped once their reservation has expired; past
 *   {@link ReservedState#MAX_SETTLE_RECORDS} the oldest is dropped and its id and every id below it are closed
 *   (those reservations' reserved cost stands, which errs towards denying). A reservation's state id changes
 *   when its state is lost or has expired, so a settle never reaches a state it was not taken from.</li>
 *   <li><b>Decisions</b> on a reserved state decide on the limiter state inside and keep the bookkeeping; once
 *   every reservation has expired, the next write drops it.</li>
 * </ol>
 * Sources: docs/SPEC.md §10; RFC 2104 (HMAC) with SHA-256 (FIPS 180-4), truncated to 128 bits (RFC 2104 §5).
 */
final class Reservations {
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    });

    private static final long[] NONE = {};

    private Reservations() {
    }

    /** The longest band's hold (see the class note), nanoseconds, saturating. */
    static long holdNanos(Policy policy, long nowNanos) {
        long hold = 0;
        for (Band band : policy.bands()) {
            long h = switch (band.algorithm()) {
                case TOKEN_BUCKET, GCRA -> Wide.product(band.capacity(), band.refillPeriodNanos())
                        .ceilDiv(band.refillTokens()).saturatedLong();
                case FIXED_WINDOW -> band.windowNanos() - Math.floorMod(nowNanos, band.windowNanos());
                case SLIDING_WINDOW_COUNTER -> Saturating.add(band.windowNanos(),
                        band.windowNanos() - Math.floorMod(nowNanos, band.windowNanos()));
                case SLIDING_WINDOW_LOG -> band.windowNanos() + 1;
                case CALENDAR -> FixedWindow.calendarHoldNanos(band, nowNanos);
            };
            hold = Math.max(hold, h);
        }
        return hold;
    }

    /** Decides on the limiter state inside a reserved state, keeping its bookkeeping while a reservation holds. */
    static Outcome apply(LimiterState stored, Policy policy, long cost, long nowNanos) {
        if (!(stored instanceof ReservedState reserved)) {
            return Composite.apply(stored, policy, cost, nowNanos);
        }
        ReservedState r = seen(Leases.capped(reserved, policy, nowNanos), policy, nowNanos); // SPEC §13, §10
        Outcome inner = Composite.apply(r.inner(), policy, cost, nowNanos);
        if (!inner.write()) {
            return new Outcome(inner.decision(), false, stored, 0);
        }
        return rewrap(r, inner.decision(), inner.state(), inner.ttlNanos(), nowNanos);
    }

    /**
     * {@link RateLimitAlgorithms#hit}: the fixed window's hit ({@link FixedWindow#hit}) on the limiter state, inside
     * a reserved state when the key holds one (its reservations and their hold stay as they are).
     */
    static Outcome hit(LimiterState stored, Policy policy, long cost, long nowNanos) {
        Band band = policy.bands().get(0);
        ReservedState r = stored instanceof ReservedState reserved ? reserved : null;
        LimiterState limiter = r == null ? stored : r.inner();
        Outcome inner = FixedWindow.hit(Composite.bandState(limiter, policy, band), band, cost, nowNanos);
        if (!inner.write()) {
            return new Outcome(inner.decision(), false, stored, 0);
        }
        return r == null ? inner : rewrap(r, inner.decision(), inner.state(), inner.ttlNanos(), nowNanos);
    }

    /**
     * {@code r} having seen a full bucket band at {@code nowNanos} when one is (SPEC §10): a reservation taken before
     * that gives nothing back, since the exact limiter's bucket, full too, has lost what a give-back would return.
     */
    static ReservedState seen(ReservedState r, Policy policy, long nowNanos) {
        for (Band band : policy.bands()) {
            LimiterState s = Composite.bandState(r.inner(), policy, band);
            boolean full = switch (band.algorithm()) {
                case TOKEN_BUCKET, GCRA -> Composite.nanosUntilFresh(s, band, nowNanos) == 0;
                case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER, CALENDAR -> false;
            };
            if (full) {
                return r.seenFull(nowNanos);
            }
        }
        return r;
    }

    private static Outcome rewrap(ReservedState r, Decision d, LimiterState inner, long ttlNanos, long nowNanos) {
        if (r.holdUntilNanos() <= nowNanos) {
            return new Outcome(d, true, inner, ttlNanos); // every reservation has expired
        }
        return new Outcome(d, true, r.withInner(inner), Math.max(ttlNanos, r.holdUntilNanos() - nowNanos));
    }

    static Outcome reserve(LimiterState stored, Policy policy, String key, long cost, long nowNanos,
                           RandomGenerator random) {
        return reserve(stored, policy, key, cost, nowNanos, random, Long.MAX_VALUE);
    }

    /**
     * As {@link #reserve}, the reservation expiring at the earlier of its hold and {@code expiresAtMostNanos} (a
     * lease's reservation expires at the lease's end: a give-back after it would not be safe, SPEC §13).
     */
    static Outcome reserve(LimiterState stored, Policy policy, String key, long cost, long nowNanos,
                           RandomGenerator random, long expiresAtMostNanos) {
        Outcome o = apply(stored, policy, cost, nowNanos);
        if (!o.decision().allowed()) {
            return o;
        }
        ReservedState base = o.state() instanceof ReservedState r ? r : null;
        LimiterState inner = base == null ? o.state() : base.inner();
        long stateId;
        long secretHigh;
        long secretLow;
        long id;
        long[] ids = {};
        long[] expiries = {};
        long[] actuals = {};
        long closedBelow = 1;
        long holdUntil = Long.MIN_VALUE;
        if (base == null) {
            stateId = random.nextLong();
            secretHigh = random.nextLong();
            secretLow = random.nextLong();
            id = 1;
        } else {
            stateId = base.stateId();
            secretHigh = base.secretHigh();
            secretLow = base.secretLow();
            id = base.nextId();
            closedBelow = base.closedBelow();
            holdUntil = base.holdUntilNanos();
            int keep = 0;
            for (long e : base.settledExpiresAtNanos) {
                keep += e > nowNanos ? 1 : 0;
            }
            ids = new long[keep];
            expiries = new long[keep];
            actuals = new long[keep];
            for (int i = 0, j = 0; i < base.settledIds.length; i++) {
                if (base.settledExpiresAtNanos[i] > nowNanos) {
                    ids[j] = base.settledIds[i];
                    expiries[j] = base.settledExpiresAtNanos[i];
                    actuals[j++] = base.settledActuals[i];
                }
            }
        }
        long holdNanos = holdNanos(policy, nowNanos);
        long expiresAt = Math.min(expiresAtMostNanos, Saturating.add(nowNanos, holdNanos));
        ReservedState state = base == null
                ? new ReservedState(inner, stateId, secretHigh, secretLow, id + 1, expiresAt, closedBelow, ids,
                        expiries, actuals, NONE, NONE, NONE, NONE, NONE, Long.MIN_VALUE, Long.MIN_VALUE, false)
                : new ReservedState(inner, stateId, secretHigh, secretLow, id + 1, Math.max(holdUntil, expiresAt),
                        closedBelow, ids, expiries, actuals, base.leaseIds, base.leaseUnits, base.leaseEndsAtNanos,
                        base.leaseHolderHigh, base.leaseHolderLow,
                        // records expiring by now were dropped above: their reservations stay expired (SPEC §10)
                        Math.max(base.expiredThroughNanos(), nowNanos), base.lastFullNanos(), false);
        List<Reservation.BandShape> shapes = new ArrayList<>(policy.bands().size());
        for (Band band : policy.bands()) {
            shapes.add(Reservation.BandShape.of(band));
        }
        Reservation unsigned = new Reservation(policy.name(), key, stateId, id, nowNanos, expiresAt, cost, shapes,
                new byte[0]);
        Reservation signed = unsigned.withMac(mac(state, unsigned));
        long ttlNanos = Math.max(o.ttlNanos(), state.holdUntilNanos() - nowNanos);
        return new Outcome(o.decision().withReservation(signed), true, state, ttlNanos);
    }

    /** HMAC-SHA256 of the reservation's content under the state's secret, first 16 bytes. */
    static byte[] mac(ReservedState state, Reservation r) {
        byte[] secret = new byte[16];
        long hi = state.secretHigh();
        long lo = state.secretLow();
        for (int i = 0; i < 8; i++) {
            secret[i] = (byte) (hi >>> (56 - 8 * i));
            secret[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        return Arrays.copyOf(mac.doFinal(r.signedContent()), Reservation.MAC_BYTES);
    }

    static SettleOutcome settle(LimiterState stored, Policy policy, String key, Reservation r, long actual,
                                long nowNanos) {
        if (!(stored instanceof ReservedState s) || s.stateId() != r.stateId()) {
            return SettleOutcome.none(new Settlement(Settlement.Status.UNKNOWN, r.cost(), 0, false), stored);
        }
        if (!r.policy().equals(policy.name()) || !r.key().equals(key)
                || !MessageDigest.isEqual(mac(s, r), r.mac())) {
            return SettleOutcome.none(new Settlement(Settlement.Status.FORGED, r.cost(), 0, false), stored);
        }
        int at = Arrays.binarySearch(s.settledIds, r.id());
        if (at >= 0) {
            return SettleOutcome.none(new Settlement(Settlement.Status.ALREADY_SETTLED, s.settledActuals[at], 0, false),
                    stored);
        }
        if (r.expiresAtNanos() <= Math.max(nowNanos, s.expiredThroughNanos())) {
            // expired now, or before a clock step back (its settle record may be gone: never settled twice)
            return SettleOutcome.none(new Settlement(Settlement.Status.EXPIRED, r.cost(), 0, false), stored);
        }
        if (r.id() < s.closedBelow() || r.id() >= s.nextId()) {
            return SettleOutcome.none(new Settlement(Settlement.Status.UNKNOWN, r.cost(), 0, false), stored);
        }
        // units out on lease (SPEC §13): the bands at the reading under the open leases; a lease settled goes
        // first, so that its unused units come back; the cap of the leases still open is applied again after
        s = seen(Leases.capped(s, policy, nowNanos), policy, nowNanos);
        int lease = Leases.openLease(s, r.id());
        if (lease >= 0) {
            s = Leases.without(s, lease);
            if (actual == r.cost()) {
                // a lease used up: its record goes, nothing comes back, and no settle record is kept (a repeat finds
                // no open lease and settles a − c = 0, which changes nothing either)
                long ttlNanos = Math.max(0, s.holdUntilNanos() - nowNanos);
                for (Band band : policy.bands()) {
                    ttlNanos = Math.max(ttlNanos, Composite.nanosUntilFresh(Composite.bandState(s.inner(), policy,
                            band), band, nowNanos));
                }
                return new SettleOutcome(new Settlement(Settlement.Status.SETTLED, actual, 0, false), true, s,
                        ttlNanos);
            }
        }
        LimiterState inner = s.inner();
        long excess = 0;
        List<Band> bands = policy.bands();
        LimiterState[] after = new LimiterState[bands.size()];
        boolean changed = false;
        boolean debt = false;
        for (int i = 0; i < bands.size(); i++) {
            Band band = bands.get(i);
            LimiterState bandState = Composite.bandState(inner, policy, band);
            after[i] = bandState;
            if (actual == r.cost() || r.bands().stream().noneMatch(shape -> shape.matches(band))) {
                continue;
            }
            if (actual < r.cost() && r.reservedAtNanos() < s.lastFullNanos() && lease < 0
                    && (band.algorithm() == io.gridlimit.api.Algorithm.TOKEN_BUCKET
                    || band.algorithm() == io.gridlimit.api.Algorithm.GCRA)) {
                continue; // the bucket filled up since the reservation: nothing comes back (SPEC §10)
            }
            BandResult.Settle b = settleBand(bandState, band, r, actual, nowNanos);
            if (b.changed()) {
                after[i] = b.state();
                changed = true;
            }
            excess = Math.max(excess, b.excess());
            debt |= b.debt();
        }
        LimiterState newInner = inner;
        if (changed) {
            newInner = Composite.ofBands(policy, after, Math.max(nowNanos, inner.lastNanos()));
        }
        newInner = Leases.capInner(newInner, policy, Leases.out(s), nowNanos);
        ReservedState written = record(s, newInner, r, actual, nowNanos);
        long ttlNanos = Math.max(0, written.holdUntilNanos() - nowNanos);
        for (Band band : bands) {
            ttlNanos = Math.max(ttlNanos, Composite.nanosUntilFresh(Composite.bandState(newInner, policy, band), band,
                    nowNanos));
        }
        return new SettleOutcome(new Settlement(Settlement.Status.SETTLED, actual, excess, debt), true, written,
                ttlNanos);
    }

    private static BandResult.Settle settleBand(LimiterState bandState, Band band, Reservation r, long actual,
                                                long nowNanos) {
        long c = r.cost();
        long t0 = r.reservedAtNanos();
        return switch (band.algorithm()) {
            case TOKEN_BUCKET -> TokenBucket.settle(bandState, band, c, actual, nowNanos);
            case GCRA -> Gcra.settle(bandState, band, c, actual, nowNanos);
            case FIXED_WINDOW -> FixedWindow.settle(bandState, band, c, actual, t0, nowNanos);
            case SLIDING_WINDOW_LOG -> SlidingWindowLog.settle(bandState, band, c, actual, t0, nowNanos);
            case SLIDING_WINDOW_COUNTER -> SlidingWindowCounter.settle(bandState, band, c, actual, t0, nowNanos);
            case CALENDAR -> FixedWindow.settleCalendar(bandState, band, c, actual, t0, nowNanos);
        };
    }

    /** The bookkeeping with {@code r} recorded as settled with {@code actual}, expired records dropped, bounded. */
    private static ReservedState record(ReservedState s, LimiterState inner, Reservation r, long actual,
                                        long nowNanos) {
        int n = s.settledIds.length;
        long[] ids = new long[n + 1];
        long[] expiries = new long[n + 1];
        long[] actuals = new long[n + 1];
        int j = 0;
        boolean placed = false;
        for (int i = 0; i <= n; i++) {
            boolean takeNew = !placed && (i == n || s.settledIds[i] > r.id());
            if (takeNew) {
                ids[j] = r.id();
                expiries[j] = r.expiresAtNanos();
                actuals[j++] = actual;
                placed = true;
            }
            if (i < n && s.settledExpiresAtNanos[i] > nowNanos) {
                ids[j] = s.settledIds[i];
                expiries[j] = s.settledExpiresAtNanos[i];
                actuals[j++] = s.settledActuals[i];
            }
        }
        int from = 0;
        long closedBelow = s.closedBelow();
        while (j - from > ReservedState.MAX_SETTLE_RECORDS) {
            closedBelow = Math.max(closedBelow, ids[from] + 1);
            from++;
        }
        return new ReservedState(inner, s.stateId(), s.secretHigh(), s.secretLow(), s.nextId(), s.holdUntilNanos(),
                closedBelow, Arrays.copyOfRange(ids, from, j), Arrays.copyOfRange(expiries, from, j),
                Arrays.copyOfRange(actuals, from, j), s.leaseIds, s.leaseUnits, s.leaseEndsAtNanos,
                s.leaseHolderHigh, s.leaseHolderLow, Math.max(s.expiredThroughNanos(), nowNanos), s.lastFullNanos(),
                false);
    }

    /** Whether the state behaves as no state: no reservation can still be settled and the limiter state is fresh. */
    static boolean isFresh(LimiterState stored, Policy policy, long nowNanos) {
        if (stored instanceof ReservedState r) {
            return r.holdUntilNanos() <= nowNanos && Composite.isFresh(r.inner(), policy, nowNanos);
        }
        return Composite.isFresh(stored, policy, nowNanos);
    }

    /** The limiter state inside a reserved state, else the state itself. */
    static LimiterState unwrap(LimiterState stored) {
        return stored instanceof ReservedState r ? r.inner() : stored;
    }
}
