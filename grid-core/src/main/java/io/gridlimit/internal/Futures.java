package io.gridlimit.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * The one home of future plumbing shared by the grid layer, the HTTP filter and the decision API: unwrapping a
 * failure, completing a future from a (value, failure) pair, and running a completion on an executor that may
 * refuse it. Internal: not part of the API. Thread-safe (stateless).
 */
public final class Futures {
    private Futures() {
    }

    /**
     * The cause a stage failed with: {@link CompletionException} and {@link ExecutionException} wrappers removed
     * (as many as are nested), so callers see the grid's own exception or a {@link java.util.concurrent.TimeoutException}.
     *
     * @param failure a failure, not null
     * @return the innermost cause that is not such a wrapper (a wrapper without a cause is returned as is)
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Completes {@code target} with {@code value}, or exceptionally with {@code failure} when it is non-null (the
     * pair a {@code whenComplete} callback receives). A no-op when {@code target} is already done.
     *
     * @param target the future to complete
     * @param value the value, used when {@code failure} is null (may be null)
     * @param failure the failure, or null
     * @param <T> the value type
     */
    public static <T> void complete(CompletableFuture<T> target, T value, Throwable failure) {
        if (failure != null) {
            target.completeExceptionally(failure);
        } else {
            target.complete(value);
        }
    }

    /**
     * Runs {@code task} on {@code executor}, or on the calling thread when the executor rejects it or throws (a
     * pool after shutdown, a Netty event loop shutting down, an executor breaking its contract), so a completion is
     * never lost because its executor went away.
     *
     * @param executor the executor
     * @param task the task
     * @throws NullPointerException if an argument is null
     */
    public static void runOn(Executor executor, Runnable task) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(task, "task");
        try {
            executor.execute(task);
        } catch (RuntimeException e) { // RejectedExecutionException, or an executor breaking its contract
            task.run();
        }
    }

    /**
     * A future completed like {@code source} but on {@code executor} ({@link #runOn}: on the completing thread if
     * the executor refuses).
     *
     * @param source the stage to follow
     * @param executor where the returned future completes
     * @param <T> the value type
     * @return a new future
     */
    public static <T> CompletableFuture<T> completeOn(CompletionStage<T> source, Executor executor) {
        CompletableFuture<T> target = new CompletableFuture<>();
        source.whenComplete((value, failure) -> runOn(executor, () -> complete(target, value, failure)));
        return target;
    }
}
