package io.gridlimit.grid.async;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fixed-size thread pool that completes a {@link io.gridlimit.grid.HazelcastRateLimiter}'s async stages, and its close protocol.
 *
 * <p>Threads are named {@code gridlimit-async-<n>-<i>} ({@code n} counts pools in this JVM, {@code i} threads in
 * the pool), are daemons and all start at once. Tasks queue without bound; the pool is wrapped in a
 * {@link NeverRejectingExecutor}, so a task handed to it after {@link #close()} runs on the submitting thread and
 * no stage is ever left incomplete.
 *
 * <p>Why a pool of our own: Hazelcast completes {@code submitToKey} futures through its default async executor,
 * which on machines with 2 CPUs or fewer (common-pool parallelism 1) starts a new thread per task;
 * {@code CompletableFuture}'s own default is the common pool. Stages made by {@link #newStage()} take this pool as
 * their default executor, and so does every stage derived from them.
 *
 * <p>Close: no wait when called from one of its own threads (it would wait on itself), else up to
 * {@link #CLOSE_WAIT_MILLIS} for queued callbacks to finish. Idempotent. Thread-safe.
 */
final class CallbackPool implements AutoCloseable {
    /** How long {@link #close()} waits for queued callbacks to finish, in milliseconds. */
    static final long CLOSE_WAIT_MILLIS = 5_000;

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final ThreadPoolExecutor pool;
    private final Executor executor;
    private final String threadPrefix;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the pool's threads.
     *
     * @param threads in [1, {@link io.gridlimit.grid.HazelcastRateLimiter#MAX_ASYNC_THREADS}], checked by {@link HazelcastRateLimiter.Builder#asyncThreads}
     */
    CallbackPool(int threads) {
        this.threadPrefix = "gridlimit-async-" + POOLS.incrementAndGet() + "-";
        AtomicInteger count = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new CallbackThread(this, r, threadPrefix + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.pool.prestartAllCoreThreads();
        this.executor = NeverRejectingExecutor.of(pool);
    }

    /** @return the pool as a never-rejecting executor */
    Executor executor() {
        return executor;
    }

    /**
     * @param <T> the value type
     * @return a new incomplete future whose default executor, and that of every stage derived from it, is this pool
     */
    <T> CompletableFuture<T> newStage() {
        return new CallbackFuture<>(executor);
    }

    /** @return the prefix of this pool's thread names */
    String threadPrefix() {
        return threadPrefix;
    }

    /**
     * Stops accepting tasks and lets the queued ones finish: waits up to {@link #CLOSE_WAIT_MILLIS}, unless called
     * from one of this pool's threads. Idempotent; an interrupt while waiting is restored, not thrown.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pool.shutdown();
        if (Thread.currentThread() instanceof CallbackThread t && t.owner == this) {
            return;
        }
        try {
            pool.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A pool thread; knows its pool so that {@link #close()} does not wait on itself. */
    private static final class CallbackThread extends Thread {
        final CallbackPool owner;

        CallbackThread(CallbackPool owner, Runnable task, String name) {
            super(task, name);
            this.owner = owner;
        }
    }

    /** A {@link CompletableFuture} whose default executor, and that of every stage derived from it, is the pool. */
    private static final class CallbackFuture<T> extends CompletableFuture<T> {
        private final Executor executor;

        CallbackFuture(Executor executor) {
            this.executor = executor;
        }

        @Override
        public Executor defaultExecutor() {
            return executor;
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CallbackFuture<>(executor);
        }
    }
}
