package io.gridlimit.grid.lease;

import io.gridlimit.api.Decision;
import io.gridlimit.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Hands a holder's answer to its caller (docs/SPEC.md §13, "Callers that give up"; §10): on the caller's executor,
 * and when the caller gave up first, the admission goes back (into its grant, or given back to the owner), so that
 * a timed-out request consumes nothing. Stateless.
 */
final class LeaseDelivery {
    private LeaseDelivery() {
    }

    /**
     * Completes {@code out} on {@code executor} (or here when null); when the caller gave up first (cancelled by its
     * timeout), runs {@code undo}, so that a request answered otherwise consumes nothing (SPEC §10).
     */
    static void deliver(CompletableFuture<Decision> out, Executor executor, Decision d, Throwable failure,
                        Runnable undo) {
        deliver(out, executor, d, failure, undo, null);
    }

    /**
     * As above, for an admission taken from {@code from} (or null): while it waits for the caller's executor the
     * grant is not closed early, so that its undo still finds it open.
     */
    static void deliver(CompletableFuture<Decision> out, Executor executor, Decision d, Throwable failure,
                        Runnable undo, HeldGrant from) {
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
}
