package io.gridlimit.grid.async;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.internal.Futures;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Hot-key coalescing of asynchronous decisions (docs/SPEC.md §8): while one invocation for a (policy, key) is in
 * flight from this replica, later requests for the same (policy, key) queue here; when the invocation answers,
 * the queued requests leave together as ONE {@link DecideProcessor} carrying their costs (at most
 * {@link DecideProcessor#MAX_BATCH}; the rest wait for the next round), and the decisions are handed back in
 * arrival order.
 *
 * <p><b>Exactness.</b> The owner runs a batch through {@code RateLimitAlgorithms.applyAll}, that is
 * {@code apply} of each cost in turn on the state the previous one left, at one time reading. So request
 * {@code i} of a batch gets exactly the decision it would have got had the requests been decided one after
 * another in arrival order at that reading (SPEC §3: a denied request consumes nothing, so a denial in the middle
 * of a batch does not change the ones after it). Arrival order is the order in which requests enter the queue of
 * their (policy, key), linearized by {@link ConcurrentHashMap#compute}. Still one EntryProcessor per invocation on
 * the owner, the state written once with its TTL, the backup receiving that state (SPEC §8).
 *
 * <p><b>Cost.</b> For keys that are never concurrently busy (uniform keys) a request pays two
 * {@code ConcurrentHashMap.compute} calls and one small slot object beside the invocation it always made; the
 * invocation itself is the uncoalesced one (a single-cost {@code DecideProcessor}). For a hot key, N concurrent
 * requests cost about N / batch invocations instead of N. The next batch is sent from the thread that completed the
 * previous one, unless that is Hazelcast's response thread (a caller executor that runs tasks inline, or an event
 * loop that refused a task), where Hazelcast refuses a send: then from the callback pool. Latency of a queued request: at most one round trip more than uncoalesced, spent waiting for the
 * call in flight.
 *
 * <p><b>Failures.</b> A failed invocation completes every request of its batch exceptionally with the same
 * (unwrapped) exception; requests queued behind it still go out in the next batch. A queued request whose stage
 * its caller cancelled (a timeout) is dropped before it is sent: it consumes nothing; one cancelled after it was
 * sent whose admission carries a reservation goes to the orphan handler, which gives it back.
 *
 * <p>Thread-safe. Holds no state for idle keys: a slot is removed when its last batch answers with nothing queued.
 */
final class Coalescer {
    /** Sends one batch of costs (1 to {@link DecideProcessor#MAX_BATCH}) for one key; answers in order. */
    @FunctionalInterface
    interface BatchSender {
        /**
         * @param policy the policy
         * @param key the key, validated
         * @param costs the costs, validated, in arrival order; owned by the callee
         * @param executor where the returned stage completes; null for the limiter's callback pool
         * @return a stage completed with exactly {@code costs.length} decisions in order, or exceptionally
         */
        CompletionStage<Decision[]> send(Policy policy, String key, long[] costs, Executor executor);
    }

    private final ConcurrentHashMap<SlotKey, Slot> slots = new ConcurrentHashMap<>();
    private final BatchSender sender;
    private final Supplier<CompletableFuture<Decision>> stages;
    private final Executor callbacks;
    private final int maxBatch;
    private final BiConsumer<Policy, Decision> orphans;

    /**
     * @param sender sends a batch
     * @param stages makes the stage returned to a caller (the limiter's callback-pool stage)
     * @param callbacks where a request without an executor of its own is completed (the limiter's callback pool,
     *     never rejecting)
     * @param maxBatch most costs per invocation, in [1, {@link DecideProcessor#MAX_BATCH}]
     */
    Coalescer(BatchSender sender, Supplier<CompletableFuture<Decision>> stages, Executor callbacks, int maxBatch) {
        this(sender, stages, callbacks, maxBatch, (policy, decision) -> { });
    }

    /**
     * @param sender sends a batch
     * @param stages makes the stage returned to a caller
     * @param callbacks where a request without an executor of its own is completed
     * @param maxBatch most costs per invocation, in [1, {@link DecideProcessor#MAX_BATCH}]
     * @param orphans receives each admitted decision carrying a reservation whose stage its caller cancelled after
     *     the request was sent (the limiter gives it back, docs/SPEC.md §10)
     */
    Coalescer(BatchSender sender, Supplier<CompletableFuture<Decision>> stages, Executor callbacks, int maxBatch,
              BiConsumer<Policy, Decision> orphans) {
        this.orphans = Objects.requireNonNull(orphans, "orphans");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.stages = Objects.requireNonNull(stages, "stages");
        this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
        if (maxBatch < 1 || maxBatch > DecideProcessor.MAX_BATCH) {
            throw new IllegalArgumentException(
                    "maxBatch must be in [1, " + DecideProcessor.MAX_BATCH + "], got " + maxBatch);
        }
        this.maxBatch = maxBatch;
    }

    /**
     * Decides one request, coalesced with concurrent requests of the same policy and key.
     *
     * @param policy the policy (validated by the caller)
     * @param key the key (validated by the caller)
     * @param cost the cost (validated by the caller)
     * @param executor where this request's stage completes; null for the limiter's callback pool
     * @return a stage completed with this request's decision, or exceptionally with its batch's failure
     */
    CompletableFuture<Decision> decide(Policy policy, String key, long cost, Executor executor) {
        Waiter waiter = new Waiter(cost, stages.get(), executor);
        SlotKey slotKey = new SlotKey(policy, key);
        boolean[] lead = new boolean[1];
        slots.compute(slotKey, (k, slot) -> {
            if (slot == null) {
                lead[0] = true;
                return new Slot(); // in flight: this request goes now, alone
            }
            slot.queue.add(waiter);
            return slot;
        });
        if (lead[0]) {
            send(slotKey, new Waiter[] {waiter});
        }
        return waiter.stage;
    }

    /**
     * Whether this thread is one of Hazelcast's response threads (named {@code hz.<instance>.response-<n>} on a
     * member, {@code hz.<instance>.responsethread-<n>} on a client), from which Hazelcast refuses to send.
     */
    static boolean onResponseThread() {
        String name = Thread.currentThread().getName();
        return name.startsWith("hz.") && name.contains(".response");
    }

    /** @return how many (policy, key) pairs have a call in flight (tests, diagnostics) */
    int busyKeys() {
        return slots.size();
    }

    private void send(SlotKey slotKey, Waiter[] batch) {
        long[] costs = new long[batch.length];
        for (int i = 0; i < batch.length; i++) {
            costs[i] = batch[i].cost;
        }
        // the batch answers on its first request's executor; the others are handed to theirs below
        Executor executor = batch[0].executor;
        CompletionStage<Decision[]> answer;
        try {
            answer = sender.send(slotKey.policy, slotKey.key, costs, executor);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((decisions, failure) -> {
            // the next batch leaves before this one's callers run, so their callbacks never delay it
            Waiter[] next = drain(slotKey);
            if (next != null) {
                if (onResponseThread()) {
                    // a caller's executor that runs tasks inline, or an event loop that refused the task: Hazelcast
                    // refuses a send from its response thread, so the next batch leaves from the callback pool
                    Futures.runOn(callbacks, () -> send(slotKey, next));
                } else {
                    send(slotKey, next);
                }
            }
            Throwable error = failure != null ? Futures.unwrap(failure)
                    : decisions == null || decisions.length != batch.length
                    ? new IllegalStateException("expected " + batch.length + " decisions, got "
                            + (decisions == null ? "null" : decisions.length))
                    : null;
            // each request completes on its own executor (none: the callback pool), inline when the batch
            // answered there, so a plain async caller never runs on another caller's event loop
            Executor answeredOn = executor == null ? callbacks : executor;
            for (int i = 0; i < batch.length; i++) {
                Waiter waiter = batch[i];
                Runnable complete = error != null ? () -> waiter.stage.completeExceptionally(error)
                        : completion(waiter, decisions[i], slotKey.policy);
                Executor own = waiter.executor == null ? callbacks : waiter.executor;
                if (own == answeredOn) {
                    complete.run();
                } else {
                    Futures.runOn(own, complete);
                }
            }
        });
    }

    /**
     * Takes the next batch of a key whose call answered, or removes its slot when nothing waits. Requests whose
     * stage is already done (cancelled by their caller, for instance on its timeout) are dropped here: they never
     * left this replica, so they are not decided and consume nothing.
     */
    private Waiter[] drain(SlotKey slotKey) {
        Waiter[][] taken = new Waiter[1][];
        slots.compute(slotKey, (k, slot) -> {
            if (slot == null) {
                return null;
            }
            List<Waiter> batch = new ArrayList<>(Math.min(maxBatch, slot.queue.size()));
            while (batch.size() < maxBatch && !slot.queue.isEmpty()) {
                Waiter w = slot.queue.poll();
                if (!w.stage.isDone()) {
                    batch.add(w);
                }
            }
            if (batch.isEmpty()) {
                return null;
            }
            taken[0] = batch.toArray(new Waiter[0]);
            return slot;
        });
        return taken[0];
    }

    private Runnable completion(Waiter waiter, Decision decision, Policy policy) {
        return () -> {
            if (!waiter.stage.complete(decision) && decision.reservation() != null) {
                orphans.accept(policy, decision); // cancelled after it was sent: its admission is not kept
            }
        };
    }

    /**
     * A (policy, key) pair. Policies that differ in any parameter are different slots (a policy change never
     * batches old and new parameters together); the hash uses the name's cached hash only, so it costs nothing.
     */
    private record SlotKey(Policy policy, String key) {
        @Override
        public boolean equals(Object o) {
            return this == o || (o instanceof SlotKey k && key.equals(k.key) && policy.equals(k.policy));
        }

        @Override
        public int hashCode() {
            return 31 * key.hashCode() + policy.name().hashCode();
        }
    }

    /** A (policy, key) with a call in flight: the requests that arrived since, in order. Guarded by compute. */
    private static final class Slot {
        final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    }

    /** One request: its cost, its stage, and where the stage completes (null: the limiter's callback pool). */
    private record Waiter(long cost, CompletableFuture<Decision> stage, Executor executor) {
    }
}
