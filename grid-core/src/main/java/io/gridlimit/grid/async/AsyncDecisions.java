package io.gridlimit.grid.async;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.async.GiveBackListener;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.owner.SettleProcessor;
import io.gridlimit.grid.owner.SettleResult;
import io.gridlimit.grid.wire.WireFormat;
import io.gridlimit.time.SystemTimeSource;
import io.gridlimit.time.TimeSource;
import io.gridlimit.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Internal to grid-core: not API; public for {@code HazelcastRateLimiter} and the holder side of leases
 * ({@code io.gridlimit.grid.lease}).
 *
 * <p>The asynchronous path of a {@link io.gridlimit.grid.HazelcastRateLimiter}: sends {@link DecideProcessor}s through the policy's
 * {@link AsyncSubmitter}, coalesced per (policy, key) by a {@link Coalescer} when coalescing is on, and completes
 * each returned stage on the caller's executor or on the {@link CallbackPool}. Arguments are validated by the
 * limiter before they reach this class. Thread-safe.
 */
public final class AsyncDecisions implements AutoCloseable {
    private final PolicyMaps maps;
    private final CallbackPool pool;
    private final Executor callbacks;
    /** Null when coalescing is off. */
    private final Coalescer coalescer;
    /** Coalesces reservations (docs/SPEC.md §10) as {@link #coalescer} does decisions; null when off. */
    private final Coalescer reserveCoalescer;
    /** The clock that bounds give-back retries: the system's UTC clock (a reservation's expiry is epoch time). */
    private final TimeSource clock = SystemTimeSource.systemUtc();
    private volatile boolean closed;

    /**
     * Starts the callback pool.
     *
     * @param maps the policy maps
     * @param asyncThreads the callback pool's size, checked by the builder
     * @param coalesce whether concurrent decisions of one (policy, key) are coalesced
     */
    public AsyncDecisions(PolicyMaps maps, int asyncThreads, boolean coalesce) {
        this.maps = maps;
        this.pool = new CallbackPool(asyncThreads);
        this.callbacks = pool.executor();
        this.coalescer = coalesce ? new Coalescer(this::sendBatch, pool::newStage, callbacks,
                DecideProcessor.MAX_BATCH) : null;
        this.reserveCoalescer = coalesce ? new Coalescer(this::sendReserveBatch, pool::newStage, callbacks,
                DecideProcessor.MAX_BATCH, this::orphan) : null;
    }

    /** Where give-backs of late admissions are reported; set once by the limiter's builder. */
    private volatile GiveBackListener listener = GiveBackListener.NONE;

    public void listener(GiveBackListener l) {
        this.listener = l;
    }

    /** An admission whose caller cancelled its stage after it was sent: given back, and reported. */
    private void orphan(Policy policy, Decision decision) {
        giveBack(policy, decision.reservation()).whenComplete((settlement, failure) ->
                listener.lateGiveBack(policy.name(), settlement, failure == null ? null : Futures.unwrap(failure)));
    }

