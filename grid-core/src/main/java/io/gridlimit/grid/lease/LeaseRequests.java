package io.gridlimit.grid.lease;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.grid.lease.LeaseSettings;
import io.gridlimit.grid.async.AsyncDecisions;
import io.gridlimit.grid.async.PolicyMaps;
import io.gridlimit.grid.owner.LeaseProcessor;
import io.gridlimit.grid.owner.LeaseResult;
import io.gridlimit.internal.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The holder's lease requests (docs/SPEC.md §13): one {@link LeaseProcessor} per request, carrying the key's
 * used-up grants to close, and its answer taken in: a grant spent from until {@code asked + L − L/100 − 1 ms}
 * ("Life"), the request in hand answered from it, or the owner's denial remembered ("Denials"); the key's waiting
 * requests are released first ("One ask at a time"). Thread-safe.
 */
final class LeaseRequests {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final PolicyMaps maps;
    private final AsyncDecisions async;
    private final LeaseSettings settings;
    private final LongSupplier ticker;
    private final long holderHigh;
    private final long holderLow;
    private final GrantRegistry registry;
    private final LeaseCounters counters;
    private final LeaseSettles settles;
    private final BooleanSupplier closed;

    LeaseRequests(PolicyMaps maps, AsyncDecisions async, LeaseSettings settings, LongSupplier ticker, UUID holder,
                  GrantRegistry registry, LeaseCounters counters, LeaseSettles settles, BooleanSupplier closed) {
        this.maps = maps;
        this.async = async;
        this.settings = settings;
        this.ticker = ticker;
        this.holderHigh = holder.getMostSignificantBits();
        this.holderLow = holder.getLeastSignificantBits();
        this.registry = registry;
        this.counters = counters;
        this.settles = settles;
        this.closed = closed;
    }

    /**
     * Asks the owner for a lease of {@code units} with the request in hand, closing {@code closing} with it; the
     * caller set {@code e.asking}, which the answer completes.
     */
    CompletionStage<Decision> ask(LeaseEntry e, Policy policy, long version, String key, long cost, long units,
                                  long askedTicks, Executor executor, boolean reserve, List<HeldGrant> closing) {
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

    private void answered(LeaseEntry e, Policy policy, long version, long cost, long askedTicks, boolean reserve,
                          LeaseResult result, Throwable failure, CompletableFuture<Decision> out,
                          Executor executor) {
        Decision answer = null;
        Runnable undo = null;
        HeldGrant from = null;
        CompletableFuture<Void> asking;
        List<HeldGrant> ended = new ArrayList<>(0);
        synchronized (e) {
            asking = e.asking;
            e.asking = null;
            if (failure == null) {
                Decision d = result.decision();
                if (result.grantedUnits() > 0) {
                    long lifeNanos = Math.max(0, result.leaseEndNanos() - result.ownerNanos());
                    long spendNanos = lifeNanos - lifeNanos / 100 - NANOS_PER_MILLI;
                    HeldGrant g = new HeldGrant(e, policy, d.policyVersion(), d, registry.nextToken(),
                            result.grantedUnits(), askedTicks, askedTicks + Math.max(0, spendNanos),
                            result.leaseEndNanos());
                    registry.add(g);
                    counters.granted.increment();
                    counters.grantedUnits.add(g.granted);
                    g.take(cost);
                    counters.leased.increment();
                    if (closed.getAsBoolean() || spendNanos <= 0 || !policy.equals(e.policy)
                            || version != e.policyVersion) {
                        // no time to spend it, or it is stale already: the request in hand, then give the rest back
                        answer = g.leased(cost, askedTicks, reserve);
                        ended.add(g);
                    } else {
                        (g.left > 0 ? e.grants : e.spent).add(g);
                        answer = g.leased(cost, ticker.getAsLong(), reserve);
                    }
                    undo = () -> g.undo(cost);
                    from = g;
                } else {
                    answer = d;
                    e.noteDenial(d, cost, askedTicks, settings.maxLifeNanos());
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
        LeaseDelivery.deliver(out, executor, answer, failure == null ? null : Futures.unwrap(failure), undo, from);
        settles.settleAll(ended);
    }
}
