package io.gridlimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** {@link Futures}: unwrapping, completion from a pair, and completion on an executor that may refuse. */
class FuturesTest {

    @Test
    void unwrapRemovesEveryNestedWrapperAndKeepsACauselessOne() {
        TimeoutException cause = new TimeoutException();
        assertThat(Futures.unwrap(new CompletionException(new ExecutionException(cause)))).isSameAs(cause);
        assertThat(Futures.unwrap(cause)).isSameAs(cause);
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Futures.unwrap(bare)).isSameAs(bare);
    }

    @Test
    void completeOnRunsOnTheExecutorOrInPlaceWhenItRefusesOrThrows() {
        List<Runnable> queued = new ArrayList<>();
        CompletableFuture<String> source = new CompletableFuture<>();
        CompletableFuture<String> onQueue = Futures.completeOn(source, queued::add);
        Executor refusing = task -> {
            throw new RejectedExecutionException("shut down");
        };
        CompletableFuture<String> inPlace = Futures.completeOn(source, refusing);
        Executor broken = task -> {
            throw new IllegalStateException("broken");
        };
        CompletableFuture<String> inPlaceToo = Futures.completeOn(source, broken);
        source.complete("v");
        assertThat(inPlace).isCompletedWithValue("v");
        assertThat(inPlaceToo).isCompletedWithValue("v");
        assertThat(onQueue).as("waits for its executor").isNotDone();
        assertThat(queued).hasSize(1);
        queued.get(0).run();
        assertThat(onQueue).isCompletedWithValue("v");

        CompletableFuture<String> failed = new CompletableFuture<>();
        CompletableFuture<String> follows = Futures.completeOn(failed, Runnable::run);
        IllegalStateException boom = new IllegalStateException("boom");
        failed.completeExceptionally(boom);
        assertThat(follows).isCompletedExceptionally();
        assertThat(follows.handle((v, e) -> Futures.unwrap(e)).join()).isSameAs(boom);
    }
}
