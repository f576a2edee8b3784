package io.gridlimit.grid.async;

import io.gridlimit.internal.Futures;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * An {@link Executor} that never rejects: when the wrapped executor throws {@link RejectedExecutionException}
 * (a pool after shutdown, a Netty event loop shutting down) or any other runtime exception (an executor breaking
 * its contract), the task runs on the submitting thread instead ({@link Futures#runOn}). Used
 * for every executor a decision's completion is handed to, so that no stage is ever left incomplete because its
 * executor went away. Thread-safe if the wrapped executor is.
 */
final class NeverRejectingExecutor implements Executor {
    private final Executor delegate;

    private NeverRejectingExecutor(Executor delegate) {
        this.delegate = delegate;
    }

    /**
     * @param executor the executor to wrap
     * @return {@code executor} itself when it already never rejects, else a wrapper
     * @throws NullPointerException if {@code executor} is null
     */
    static Executor of(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return executor instanceof NeverRejectingExecutor ? executor : new NeverRejectingExecutor(executor);
    }

    @Override
    public void execute(Runnable command) {
        Futures.runOn(delegate, command);
    }
}