    /**
     * Decides one request taking its cost as a reservation when admitted, coalesced per (policy, key) apart from
     * plain decisions; while a member of the cluster does not read reservations ({@link WireFormat#reservations()},
     * a rolling upgrade), a plain decision without one.
     *
     * @param policy the policy
     * @param key the key
     * @param cost the cost
     * @param executor where the stage completes, or null for the callback pool
     * @return the stage, whose default executor is the callback pool
     */
    public CompletionStage<Decision> reserve(Policy policy, String key, long cost, Executor executor) {
        if (!WireFormat.reservations()) {
            return decide(policy, key, cost, executor); // a member of a GridLimit before reservations: none taken
        }
        if (reserveCoalescer != null) {
            return reserveCoalescer.decide(policy, key, cost, executor);
        }
        return submit(policy, key, new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy))
                .reserving(), DecisionResult::first, executor, true);
    }

    /**
     * Counts one hit on the owner of its key ({@link DecideProcessor#hitting()}, docs/SPEC.md §3 "Every hit
     * counts"), never coalesced. A hit once sent counts, whether or not its caller still waits: a cancelled stage
     * leaves it counted (there is nothing to give back).
     *
     * @param policy the policy, a single fixed-window band (checked by the caller)
     * @param key the key
     * @param cost the cost, in [0, 10^15]
     * @param executor where the stage completes, or null for the callback pool
     * @return the stage, whose default executor is the callback pool
     */
    public CompletionStage<Decision> hit(Policy policy, String key, long cost, Executor executor) {
        return submit(policy, key, new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy))
                .hitting(), DecisionResult::first, executor);
    }

    /**
     * Settles a reservation once, on the owner of its key.
     *
     * @param policy the policy
     * @param reservation the reservation, checked against the policy
     * @param actual the actual cost, checked
     * @return the stage of the settlement, completed on the callback pool
     */
    public CompletionStage<Settlement> settle(Policy policy, Reservation reservation, long actual) {
        CompletableFuture<Settlement> stage = pool.newStage();
        try {
            maps.get(policy).async().submit(reservation.key(), new SettleProcessor(policy, reservation, actual),
                    SettleResult.class, callbacks, (result, failure) -> {
                        if (failure != null) {
                            stage.completeExceptionally(Futures.unwrap(failure));
                        } else {
                            stage.complete(result.settlement());
                        }
                    });
        } catch (RuntimeException e) {
            stage.completeExceptionally(e);
        }
        return stage;
    }

    /** First wait before a failed give-back is retried, then doubled up to {@link #GIVE_BACK_MAX_DELAY_MILLIS}. */
    static final long GIVE_BACK_FIRST_DELAY_MILLIS = 10;
    /** Longest wait between two attempts of a give-back. */
    static final long GIVE_BACK_MAX_DELAY_MILLIS = 1_000;

    /**
     * Settles a reservation to 0, retrying grid failures until a settle answers, or the reservation's hold
     * ({@code expiresAt − reservedAt}) has passed on this JVM's UTC clock since the first attempt (so an owner
     * clock ahead of or behind this one never cuts the retries short), or this limiter is closed.
     *
     * @param policy the policy
     * @param reservation the reservation, checked against the policy
     * @return the stage of the settlement, or failed with the last grid failure when the give-back is lost
     */
    public CompletionStage<Settlement> giveBack(Policy policy, Reservation reservation) {
        CompletableFuture<Settlement> result = pool.newStage();
        // The owner's clock may differ from this JVM's: retry for the reservation's whole hold from now, which
        // outlasts its remaining life on the owner (the owner answers "expired" once it is over).
        long deadlineNanos = io.gridlimit.internal.Saturating.add(clock.nowNanos(),
                Math.max(0, io.gridlimit.internal.Saturating.subtract(reservation.expiresAtNanos(),
                        reservation.reservedAtNanos())));
        attempt(policy, reservation, GIVE_BACK_FIRST_DELAY_MILLIS, deadlineNanos, result);
        return result;
    }

    private void attempt(Policy policy, Reservation reservation, long delayMillis, long deadlineNanos,
                         CompletableFuture<Settlement> result) {
        settle(policy, reservation, 0).whenComplete((settlement, failure) -> {
            if (failure == null) {
                result.complete(settlement);
            } else if (closed || Futures.unwrap(failure) instanceof IllegalArgumentException
                    || clock.nowNanos() >= deadlineNanos) {
                result.completeExceptionally(Futures.unwrap(failure));
            } else {
                CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS, callbacks).execute(() ->
                        attempt(policy, reservation, Math.min(GIVE_BACK_MAX_DELAY_MILLIS, delayMillis * 2),
                                deadlineNanos, result));
            }
        });
    }

    /**
     * Decides one request.
     *
     * @param policy the policy
     * @param key the key
     * @param cost the cost
     * @param executor where the stage completes, or null for the callback pool
     * @return the stage, whose default executor is the callback pool
     */
    public CompletionStage<Decision> decide(Policy policy, String key, long cost, Executor executor) {
        if (coalescer != null) {
            return coalescer.decide(policy, key, cost, executor);
        }
        return submit(policy, key, new DecideProcessor(policy, cost).withPolicyVersion(maps.versionOf(policy)),
                DecisionResult::first, executor);
    }

    /**
     * Decides a batch of one key in one invocation, never coalesced.
     *
     * @param policy the policy
     * @param key the key
     * @param processor the batch processor
     * @return the stage of a copy of the decisions, completed on the callback pool
     */
    public CompletionStage<Decision[]> decideAll(Policy policy, String key, DecideProcessor processor) {
        return submit(policy, key, processor, r -> r.decisions().clone(), null);
    }

    /**
     * One coalesced batch: the single-cost processor when alone, as uncoalesced. Requests queued before the limiter
     * closed are still sent (close lets accepted decisions finish).
     */
    private CompletionStage<Decision[]> sendBatch(Policy policy, String key, long[] costs, Executor executor) {
        DecideProcessor processor = (costs.length == 1 ? new DecideProcessor(policy, costs[0])
                : new DecideProcessor(policy, costs)).withPolicyVersion(maps.versionOf(policy));
        return submit(policy, key, processor, DecisionResult::decisions, executor);
    }

    /** One coalesced batch of reservations. */
    private CompletionStage<Decision[]> sendReserveBatch(Policy policy, String key, long[] costs, Executor executor) {
        DecideProcessor processor = (costs.length == 1 ? new DecideProcessor(policy, costs[0])
                : new DecideProcessor(policy, costs)).withPolicyVersion(maps.versionOf(policy));
        return submit(policy, key, processor.reserving(), DecisionResult::decisions, executor, true);
    }

    /** Sends a processor; the returned stage completes on {@code executor} (never rejecting), or the pool. */
    private <T> CompletableFuture<T> submit(Policy policy, String key, DecideProcessor processor,
                                            Function<DecisionResult, T> mapping, Executor executor) {
        return submit(policy, key, processor, mapping, executor, false);
    }

    /** As above; with {@code reserving}, a result that finds the stage cancelled has its admissions given back. */
    private <T> CompletableFuture<T> submit(Policy policy, String key, DecideProcessor processor,
                                            Function<DecisionResult, T> mapping, Executor executor,
                                            boolean reserving) {
        CompletableFuture<T> stage = pool.newStage();
        Executor on = executor == null ? callbacks : NeverRejectingExecutor.of(executor);
        try {
            maps.get(policy).async().submit(key, processor, on, (result, failure) -> {
                if (failure != null) {
                    stage.completeExceptionally(Futures.unwrap(failure));
                } else if (!stage.complete(mapping.apply(result)) && reserving) {
                    for (Decision d : result.decisions()) {
                        if (d.reservation() != null) {
                            orphan(policy, d);
                        }
                    }
                }
            });
        } catch (RuntimeException e) {
            stage.completeExceptionally(e);
        }
        return stage;
    }

    /** @return a new stage whose default executor is the callback pool */
    public <T> CompletableFuture<T> newStage() {
        return pool.newStage();
    }

    /** @return the callback pool's executor */
    public Executor callbacks() {
        return callbacks;
    }

    /** @return whether decisions are coalesced per (policy, key) */
    public boolean coalesces() {
        return coalescer != null;
    }

    /** @return how many (policy, key) pairs have a coalesced call in flight; 0 when off */
    public int busyKeys() {
        return coalescer == null ? 0 : coalescer.busyKeys();
    }

    /** @return the prefix of the callback pool's thread names */
    public String threadPrefix() {
        return pool.threadPrefix();
    }

    /** Closes the callback pool ({@link CallbackPool#close()}). */
    @Override
    public void close() {
        closed = true;
        pool.close();
    }
}
