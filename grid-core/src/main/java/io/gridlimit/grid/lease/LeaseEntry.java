package io.gridlimit.grid.lease;

import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.owner.LeaseProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What this replica knows of one (policy, key) it tracks for quota leases (docs/SPEC.md §13): the units asked in
 * the last two sizing windows ("When"), its grants with units left and its used-up ones, the lease request in
 * flight ("One ask at a time") and the owner's last denial ("Denials"). Guarded by its own lock (but
 * {@link #denial}).
 */
final class LeaseEntry {
    /** Most grants one key holds at once with units left. */
    static final int MAX_GRANTS_PER_KEY = 4;
    /** Most grants one key keeps, used up ones waiting for their end included. */
    static final int MAX_KEPT_GRANTS_PER_KEY = 64;

    /** (policy name, key). */
    record Slot(String policy, String key) {
    }

    /** An owner's denial answered locally until {@code untilTicks}, for requests of at least {@code cost}. */
    record Denial(Decision decision, long cost, long atTicks, long untilTicks, Policy policy, long version) {
    }

    final Slot slot;
    long windowStartTicks;
    long unitsThisWindow;
    long unitsLastWindow;
    long lastUsedTicks;
    /** Grants with units left (at most {@link #MAX_GRANTS_PER_KEY}), scanned by each request. */
    final List<HeldGrant> grants = new ArrayList<>(2);
    /** Used-up grants waiting for their end (a reservation taken from one may still come back), swept. */
    final List<HeldGrant> spent = new ArrayList<>(2);
    CompletableFuture<Void> asking;
    /** The owner's last denial, read without the lock on the fast path; written under it. */
    volatile Denial denial;
    Policy policy;
    long policyVersion;
    /** Set by the sweep when it forgets the entry: a request that found it just before goes to the owner. */
    boolean forgotten;
    /** The grant the last local admission was taken from. */
    HeldGrant lastTaken;

    LeaseEntry(Slot slot, long nowTicks, long unitsBefore) {
        this.slot = slot;
        this.windowStartTicks = nowTicks;
        this.lastUsedTicks = nowTicks;
        this.unitsThisWindow = Math.max(0, unitsBefore);
    }

    /**
     * A request under another policy or catalog version than the entry's ends its grants into {@code ended} (to be
     * settled at once) and starts over (SPEC §13, "Policy change"); under the lock.
     */
    void follow(Policy p, long version, List<HeldGrant> ended) {
        if (policy != p && (policy == null || !policy.equals(p)) || policyVersion != version) {
            drainGrants(ended); // a policy change ends the grants (SPEC §13)
            denial = null;
            policy = p;
            policyVersion = version;
        }
    }

    /** Moves every grant, with units left or used up, into {@code into}; under the lock. */
    void drainGrants(List<HeldGrant> into) {
        into.addAll(grants);
        into.addAll(spent);
        grants.clear();
        spent.clear();
    }

    /** Counts {@code cost} into the current sizing window of {@code windowNanos}; under the lock. */
    void observe(long cost, long nowTicks, long windowNanos) {
        long sinceStart = nowTicks - windowStartTicks;
        if (sinceStart >= windowNanos) {
            unitsLastWindow = sinceStart < 2 * windowNanos ? unitsThisWindow : 0;
            unitsThisWindow = 0;
            windowStartTicks = nowTicks;
        }
        unitsThisWindow = Math.min(Band.MAX_QUANTITY, unitsThisWindow + cost);
        lastUsedTicks = nowTicks;
    }

    /** Whether a lease is worth asking for a request of {@code cost} and the entry has room for one more grant. */
    boolean wantsLease(long cost, long minUnits) {
        long seen = Math.max(unitsLastWindow, unitsThisWindow);
        return seen >= minUnits && seen >= 2 * cost && grants.size() < MAX_GRANTS_PER_KEY
                && grants.size() + spent.size() < MAX_KEPT_GRANTS_PER_KEY;
    }

    /** The units asked: the larger of the last and the current window's count, at least twice the cost, at most the share. */
    long askUnits(long cost, long shareUnits) {
        return Math.min(shareUnits, Math.max(2 * cost, Math.max(unitsLastWindow, unitsThisWindow)));
    }

    /** Whether the sweep may forget the entry: no grant, no ask, idle two windows, no denial holding; under the lock. */
    boolean idle(long nowTicks, long windowNanos) {
        return grants.isEmpty() && spent.isEmpty() && asking == null && nowTicks - lastUsedTicks > 2 * windowNanos
                && (denial == null || denial.untilTicks() - nowTicks <= 0);
    }

    /** A decision from a grant or from the last denial, or null; under the lock. */
    Decision takeLocal(long cost, long nowTicks, boolean reserve, LeaseCounters counters) {
        for (int i = grants.size() - 1; i >= 0; i--) {
            HeldGrant g = grants.get(i);
            if (g.left >= cost && nowTicks - g.spendUntilTicks < 0) {
                g.take(cost);
                counters.leased.increment();
                lastTaken = g;
                if (g.left == 0) {
                    grants.remove(i);
                    spent.add(g);
                }
                return g.leased(cost, nowTicks, reserve);
            }
        }
        return localDenial(denial, cost, nowTicks, counters);
    }

    /** The answer from the owner's last denial while it holds for this cost, else null. */
    static Decision localDenial(Denial denial, long cost, long nowTicks, LeaseCounters counters) {
        if (denial != null && cost >= denial.cost() && denial.untilTicks() - nowTicks > 0) {
            counters.deniedLocally.increment();
            Decision d = denial.decision();
            long elapsed = nowTicks - denial.atTicks();
            // the owner's retryAfter less the time since it was asked: never before the owner's own retry time
            return new Decision(false, d.limit(), 0, Math.max(0, d.resetAfterNanos() - elapsed),
                    Math.max(1, d.retryAfterNanos() - elapsed), d.band()).withPolicyVersion(d.policyVersion());
        }
        return null;
    }

    /** Remembers an owner's denial that can pass, held at most {@code maxLifeNanos}, for {@link #takeLocal}; under the lock. */
    void noteDenial(Decision d, long cost, long askedTicks, long maxLifeNanos) {
        if (!d.allowed() && d.retryAfterNanos() > 0) {
            long holdNanos = Math.min(d.retryAfterNanos(), maxLifeNanos);
            denial = new Denial(d, cost, askedTicks, askedTicks + holdNanos, policy, policyVersion);
        }
    }

    /**
     * Closes the entry's used-up grants (no unit left) to be settled with the next lease request: on the owner their
     * units then stop counting as out on lease, so the bucket refills behind them (SPEC §13). A reservation taken
     * from one that comes back later answers {@code EXPIRED}, its cost standing. Under the lock.
     *
     * @return the grants closed, at most {@link LeaseProcessor#MAX_CLOSES}
     */
    List<HeldGrant> closeSpent(long nowTicks, GrantRegistry registry) {
        List<HeldGrant> out = new ArrayList<>(spent.size());
        for (int i = spent.size() - 1; i >= 0 && out.size() < LeaseProcessor.MAX_CLOSES; i--) {
            HeldGrant g = spent.get(i);
            if (g.left == 0 && !g.closed && g.pending == 0) { // a pending admission may still come back: not yet
                spent.remove(i);
                g.retire(nowTicks);
                g.closedUsed = g.used;
                if (g.nextSub == 0) {
                    registry.remove(g);
                }
                out.add(g);
            }
        }
        return out;
    }

    /** Grants of {@code list} past their spend time leave it for {@code ended}; the caller settles them unlocked. */
    static void retireEnded(List<HeldGrant> list, long nowTicks, List<HeldGrant> ended) {
        for (int i = list.size() - 1; i >= 0; i--) {
            HeldGrant g = list.get(i);
            if (nowTicks - g.spendUntilTicks >= 0) {
                list.remove(i);
                ended.add(g);
            }
        }
    }
}
