package io.gridlimit.micronaut.filter;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.api.Settlement;
import io.gridlimit.micronaut.decide.Decisions;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.context.ServerRequestContext;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * States the actual cost of the current request once its handler knows it (docs/SPEC.md §10): tokens of a
 * language-model answer, bytes streamed, rows scanned. Every rule that admitted the request took its configured
 * {@code cost} as a reservation; {@link #settle(HttpRequest, long)} settles each of them to {@code actual}: what
 * was reserved but not used is given back, what exceeds it is charged (a debt up to the policy's
 * {@code max-debt}). Call it any time while the request's reservations hold, before or after the response is
 * written, streamed responses included; a handler that cannot call it may instead set the response header
 * {@value #ACTUAL_COST_HEADER} (a decimal integer), which the filter strips and settles with. Without a settle (the
 * response failed, the client went away), the reserved cost stands.
 *
 * <pre>{@code
 * @Post("/complete")
 * Publisher<String> complete(HttpRequest<?> request, @Body Prompt prompt) {
 *     return model.stream(prompt).doOnComplete(usage -> cost.settle(request, usage.totalTokens()));
 * }
 * }</pre>
 *
 * Thread-safe.
 */
@Singleton
public class RateLimitCost {
    /** The response header a handler may set to state the actual cost; the filter removes it from the response. */
    public static final String ACTUAL_COST_HEADER = "GridLimit-Actual-Cost";
    /** The request attribute holding the request's reservations. */
    static final String ATTRIBUTE = RateLimitCost.class.getName() + ".reservations";

    /** The bean: settles through the request's {@link io.gridlimit.micronaut.decide.Decisions}. */
    public RateLimitCost() {
    }

    /** The reservations of one admitted request, settled at most once. */
    static final class Held {
        private final Decisions decisions;
        private final AtomicBoolean settled = new AtomicBoolean();

        Held(Decisions decisions) {
            this.decisions = decisions;
        }

        boolean claim() {
            return settled.compareAndSet(false, true);
        }
    }

    /**
     * Settles the request's reservations to its actual cost.
     *
     * @param request the request (its rate-limit filter stored the reservations on it)
     * @param actual the actual cost, in [0, 10^15], in the units of the routes' {@code cost}
     * @return a stage completed with one settlement per rule that admitted the request (empty when none took a
     *     reservation), or exceptionally when the grid fails (retrying the whole request's settle is not possible:
     *     each reservation is settled once; use {@link io.gridlimit.api.RateLimiter#settleAsync} to retry)
     * @throws IllegalArgumentException if {@code actual} is out of range
     * @throws IllegalStateException if the request was not admitted by the rate-limit filter, or was settled
     *     already
     * @throws NullPointerException if {@code request} is null
     */
    public CompletionStage<List<Settlement>> settle(HttpRequest<?> request, long actual) {
        Objects.requireNonNull(request, "request");
        RateLimiter.checkActual(actual);
        Held held = request.getAttribute(ATTRIBUTE, Held.class).orElseThrow(() -> new IllegalStateException(
                "the request holds no rate-limit reservation: no rule of gridlimit.routes admitted it"));
        if (!held.claim()) {
            throw new IllegalStateException("the request's actual cost was stated already");
        }
        return settle(held, actual);
    }

    /**
     * {@link #settle(HttpRequest, long)} for the request the calling thread serves
     * ({@link ServerRequestContext#currentRequest()}).
     *
     * @param actual the actual cost, in [0, 10^15]
     * @return as {@link #settle(HttpRequest, long)}
     * @throws IllegalStateException if there is no current request, or as {@link #settle(HttpRequest, long)}
     * @throws IllegalArgumentException if {@code actual} is out of range
     */
    public CompletionStage<List<Settlement>> settle(long actual) {
        HttpRequest<?> request = ServerRequestContext.currentRequest().orElseThrow(() ->
                new IllegalStateException("no current request on this thread: pass the request"));
        return settle(request, actual);
    }

    static CompletionStage<List<Settlement>> settle(Held held, long actual) {
        List<CompletableFuture<Settlement>> stages = held.decisions.settle(actual);
        return CompletableFuture.allOf(stages.toArray(new CompletableFuture<?>[0]))
                .thenApply(ignored -> stages.stream().map(CompletableFuture::join).toList());
    }
}
