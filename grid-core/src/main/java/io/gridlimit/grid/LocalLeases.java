package io.gridlimit.grid;

import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.internal.Futures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The holder's side of quota leases (docs/SPEC.md §13): decides the requests of busy keys in process from units the
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
 */
final class LocalLeases implements AutoCloseable {
    /** Counters of keys without an entry (a power of two). */
    static final int COLD_SLOTS = 1 << 16;
    /** Most grants one key holds at once with units left. */
    static final int MAX_GRANTS_PER_KEY = 4;
    /** Most grants one key keeps, used up ones waiting for their end included. */
    static final int MAX_KEPT_GRANTS_PER_KEY = 64;
    /**
     * How long a retired grant that handed out reservations still answers their settles ({@code EXPIRED}); later,
     * such a settle reaches the owner, which refuses it as not its own ({@code forged}): the reserved cost stands
     * either way.
     */
    static final long RETIRED_GRANT_MEMORY_NANOS = 10_000_000_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final PolicyMaps maps;
    private final AsyncDecisions async;
    private final LeaseSettings settings;
    private final LongSupplier ticker;
    private final long holderHigh;
    private final long holderLow;
    private final ConcurrentHashMap<Slot, Entry> entries = new ConcurrentHashMap<>();
    /** Counters of keys without an entry, {@link #busyEnough}: window number (upper 32 bits) and units (lower). */
    private final java.util.concurrent.atomic.AtomicLongArray cold =
            new java.util.concurrent.atomic.AtomicLongArray(COLD_SLOTS);
    private final long epochTicks;
    /** Grants by their token (the first 8 bytes of a local reservation's mac), open and recently retired. */
    private final ConcurrentHashMap<Long, Grant> grants = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;
    private final AtomicLong tokens = new AtomicLong(new java.security.SecureRandom().nextLong());
    private final LeaseCounters counters = new LeaseCounters();
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
    LocalLeases(PolicyMaps maps, AsyncDecisions async, LeaseSettings settings, UUID holder, LongSupplier ticker,
                boolean sweep) {
        this.maps = maps;
        this.async = async;
        this.settings = settings;
        this.ticker = ticker;
        this.epochTicks = ticker.getAsLong();
        this.holderHigh = holder.getMostSignificantBits();
        this.holderLow = holder.getLeastSignificantBits();
        if (sweep) {
            sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "gridlimit-leases");
                t.setDaemon(true);
                return t;
            });
            long periodNanos = Math.max(NANOS_PER_MILLI, settings.windowNanos());
            sweeper.scheduleWithFixedDelay(this::sweep, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        } else {
            sweeper = null;
        }
    }

    /** @return the counters of leased, asked and locally denied decisions */
    LeaseCounters counters() {
        return counters;
    }

    /** (policy name, key). */
    private record Slot(String policy, String key) {
    }

    /** One grant: units the owner leased to this replica. Guarded by its entry's lock. */
    private static final class Grant {
        final Entry owner;
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

        Grant(Entry owner, Policy policy, long policyVersion, Decision grant, long token, long granted,
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
    }

    /** An owner's denial answered locally until {@code untilTicks}, for requests of at least {@code cost}. */
    private record Denial(Decision decision, long cost, long atTicks, long untilTicks, Policy policy, long version) {
    }

    /** What this replica knows of one (policy, key). Guarded by its own lock (but {@link #denial}). */
    private static final class Entry {
        final Slot slot;
        long windowStartTicks;
        long unitsThisWindow;
        long unitsLastWindow;
        long lastUsedTicks;
        /** Grants with units left (at most {@link #MAX_GRANTS_PER_KEY}), scanned by each request. */
        final List<Grant> grants = new ArrayList<>(2);
        /** Used-up grants waiting for their end (a reservation taken from one may still come back), swept. */
        final List<Grant> spent = new ArrayList<>(2);
        CompletableFuture<Void> asking;
        /** The owner's last denial, read without the lock on the fast path; written under it. */
        volatile Denial denial;
        Policy policy;
        long policyVersion;
        /** Set by the sweep when it forgets the entry: a request that found it just before goes to the owner. */
        boolean forgotten;
        /** The grant the last local admission was taken from. */
        Grant lastTaken;

        Entry(Slot slot, long nowTicks, long unitsBefore) {
            this.slot = slot;
            this.windowStartTicks = nowTicks;
            this.lastUsedTicks = nowTicks;
            this.unitsThisWindow = Math.max(0, unitsBefore);
        }
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
    CompletionStage<Decision> decide(Policy policy, String key, long cost, Executor executor, boolean reserve) {
        long shareUnits = shareUnits(policy);
        if (closed || !WireFormat.leases() || shareUnits < 2 * cost) {
            return remote(policy, key, cost, executor, reserve, null);
        }
        long nowTicks = ticker.getAsLong();
        Slot slot = new Slot(policy.name(), key);
        Entry found = entries.get(slot);
        long coldUnits = found == null ? coldUnits(slot, cost, nowTicks) : 0;
        if (found == null && (coldUnits < settings.minUnits() || entries.size() >= settings.maxKeys())) {
            return remote(policy, key, cost, executor, reserve, null); // a cold key: no entry, no lease
        }
        // a key that just became busy starts with the units its counter saw before this request
        Entry e = found != null ? found
                : entries.computeIfAbsent(slot, s -> new Entry(s, nowTicks, coldUnits - cost));
        long version = maps.versionOf(policy);
        Denial denial = e.denial;
        if (denial != null && denial.policy() == policy && denial.version() == version) {
            Decision d = localDenial(denial, cost, nowTicks); // the owner's denial holds: no lock taken
            if (d != null) {
                return completed(d);
            }
        }
        Decision local;
        CompletableFuture<Void> wait = null;
        long askUnits = 0;
        List<Grant> closing = null;
        List<Grant> ended = new ArrayList<>(0);
        synchronized (e) {
            if (e.forgotten) {
                // forgotten by the sweep between the lookup and the lock: this one request goes to the owner
                return remote(policy, key, cost, executor, reserve, null);
            }
            if (e.policy != policy && (e.policy == null || !e.policy.equals(policy)) || e.policyVersion != version) {
                ended.addAll(e.grants); // a policy change ends the grants (SPEC §13)
                ended.addAll(e.spent);
                e.grants.clear();
                e.spent.clear();
                e.denial = null;
                e.policy = policy;
                e.policyVersion = version;
            }
            observe(e, cost, nowTicks);
            retireEnded(e.grants, nowTicks, ended);
            local = takeLocal(e, cost, nowTicks, reserve);
            if (local == null && e.asking != null) {
                wait = e.asking;
            } else if (local == null && wantsLease(e, cost) && e.grants.size() < MAX_GRANTS_PER_KEY
                    && e.grants.size() + e.spent.size() < MAX_KEPT_GRANTS_PER_KEY) {
                askUnits = Math.min(shareUnits, Math.max(2 * cost, Math.max(e.unitsLastWindow, e.unitsThisWindow)));
                e.asking = new CompletableFuture<>();
                closing = closeSpent(e, nowTicks);
            }
        }
        settleAll(ended);
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
            return ask(e, policy, version, key, cost, askUnits, nowTicks, executor, reserve, closing);
        }
        return remote(policy, key, cost, executor, reserve, e);
    }

    /** After waiting for a lease request: from its grant, or locally denied, or on the owner; never asks again. */
    private void afterWait(Entry e, Policy policy, String key, long cost, boolean reserve,
                           CompletableFuture<Decision> out, Executor executor) {
        long nowTicks = ticker.getAsLong();
        Decision local;
        Grant from = null;
        synchronized (e) {
            local = e.policy != null && e.policy.equals(policy) ? takeLocal(e, cost, nowTicks, reserve) : null;
            if (local != null && local.allowed()) {
                from = e.lastTaken;
            }
        }
        if (local != null) {
            Grant g = from;
            deliver(out, executor, local, null, g == null ? null : () -> undo(g, cost), g);
            return;
        }
        CompletableFuture<Decision> r = remote(policy, key, cost, null, reserve, e).toCompletableFuture();
        out.whenComplete((d, f) -> {
            if (out.isCancelled()) {
                r.cancel(false); // the limiter gives back an admission that arrives after this (SPEC §10)
            }
        });
        r.whenComplete((d, f) -> deliver(out, executor, d, f == null ? null : Futures.unwrap(f),
                d != null && d.reservation() != null ? () -> async.giveBack(policy, d.reservation()) : null));
    }

    /**
     * Completes {@code out} on {@code executor} (or here when null); when the caller gave up first (cancelled by its
     * timeout), runs {@code undo}, so that a request answered otherwise consumes nothing (SPEC §10).
     */
    private static void deliver(CompletableFuture<Decision> out, Executor executor, Decision d, Throwable failure,
                                Runnable undo) {
        deliver(out, executor, d, failure, undo, null);
    }

    /**
     * As above, for an admission taken from {@code from} (or null): while it waits for the caller's executor the
     * grant is not closed early, so that its undo still finds it open.
     */
    private static void deliver(CompletableFuture<Decision> out, Executor executor, Decision d, Throwable failure,
                                Runnable undo, Grant from) {
        Runnable task = () -> {
            try {
                boolean done = failure != null ? out.completeExceptionally(failure) : out.complete(d);
                if (!done && failure == null && undo != null && d.allowed()) {
                    undo.run();
                }
            } finally {
                if (from != null) {
                    synchronized (from.owner) {
                        from.pending--;
                    }
                }
            }
        };
        if (from != null) {
            synchronized (from.owner) {
                from.pending++;
            }
        }
        if (executor == null) {
            task.run();
        } else {
            Futures.runOn(executor, task);
        }
    }

    /** Returns the units of a decision taken from {@code g} whose caller gave up, while {@code g} is open. */
    private void undo(Grant g, long cost) {
        synchronized (g.owner) {
            if (!g.closed) {
                g.left += cost;
                g.used -= cost;
                respend(g);
            }
        }
    }

    /** A used-up grant that got units back is spent again while its entry has room; under the entry's lock. */
    private static void respend(Grant g) {
        Entry e = g.owner;
        if (g.left > 0 && e.grants.size() < MAX_GRANTS_PER_KEY && e.spent.remove(g)) {
            e.grants.add(g);
        }
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

    /**
     * The units a key without an entry has been asked for in the current window, this request's included, counted in
     * a fixed table of {@link #COLD_SLOTS} counters by hash (no allocation per cold key): keys sharing a counter only
     * make a key look busier, never colder; a key gets an entry once its count reaches
     * {@link LeaseSettings#minUnits()}.
     */
    private long coldUnits(Slot slot, long cost, long nowTicks) {
        int index = (slot.hashCode() * 0x9E3779B9 >>> 16) & (COLD_SLOTS - 1);
        long window = Math.floorDiv(nowTicks - epochTicks, settings.windowNanos()) & 0xFFFF_FFFFL;
        while (true) {
            long packed = cold.get(index);
            long count = (packed >>> 32) == window ? packed & 0xFFFF_FFFFL : 0;
            long next = Math.min(0xFFFF_FFFFL, count + cost);
            if (cold.compareAndSet(index, packed, window << 32 | next)) {
                return next;
            }
        }
    }

    private void observe(Entry e, long cost, long nowTicks) {
        long sinceStart = nowTicks - e.windowStartTicks;
        if (sinceStart >= settings.windowNanos()) {
            e.unitsLastWindow = sinceStart < 2 * settings.windowNanos() ? e.unitsThisWindow : 0;
            e.unitsThisWindow = 0;
            e.windowStartTicks = nowTicks;
        }
        e.unitsThisWindow = Math.min(Band.MAX_QUANTITY, e.unitsThisWindow + cost);
        e.lastUsedTicks = nowTicks;
    }

    private boolean wantsLease(Entry e, long cost) {
        long seen = Math.max(e.unitsLastWindow, e.unitsThisWindow);
        return seen >= settings.minUnits() && seen >= 2 * cost;
    }

    /**
     * Closes the entry's used-up grants (no unit left) to be settled with the next lease request: on the owner their
     * units then stop counting as out on lease, so the bucket refills behind them (SPEC §13). A reservation taken
     * from one that comes back later answers {@code EXPIRED}, its cost standing. Under the entry's lock.
     *
     * @return the grants closed, at most {@link LeaseProcessor#MAX_CLOSES}
     */
    private List<Grant> closeSpent(Entry e, long nowTicks) {
        List<Grant> out = new ArrayList<>(e.spent.size());
        for (int i = e.spent.size() - 1; i >= 0 && out.size() < LeaseProcessor.MAX_CLOSES; i--) {
            Grant g = e.spent.get(i);
            if (g.left == 0 && !g.closed && g.pending == 0) { // a pending admission may still come back: not yet
                e.spent.remove(i);
                g.closed = true;
                g.retiredTicks = nowTicks;
                g.closedUsed = g.used;
                if (g.nextSub == 0) {
                    grants.remove(g.token, g);
                }
                out.add(g);
            }
        }
        return out;
    }

    /** Grants of {@code list} past their spend time leave it for {@code ended}; the caller settles them unlocked. */
    private static void retireEnded(List<Grant> list, long nowTicks, List<Grant> ended) {
        for (int i = list.size() - 1; i >= 0; i--) {
            Grant g = list.get(i);
            if (nowTicks - g.spendUntilTicks >= 0) {
                list.remove(i);
                ended.add(g);
            }
        }
    }

    /** A decision from a grant or from the last denial, or null; under the entry's lock. */
    private Decision takeLocal(Entry e, long cost, long nowTicks, boolean reserve) {
        for (int i = e.grants.size() - 1; i >= 0; i--) {
            Grant g = e.grants.get(i);
            if (g.left >= cost && nowTicks - g.spendUntilTicks < 0) {
                g.left -= cost;
                g.used += cost;
                counters.leased.increment();
                e.lastTaken = g;
                if (g.left == 0) {
                    e.grants.remove(i);
                    e.spent.add(g);
                }
                return leased(g, cost, nowTicks, reserve);
            }
        }
        return localDenial(e.denial, cost, nowTicks);
    }

    /** The answer from the owner's last denial while it holds for this cost, else null. */
    private Decision localDenial(Denial denial, long cost, long nowTicks) {
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

    private Decision leased(Grant g, long cost, long nowTicks, boolean reserve) {
        long resetAfter = Math.max(0, g.resetAfterNanos - (nowTicks - g.askedTicks));
        Decision d = new Decision(true, g.limit, Math.min(g.left, g.limit), resetAfter, Decision.NO_RETRY, g.band)
                .withPolicyVersion(g.lease == null ? 0 : g.policyVersion);
        if (!reserve) {
            return d;
        }
        long seq = g.nextSub++;
        byte[] mac = new byte[Reservation.MAC_BYTES];
        for (int i = 0; i < 8; i++) {
            mac[i] = (byte) (g.token >>> (56 - 8 * i));
            mac[8 + i] = (byte) (seq >>> (56 - 8 * i));
        }
        Reservation r = new Reservation(g.lease.policy(), g.lease.key(), g.lease.stateId(), g.lease.id(),
                g.lease.reservedAtNanos(), Math.max(g.lease.reservedAtNanos(), g.ownerEndNanos), cost,
                g.lease.bands(), mac);
        return d.withReservation(r);
    }

    private CompletionStage<Decision> ask(Entry e, Policy policy, long version, String key, long cost, long units,
                                          long askedTicks, Executor executor, boolean reserve, List<Grant> closing) {
        counters.asked.increment();
        CompletableFuture<Decision> out = async.newStage();
        LeaseProcessor processor = new LeaseProcessor(policy, cost, units, lifeNanos(), holderHigh, holderLow,
                reserve, version);
        if (!closing.isEmpty()) {
            Reservation[] leases = new Reservation[closing.size()];
            long[] actuals = new long[closing.size()];
            for (int i = 0; i < leases.length; i++) {
                leases[i] = closing.get(i).lease;
                actuals[i] = closing.get(i).closedUsed;
            }
            processor.closing(leases, actuals);
            counters.closedEarly.add(leases.length);
        }
        try {
            maps.get(policy).async().submit(key, processor, LeaseResult.class, async.callbacks(),
                    (result, failure) -> answered(e, policy, version, cost, askedTicks, reserve, result, failure,
                            out, executor));
        } catch (RuntimeException ex) {
            answered(e, policy, version, cost, askedTicks, reserve, null, ex, out, executor);
        }
        return out;
    }

    /** The life asked for a lease: two sizing windows (its units are about one window's demand), at most the maximum. */
    private long lifeNanos() {
        return Math.min(settings.maxLifeNanos(), 2 * settings.windowNanos());
    }

    private void answered(Entry e, Policy policy, long version, long cost, long askedTicks, boolean reserve,
                          LeaseResult result, Throwable failure, CompletableFuture<Decision> out,
                          Executor executor) {
        Decision answer = null;
        Runnable undo = null;
        Grant from = null;
        CompletableFuture<Void> asking;
        List<Grant> ended = new ArrayList<>(0);
        synchronized (e) {
            asking = e.asking;
            e.asking = null;
            if (failure == null) {
                Decision d = result.decision();
                if (result.grantedUnits() > 0) {
                    long lifeNanos = Math.max(0, result.leaseEndNanos() - result.ownerNanos());
                    long spendNanos = lifeNanos - lifeNanos / 100 - NANOS_PER_MILLI;
                    Grant g = new Grant(e, policy, d.policyVersion(), d, tokens.incrementAndGet(),
                            result.grantedUnits(), askedTicks, askedTicks + Math.max(0, spendNanos),
                            result.leaseEndNanos());
                    grants.put(g.token, g);
                    counters.granted.increment();
                    counters.grantedUnits.add(g.granted);
                    g.left -= cost;
                    g.used += cost;
                    counters.leased.increment();
                    if (closed || spendNanos <= 0 || !policy.equals(e.policy) || version != e.policyVersion) {
                        // no time to spend it, or it is stale already: the request in hand, then give the rest back
                        answer = leased(g, cost, askedTicks, reserve);
                        ended.add(g);
                    } else {
                        (g.left > 0 ? e.grants : e.spent).add(g);
                        answer = leased(g, cost, ticker.getAsLong(), reserve);
                    }
                    undo = () -> undo(g, cost);
                    from = g;
                } else {
                    answer = d;
                    noteDenial(e, d, cost, askedTicks);
                    if (d.reservation() != null) {
                        undo = () -> async.giveBack(policy, d.reservation());
                    }
                }
            }
        }
        if (asking != null) {
            asking.complete(null); // the waiters first: the answer below may hop to another executor
        }
        // a caller that gave up first gets nothing, and the request in hand goes back before the grant is settled
        deliver(out, executor, answer, failure == null ? null : Futures.unwrap(failure), undo, from);
        settleAll(ended);
    }

    /** Remembers an owner's denial that can pass, for {@link #takeLocal}; under the entry's lock. */
    private void noteDenial(Entry e, Decision d, long cost, long askedTicks) {
        if (!d.allowed() && d.retryAfterNanos() > 0) {
            long holdNanos = Math.min(d.retryAfterNanos(), settings.maxLifeNanos());
            e.denial = new Denial(d, cost, askedTicks, askedTicks + holdNanos, e.policy, e.policyVersion);
        }
    }

    /** On the owner, as without leases; a denial is remembered for the key when it is tracked. */
    private CompletionStage<Decision> remote(Policy policy, String key, long cost, Executor executor, boolean reserve,
                                             Entry tracked) {
        long askedTicks = ticker.getAsLong();
        CompletionStage<Decision> stage = reserve ? async.reserve(policy, key, cost, executor)
                : async.decide(policy, key, cost, executor);
        if (tracked != null) {
            // a side effect only: the caller keeps the limiter's own stage, so its cancellation reaches it (SPEC §10)
            stage.whenComplete((d, failure) -> {
                if (d != null && !d.allowed()) {
                    synchronized (tracked) {
                        if (policy.equals(tracked.policy)) {
                            noteDenial(tracked, d, cost, askedTicks);
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

    private Grant grantOf(Reservation r) {
        byte[] mac = r.mac();
        if (mac.length != Reservation.MAC_BYTES) {
            return null;
        }
        long token = 0;
        for (int i = 0; i < 8; i++) {
            token = (token << 8) | (mac[i] & 0xff);
        }
        Grant g = grants.get(token);
        return g != null && g.lease.stateId() == r.stateId() && g.lease.id() == r.id() ? g : null;
    }

    /**
     * Settles a reservation taken from a lease into its grant: what was not used goes back to the grant, a charge
     * takes from it (beyond what is left, it is charged with the lease's settle); once per reservation. After the
     * grant's spend time: {@link Settlement.Status#EXPIRED}, the reserved cost stands.
     *
     * @param reservation a reservation
     * @param actual the actual cost, checked
     * @return the settlement; null when the reservation was not taken from a lease of this limiter (the owner
     *     settles it)
     */
    CompletionStage<Settlement> settle(Reservation reservation, long actual) {
        Grant g = grantOf(reservation);
        if (g == null) {
            return null;
        }
        long seq = 0;
        byte[] mac = reservation.mac();
        for (int i = 8; i < 16; i++) {
            seq = (seq << 8) | (mac[i] & 0xff);
        }
        long chargeTo;
        synchronized (g.owner) {
            if (g.closed) {
                counters.lateLocalSettles.increment();
                return CompletableFuture.completedFuture(
                        new Settlement(Settlement.Status.EXPIRED, reservation.cost(), 0, false));
            }
            if (g.settledSubs == null) {
                g.settledSubs = new HashMap<>();
            }
            Long before = g.settledSubs.get(seq);
            if (before != null) {
                return CompletableFuture.completedFuture(
                        new Settlement(Settlement.Status.ALREADY_SETTLED, before, 0, false));
            }
            g.settledSubs.put(seq, actual);
            counters.localSettles.increment();
            long c = reservation.cost();
            if (actual <= c) {
                g.left += c - actual;
                g.used -= c - actual;
                respend(g);
                return CompletableFuture.completedFuture(new Settlement(Settlement.Status.SETTLED, actual, 0, false));
            }
            long extra = actual - c;
            if (extra <= g.left) {
                g.left -= extra;
                g.used += extra;
                return CompletableFuture.completedFuture(new Settlement(Settlement.Status.SETTLED, actual, 0, false));
            }
            // more than the grant holds: the grant ends now and its lease is settled on the owner to every unit used
            // with this charge, so the owner charges the rest at once (a debt up to max-debt, SPEC §10), never later
            g.used = Math.min(Band.MAX_QUANTITY, g.used + extra);
            g.left = 0;
            g.owner.grants.remove(g);
            g.owner.spent.remove(g);
            g.closed = true;
            g.retiredTicks = ticker.getAsLong();
            chargeTo = g.used;
        }
        return async.settle(settleWith(g), g.lease, chargeTo).thenApply(s -> new Settlement(s.status(),
                s.status() == Settlement.Status.SETTLED ? actual : s.actual(), s.excess(), s.debt()));
    }

    /**
     * The policy a grant is settled with: the catalog's current version of its policy when the grant was of a
     * catalog version (so that a give-back after a change credits refill at the new rate, SPEC §11, §13), else the
     * grant's own.
     */
    private Policy settleWith(Grant g) {
        return g.policyVersion > 0 ? maps.current(g.policy) : g.policy;
    }

    /**
     * Retires every grant past its spend time and forgets keys idle for two windows without a grant.
     *
     * @return a stage completed when the give-backs sent answered (for tests)
     */
    CompletableFuture<Void> sweep() {
        long nowTicks = ticker.getAsLong();
        List<Grant> ended = new ArrayList<>();
        for (Entry e : entries.values()) {
            synchronized (e) {
                retireEnded(e.grants, nowTicks, ended);
                retireEnded(e.spent, nowTicks, ended);
                if (e.grants.isEmpty() && e.spent.isEmpty() && e.asking == null && nowTicks - e.lastUsedTicks > 2 * settings.windowNanos()
                        && (e.denial == null || e.denial.untilTicks() - nowTicks <= 0)) {
                    e.forgotten = true;
                    entries.remove(e.slot, e);
                }
            }
        }
        grants.values().removeIf(g -> {
            synchronized (g.owner) {
                return g.closed && nowTicks - g.retiredTicks > RETIRED_GRANT_MEMORY_NANOS;
            }
        });
        return settleAll(ended);
    }

    /**
     * Closes each grant (no more spending or local settles) and settles it to the units used.
     *
     * @return a stage completed when every settle sent has answered (a failed one too: its units stay consumed)
     */
    private CompletableFuture<Void> settleAll(List<Grant> ended) {
        if (ended.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (Grant g : ended) {
            long used;
            boolean handedOut;
            synchronized (g.owner) {
                if (g.closed) {
                    continue;
                }
                g.closed = true;
                g.retiredTicks = ticker.getAsLong(); // kept in grants a while, so late settles answer EXPIRED
                used = g.used;
                handedOut = g.nextSub > 0;
            }
            if (!handedOut) {
                grants.remove(g.token, g); // it handed out no reservation: nothing can settle into it
            }
            counters.unusedUnits.add(Math.max(0, g.granted - used));
            if (used == g.granted) {
                continue; // every unit was used: the owner's record ends with the lease, nothing to give back
            }
            counters.giveBacks.increment();
            sent.add(async.settle(settleWith(g), g.lease, used).toCompletableFuture()
                    .handle((settlement, failure) -> null));
        }
        return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
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
            sweeper.shutdownNow();
        }
        List<Grant> all = new ArrayList<>();
        for (Entry e : entries.values()) {
            synchronized (e) {
                all.addAll(e.grants);
                all.addAll(e.spent);
                e.grants.clear();
                e.spent.clear();
            }
        }
        try {
            settleAll(all).get(1, TimeUnit.SECONDS); // before the callback pool stops
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the units not given back stay consumed until the leases end on their owners
        }
    }

    /** The holder side's counters. Thread-safe. */
    static final class LeaseCounters {
        final java.util.concurrent.atomic.LongAdder asked = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder granted = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder grantedUnits = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder unusedUnits = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder leased = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder deniedLocally = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder giveBacks = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder localSettles = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder lateLocalSettles = new java.util.concurrent.atomic.LongAdder();
        final java.util.concurrent.atomic.LongAdder closedEarly = new java.util.concurrent.atomic.LongAdder();
    }

    /** @return the counters as one value */
    LeaseStats stats() {
        LeaseCounters c = counters;
        return new LeaseStats(c.asked.sum(), c.granted.sum(), c.grantedUnits.sum(), c.unusedUnits.sum(),
                c.leased.sum(), c.deniedLocally.sum(), c.giveBacks.sum(), c.localSettles.sum(),
                c.lateLocalSettles.sum(), c.closedEarly.sum(), entries.size());
    }
}
