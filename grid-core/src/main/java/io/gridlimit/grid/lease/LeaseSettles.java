package io.gridlimit.grid.lease;

import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.async.AsyncDecisions;
import io.gridlimit.grid.async.PolicyMaps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The holder's settles of quota leases (docs/SPEC.md §13, "Life"; §10): a grant that ends is settled on its owner
 * to the units used (the rest given back), and a reservation taken from a lease is settled into its grant. Thread-
 * safe.
 */
final class LeaseSettles {
    private final PolicyMaps maps;
    private final AsyncDecisions async;
    private final GrantRegistry registry;
    private final LeaseCounters counters;
    private final LongSupplier ticker;

    LeaseSettles(PolicyMaps maps, AsyncDecisions async, GrantRegistry registry, LeaseCounters counters,
                 LongSupplier ticker) {
        this.maps = maps;
        this.async = async;
        this.registry = registry;
        this.counters = counters;
        this.ticker = ticker;
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
        HeldGrant g = registry.find(reservation);
        if (g == null) {
            return null;
        }
        Settlement local = g.settleLocal(reservation, actual, counters, ticker);
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        long chargeTo = g.used; // the grant is closed: its units used no longer change
        return async.settle(settleWith(g), g.lease, chargeTo).thenApply(s -> new Settlement(s.status(),
                s.status() == Settlement.Status.SETTLED ? actual : s.actual(), s.excess(), s.debt()));
    }

    /**
     * The policy a grant is settled with: the catalog's current version of its policy when the grant was of a
     * catalog version (so that a give-back after a change credits refill at the new rate, SPEC §11, §13), else the
     * grant's own.
     */
    private Policy settleWith(HeldGrant g) {
        return g.policyVersion > 0 ? maps.current(g.policy) : g.policy;
    }

    /**
     * Closes each grant (no more spending or local settles) and settles it to the units used.
     *
     * @return a stage completed when every settle sent has answered (a failed one too: its units stay consumed)
     */
    CompletableFuture<Void> settleAll(List<HeldGrant> ended) {
        if (ended.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (HeldGrant g : ended) {
            long used;
            boolean handedOut;
            synchronized (g.owner) {
                if (g.closed) {
                    continue;
                }
                g.retire(ticker.getAsLong()); // kept in the registry a while, so late settles answer EXPIRED
                used = g.used;
                handedOut = g.nextSub > 0;
            }
            if (!handedOut) {
                registry.remove(g); // it handed out no reservation: nothing can settle into it
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
}
