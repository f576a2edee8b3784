package io.gridlimit.grid.lease;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One grant: units the owner leased to this replica (docs/SPEC.md §13), with their local accounting: the units
 * taken and given back, the decisions and reservations answered from it, and the settles of those reservations
 * into it. A local reservation's mac is the grant's token (8 bytes) then its sequence number (8 bytes). Guarded by
 * its entry's lock ({@link #owner}).
 */
final class HeldGrant {
    final LeaseEntry owner;
    final Policy policy;
    final long policyVersion;
    final Reservation lease;
    final long token;
    final long granted;
    final long askedTicks;
    final long spendUntilTicks;
    final long limit;
    final long resetAfterNanos;
    final String band;
    final long ownerEndNanos;
    long left;
    long used;
    long nextSub;
    boolean closed;
    /** Admissions from this grant handed to their caller's executor and not yet delivered (or undone). */
    int pending;
    long retiredTicks;
    /** The units used when the grant was closed with a lease request. */
    long closedUsed;
    /** Settled local reservations: sequence number to actual cost. */
    Map<Long, Long> settledSubs;

    HeldGrant(LeaseEntry owner, Policy policy, long policyVersion, Decision grant, long token, long granted,
              long askedTicks, long spendUntilTicks, long ownerEndNanos) {
        this.owner = owner;
        this.policy = policy;
        this.policyVersion = policyVersion;
        this.lease = grant.reservation();
        this.token = token;
        this.granted = granted;
        this.left = granted;
        this.askedTicks = askedTicks;
        this.spendUntilTicks = spendUntilTicks;
        this.limit = grant.limit();
        this.resetAfterNanos = grant.resetAfterNanos();
        this.band = grant.band();
        this.ownerEndNanos = ownerEndNanos;
    }

    /** Takes {@code cost} units from the grant; under the entry's lock. */
    void take(long cost) {
        left -= cost;
        used += cost;
    }

    /** Ends spending and local settles at {@code nowTicks}; under the entry's lock. */
    void retire(long nowTicks) {
        closed = true;
        retiredTicks = nowTicks;
    }

    /** Returns the units of a decision taken from this grant whose caller gave up, while it is open. */
    void undo(long cost) {
        synchronized (owner) {
            if (!closed) {
                left += cost;
                used -= cost;
                respend();
            }
        }
    }

    /** A used-up grant that got units back is spent again while its entry has room; under the entry's lock. */
    void respend() {
        LeaseEntry e = owner;
        if (left > 0 && e.grants.size() < LeaseEntry.MAX_GRANTS_PER_KEY && e.spent.remove(this)) {
            e.grants.add(this);
        }
    }

    /**
     * The decision of {@code cost} taken from this grant (SPEC §13, "Decisions from a lease"); with {@code reserve},
     * a local reservation carrying the next sequence number. Under the entry's lock.
     */
    Decision leased(long cost, long nowTicks, boolean reserve) {
        long resetAfter = Math.max(0, resetAfterNanos - (nowTicks - askedTicks));
        Decision d = new Decision(true, limit, Math.min(left, limit), resetAfter, Decision.NO_RETRY, band)
                .withPolicyVersion(lease == null ? 0 : policyVersion);
        if (!reserve) {
            return d;
        }
        long seq = nextSub++;
        byte[] mac = new byte[Reservation.MAC_BYTES];
        for (int i = 0; i < 8; i++) {
            mac[i] = (byte) (token >>> (56 - 8 * i));
            mac[8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        Reservation r = new Reservation(lease.policy(), lease.key(), lease.stateId(), lease.id(),
                lease.reservedAtNanos(), Math.max(lease.reservedAtNanos(), ownerEndNanos), cost,
                lease.bands(), mac);
        return d.withReservation(r);
    }

    /** @return the 8 bytes of {@code mac} from {@code from} as a long, big-endian */
    static long longAt(byte[] mac, int from) {
        long value = 0;
        for (int i = from; i < from + 8; i++) {
            value = (value << 8) | (mac[i] & 0xff);
        }
        return value;
    }

    /** @return whether {@code r} names this grant's lease (the token matched already) */
    boolean holds(Reservation r) {
        return lease.stateId() == r.stateId() && lease.id() == r.id();
    }

    /**
     * Settles a local reservation into this grant: what was not used goes back, a charge takes from it; once per
     * reservation; {@link Settlement.Status#EXPIRED} once the grant is closed, the reserved cost standing. A charge
     * beyond the units left ends the grant (retired, out of its entry): the caller then settles its lease on the
     * owner to {@link #used}.
     *
     * @return the settlement, or null when the grant ended for a charge beyond it
     */
    Settlement settleLocal(Reservation reservation, long actual, LeaseCounters counters, LongSupplier ticker) {
        long seq = longAt(reservation.mac(), 8);
        synchronized (owner) {
            if (closed) {
                counters.lateLocalSettles.increment();
                return new Settlement(Settlement.Status.EXPIRED, reservation.cost(), 0, false);
            }
            if (settledSubs == null) {
                settledSubs = new HashMap<>();
            }
            Long before = settledSubs.get(seq);
            if (before != null) {
                return new Settlement(Settlement.Status.ALREADY_SETTLED, before, 0, false);
            }
            settledSubs.put(seq, actual);
            counters.localSettles.increment();
            long c = reservation.cost();
            if (actual <= c) {
                left += c - actual;
                used -= c - actual;
                respend();
                return new Settlement(Settlement.Status.SETTLED, actual, 0, false);
            }
            long extra = actual - c;
            if (extra <= left) {
                take(extra);
                return new Settlement(Settlement.Status.SETTLED, actual, 0, false);
            }
            // more than the grant holds: the grant ends now and its lease is settled on the owner to every unit used
            // with this charge, so the owner charges the rest at once (a debt up to max-debt, SPEC §10), never later
            used = Math.min(Band.MAX_QUANTITY, used + extra);
            left = 0;
            owner.grants.remove(this);
            owner.spent.remove(this);
            retire(ticker.getAsLong());
            return null;
        }
    }
}
