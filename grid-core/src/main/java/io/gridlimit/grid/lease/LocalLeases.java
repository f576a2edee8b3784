package io.gridlimit.grid.lease;

import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.lease.LeaseSettings;
import io.gridlimit.grid.lease.LeaseStats;
import io.gridlimit.grid.async.AsyncDecisions;
import io.gridlimit.grid.async.PolicyMaps;
import io.gridlimit.grid.wire.WireFormat;
import io.gridlimit.internal.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter}, which owns it when leases are on.
 *
 * <p>The holder's side of quota leases (docs/SPEC.md §13): decides the requests of busy keys in process from units the
 * owner granted, and hands everything else to {@link AsyncDecisions}.
 *
 * <h2>Design note</h2>
 * <ol>
 *   <li><b>When.</b> Per (policy, key) this replica counts the units asked in windows of
 *   {@link LeaseSettings#windowNanos()}: a key without an entry in a fixed table of counters by hash, and once
 *   its count reaches {@link LeaseSettings#minUnits()} in an entry of its own; a key takes a lease once a window
 *   held at least {@link LeaseSettings#minUnits()} and twice the request's cost, for a leasable policy (every band a token
 *   bucket or GCRA) whose least capacity ÷ {@link LeaseSettings#capacityShare()} is at least twice the cost. The
 *   units asked: the larger of the last and the current window's count, at most that share of the capacity.
 *   Other keys, and every key while {@link LeaseSettings#maxKeys()} keys are tracked, are decided by one
 *   EntryProcessor per request as without leases.</li>
 *   <li><b>Life.</b> The holder's clock is its monotonic ticker, read before the request is sent: a grant of
 *   owner life {@code L} (the owner's end less its reading) is spent until {@code asked + L − L/100 − 1 ms}, which
 *   is before the owner's end in real time since the owner read its clock after the request left. A used-up grant
 *   is closed with the key's next lease request (settled there to the units used, so its units stop capping the
 *   owner). Otherwise, at its spend time or when the limiter closes, the lease is settled to the units used
 *   (give-back of the rest), unless every unit was used and nothing was given back.</li>
 *   <li><b>One ask at a time.</b> While a lease request of a key is in flight, the key's other requests wait for
 *   it and are then taken from the grant, or decided on the owner (coalesced) when it is used up.</li>
 *   <li><b>Denials.</b> A denial from the owner with retryAfter {@code r} of a key with an entry is answered
 *   locally, for requests of at least that cost, until {@code asked + r} on the ticker (before the owner's own
 *   retry time), without taking the entry's lock: it errs only towards denying.</li>
 *   <li><b>Callers that give up.</b> A request whose caller cancelled its stage (a timeout) while it waited is
 *   never decided; an admission that finds its caller gone goes back into its grant (or, an owner reservation, is
 *   given back), so a timed-out request consumes nothing (SPEC §10).</li>
 *   <li><b>Decisions from a lease</b>: admitted, the owner's limit and band, {@code remaining} = the units left
 *   in the grant (at most the exact remaining, which also counts the owner's tokens), {@code resetAfter} = the
 *   grant's resetAfter less the time since it was asked (never less than the exact value: the owner counted every
 *   leased unit as consumed). A reservation taken from a lease ({@link #decide} with {@code reserve}) is settled
 *   or given back here, into the grant, while the grant is spent; after that it answers
 *   {@link Settlement.Status#EXPIRED} and its reserved cost stands. A charge beyond the units left is charged to
 *   the owner with the lease's settle.</li>
 *   <li><b>Policy change.</b> A request under another policy or catalog version than the grant's ends the grant
 *   (settled at once) and starts over.</li>
 * </ol>
 * Thread-safe: each tracked key has its own lock, held for a few field updates, never across a grid call.
 *
 * <p>The parts: {@link ColdCounters} (keys without an entry), {@link LeaseEntry} (a tracked key),
 * {@link HeldGrant} (a grant's local accounting), {@link GrantRegistry} (grants by token),
 * {@link LeaseRequests} (lease requests and their answers), {@link LeaseSettles} (give-backs and local settles),
 * {@link LeaseDelivery} (answers to callers that may have given up) and {@link LeaseSweeper} (the sweep's thread).
 */
public final class LocalLeases implements AutoCloseable {
    private final PolicyMaps maps;
    private final AsyncDecisions async;
    private final LeaseSettings settings;
    private final LongSupplier ticker;
    private final ConcurrentHashMap<LeaseEntry.Slot, LeaseEntry> entries = new ConcurrentHashMap<>();
    private final ColdCounters cold;
    private final GrantRegistry grants = new GrantRegistry();
    private final LeaseCounters counters = new LeaseCounters();
    private final LeaseSettles settles;
    private final LeaseRequests requests;
    private final LeaseSweeper sweeper;
    private volatile boolean closed;

    /**
     * @param maps the policy maps
     * @param async the asynchronous path, for everything not decided from a lease
     * @param settings the lease settings
     * @param holder this replica's Hazelcast UUID (recorded by owners)
     * @param ticker a monotonic nanosecond clock ({@code System::nanoTime}; a manual one in tests)
     * @param sweep whether a daemon thread retires ended grants every {@link LeaseSettings#windowNanos()} (tests
     *     call {@link #sweep()} instead)
     */
    public LocalLeases(PolicyMaps maps, AsyncDecisions async, LeaseSettings settings, UUID holder, LongSupplier ticker,
                boolean sweep) {
        this.maps = maps;
        this.async = async;
        this.settings = settings;
        this.ticker = ticker;
        this.cold = new ColdCounters(ticker.getAsLong(), settings.windowNanos());
        this.settles = new LeaseSettles(maps, async, grants, counters, ticker);
        this.requests = new LeaseRequests(maps, async, settings, ticker, holder, grants, counters, settles,
                () -> closed);
        this.sweeper = sweep ? new LeaseSweeper(this::sweep, settings.windowNanos()) : null;
    }

    /**
     * Decides one request: from a lease when the key has one, locally as denied while the owner's last denial
     * holds, with a new lease when the key is busy, else on the owner as without leases.
     *
     * @param policy the policy
     * @param key the key (checked)
     * @param cost the cost (checked)
     * @param executor where the stage completes, or null for the callback pool (a local answer is complete at once)
     * @param reserve whether an admission is taken as a reservation (settled through this limiter)
     * @return the stage of the decision
     */
    public CompletionStage<Decision> decide(Policy policy, String key, long cost, Executor executor, boolean reserve) {
        long shareUnits = shareUnits(policy);
        if (closed || !WireFormat.leases() || shareUnits < 2 * cost) {
            return remote(policy, key, cost, executor, reserve, null);
        }
        long nowTicks = ticker.getAsLong();
        LeaseEntry.Slot slot = new LeaseEntry.Slot(policy.name(), key);
        LeaseEntry found = entries.get(slot);
        long coldUnits = found == null ? cold.add(slot, cost, nowTicks) : 0;
        if (found == null && (coldUnits < settings.minUnits() || entries.size() >= settings.maxKeys())) {
            return remote(policy, key, cost, executor, reserve, null); // a cold key: no entry, no lease
        }
        // a key that just became busy starts with the units its counter saw before this request
        LeaseEntry e = found != null ? found
                : entries.computeIfAbsent(slot, s -> new LeaseEntry(s, nowTicks, coldUnits - cost));
        long version = maps.versionOf(policy);
        LeaseEntry.Denial denial = e.denial;
        if (denial != null && denial.policy() == policy && denial.version() == version) {
            Decision d = LeaseEntry.localDenial(denial, cost, nowTicks, counters); // the denial holds: no lock taken
            if (d != null) {
                return completed(d);
            }
        }
        Decision local;
        CompletableFuture<Void> wait = null;
        long askUnits = 0;
        List<HeldGrant> closing = null;
        List<HeldGrant> ended = new ArrayList<>(0);
        synchronized (e) {
            if (e.forgotten) {
                // forgotten by the sweep between the lookup and the lock: this one request goes to the owner
                return remote(policy, key, cost, executor, reserve, null);
            }
            e.follow(policy, version, ended);
            e.observe(cost, nowTicks, settings.windowNanos());
            LeaseEntry.retireEnded(e.grants, nowTicks, ended);
            local = e.takeLocal(cost, nowTicks, reserve, counters);
            if (local == null && e.asking != null) {
                wait = e.asking;
            } else if (local == null && e.wantsLease(cost, settings.minUnits())) {
                askUnits = e.askUnits(cost, shareUnits);
                e.asking = new CompletableFuture<>();
                closing = e.closeSpent(nowTicks, grants);
            }
        }
        settles.settleAll(ended);
        if (local != null) {
            return completed(local);
        }
        if (wait != null) {
            CompletableFuture<Decision> out = async.newStage();
            wait.whenComplete((v, f) -> {
                if (!out.isDone()) { // a caller that gave up meanwhile is never decided: it consumes nothing
                    afterWait(e, policy, key, cost, reserve, out, executor);
                }
            });
            return out;
        }
        if (askUnits > 0) {
            return requests.ask(e, policy, version, key, cost, askUnits, nowTicks, executor, reserve, closing);
        }
        return remote(policy, key, cost, executor, reserve, e);
    }

    /** After waiting for a lease request: from its grant, or locally denied, or on the owner; never asks again. */
    private void afterWait(LeaseEntry e, Policy policy, String key, long cost, boolean reserve,
                           CompletableFuture<Decision> out, Executor executor) {
        long nowTicks = ticker.getAsLong();
        Decision local;
        HeldGrant from = null;
        synchronized (e) {
            local = e.policy != null && e.policy.equals(policy) ? e.takeLocal(cost, nowTicks, reserve, counters)
                    : null;
            if (local != null && local.allowed()) {
                from = e.lastTaken;
            }
        }
        if (local != null) {
            HeldGrant g = from;
            LeaseDelivery.deliver(out, executor, local, null, g == null ? null : () -> g.undo(cost), g);
            return;
        }
        CompletableFuture<Decision> r = remote(policy, key, cost, null, reserve, e).toCompletableFuture();
        out.whenComplete((d, f) -> {
            if (out.isCancelled()) {
                r.cancel(false); // the limiter gives back an admission that arrives after this (SPEC §10)
            }
        });
        r.whenComplete((d, f) -> LeaseDelivery.deliver(out, executor, d, f == null ? null : Futures.unwrap(f),
                d != null && d.reservation() != null ? () -> async.giveBack(policy, d.reservation()) : null));
    }

    /** The units a lease of this policy may hold: the least capacity over its bands ÷ the share; 0 if not leasable. */
    private long shareUnits(Policy policy) {
        if (!RateLimitAlgorithms.leasable(policy)) {
            return 0;
        }
        long least = Long.MAX_VALUE;
        for (Band band : policy.bands()) {
            least = Math.min(least, band.capacity());
        }
        return least / settings.capacityShare();
    }

    /** On the owner, as without leases; a denial is remembered for the key when it is tracked. */
    private CompletionStage<Decision> remote(Policy policy, String key, long cost, Executor executor, boolean reserve,
                                             LeaseEntry tracked) {
        long askedTicks = ticker.getAsLong();
        CompletionStage<Decision> stage = reserve ? async.reserve(policy, key, cost, executor)
                : async.decide(policy, key, cost, executor);
        if (tracked != null) {
            // a side effect only: the caller keeps the limiter's own stage, so its cancellation reaches it (SPEC §10)
            stage.whenComplete((d, failure) -> {
                if (d != null && !d.allowed()) {
                    synchronized (tracked) {
                        if (policy.equals(tracked.policy)) {
                            tracked.noteDenial(d, cost, askedTicks, settings.maxLifeNanos());
                        }
                    }
                }
            });
        }
        return stage;
    }

    private CompletionStage<Decision> completed(Decision d) {
        CompletableFuture<Decision> stage = async.newStage();
        stage.complete(d);
        return stage;
    }

    /**
     * Settles a reservation taken from a lease into its grant ({@link LeaseSettles#settle}).
     *
     * @param reservation a reservation
     * @param actual the actual cost, checked
     * @return the settlement; null when the reservation was not taken from a lease of this limiter (the owner
     *     settles it)
     */
    public CompletionStage<Settlement> settle(Reservation reservation, long actual) {
        return settles.settle(reservation, actual);
    }

    /**
     * Retires every grant past its spend time and forgets keys idle for two windows without a grant.
     *
     * @return a stage completed when the give-backs sent answered (for tests)
     */
    public CompletableFuture<Void> sweep() {
        long nowTicks = ticker.getAsLong();
        List<HeldGrant> ended = new ArrayList<>();
        for (LeaseEntry e : entries.values()) {
            synchronized (e) {
                LeaseEntry.retireEnded(e.grants, nowTicks, ended);
                LeaseEntry.retireEnded(e.spent, nowTicks, ended);
                if (e.idle(nowTicks, settings.windowNanos())) {
                    e.forgotten = true;
                    entries.remove(e.slot, e);
                }
            }
        }
        grants.forgetRetired(nowTicks);
        return settles.settleAll(ended);
    }

    /** @return how many keys this replica tracks */
    int trackedKeys() {
        return entries.size();
    }

    /** Stops leasing and settles every grant (its unused units go back to the owners), waiting up to 1 s. */
    @Override
    public void close() {
        closed = true;
        if (sweeper != null) {
            sweeper.close();
        }
        List<HeldGrant> all = new ArrayList<>();
        for (LeaseEntry e : entries.values()) {
            synchronized (e) {
                e.drainGrants(all);
            }
        }
        try {
            settles.settleAll(all).get(1, TimeUnit.SECONDS); // before the callback pool stops
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the units not given back stay consumed until the leases end on their owners
        }
    }

    /** @return the counters as one value */
    public LeaseStats stats() {
        return counters.stats(entries.size());
    }
}
