package io.gridlimit.micronaut.filter;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.MutableHttpResponse;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A one-response {@link Publisher} for a server filter that decides asynchronously: when the decision completes
 * with a response, that response is emitted (the request goes no further); when it completes with null, the
 * downstream chain is subscribed to and its response is emitted after {@code decorate} (which adds headers).
 * Nothing happens before the first {@code request(n)}; nothing blocks. Follows the Reactive Streams rules for a
 * single-element publisher.
 */
final class DeferredResponse implements Publisher<MutableHttpResponse<?>> {
    private final CompletableFuture<@Nullable MutableHttpResponse<?>> decision;
    private final Supplier<Publisher<MutableHttpResponse<?>>> proceed;
    private final Function<MutableHttpResponse<?>, MutableHttpResponse<?>> decorate;

    /**
     * @param decision completes with the response to answer, or with null to proceed
     * @param proceed the downstream chain, subscribed to at most once
     * @param decorate applied to the downstream response
     */
    DeferredResponse(CompletableFuture<@Nullable MutableHttpResponse<?>> decision,
                     Supplier<Publisher<MutableHttpResponse<?>>> proceed,
                     Function<MutableHttpResponse<?>, MutableHttpResponse<?>> decorate) {
        this.decision = decision;
        this.proceed = proceed;
        this.decorate = decorate;
    }

    @Override
    public void subscribe(Subscriber<? super MutableHttpResponse<?>> subscriber) {
        subscriber.onSubscribe(new DeferredSubscription(subscriber));
    }

    private final class DeferredSubscription implements Subscription {
        private final Subscriber<? super MutableHttpResponse<?>> downstream;
        private final AtomicBoolean started = new AtomicBoolean();
        private volatile boolean cancelled;
        private volatile Subscription upstream;

        DeferredSubscription(Subscriber<? super MutableHttpResponse<?>> downstream) {
            this.downstream = downstream;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                cancelled = true;
                downstream.onError(new IllegalArgumentException("§3.9: request(" + n + ")"));
                return;
            }
            Subscription up = upstream;
            if (up != null) {
                up.request(n);
                return;
            }
            if (!started.compareAndSet(false, true)) {
                return;
            }
            decision.whenComplete((response, error) -> {
                if (cancelled) {
                    return;
                }
                if (error != null) {
                    downstream.onError(error);
                } else if (response != null) {
                    downstream.onNext(response);
                    downstream.onComplete();
                } else {
                    subscribeDownstreamChain();
                }
            });
        }

        private void subscribeDownstreamChain() {
            Publisher<MutableHttpResponse<?>> chain;
            try {
                chain = proceed.get();
            } catch (RuntimeException e) {
                downstream.onError(e);
                return;
            }
            chain.subscribe(new Subscriber<MutableHttpResponse<?>>() {
                @Override
                public void onSubscribe(Subscription s) {
                    upstream = s;
                    if (cancelled) {
                        s.cancel();
                    } else {
                        s.request(Long.MAX_VALUE);
                    }
                }

                @Override
                public void onNext(MutableHttpResponse<?> response) {
                    downstream.onNext(decorate.apply(response));
                }

                @Override
                public void onError(Throwable t) {
                    downstream.onError(t);
                }

                @Override
                public void onComplete() {
                    downstream.onComplete();
                }
            });
        }

        @Override
        public void cancel() {
            cancelled = true;
            Subscription up = upstream;
            if (up != null) {
                up.cancel();
            }
        }
    }
}
