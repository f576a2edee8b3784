package io.gridlimit.bench.http;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import com.hazelcast.spi.impl.InternalCompletableFuture;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.FilterContinuation;
import io.micronaut.http.server.netty.NettyHttpRequest;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;

import java.util.concurrent.Executor;

/**
 * {@code bench/http-skewed.sh}'s {@code grid-floor} mode (issue 22 item 4): the least any grid limiter must do per
 * request at the HTTP door, measured on the same app, member and requests as the other modes. On the Netty event
 * loop, with no thread hop: the client key as {@link Bucket4jLimiter#clientKey} takes it, one asynchronous
 * {@code submitToKey}-style invocation of {@link GridFloorProcessor} (a small fixed state with a TTL) on the map
 * {@value #MAP}, and the downstream chain subscribed to when it completes, so the response is written then. The
 * invocation is the member proxy's {@code executeOnKeyInternal}, whose invocation future runs the one callback on
 * the request's event loop: the public {@code submitToKey} would add Hazelcast's default async executor, which on
 * 2 CPUs starts a new thread per call (grid-core's {@code AsyncSubmitter} avoids it the same way), and a floor that
 * pays that hop is no floor. No policy, algorithm, headers
 * or 429: whatever GridLimit's filter costs above this mode is the door's own work. On with
 * {@code bench.grid-floor.enabled: true} (the library's route is then exempt).
 */
@ServerFilter("/hello")
@Requires(property = "bench.grid-floor.enabled", value = StringUtils.TRUE)
public class GridFloorFilter {
    /** The map the floor writes to. */
    public static final String MAP = "grid-floor.http";

    private final MapProxyImpl<String, Long> map;

    /**
     * @param hazelcast the application's embedded member
     * @throws IllegalStateException if its map is not the member proxy (the floor is measured on an embedded member)
     */
    public GridFloorFilter(HazelcastInstance hazelcast) {
        if (!(hazelcast.getMap(MAP) instanceof MapProxyImpl<?, ?> proxy)) {
            throw new IllegalStateException("the grid floor needs an embedded member's map proxy");
        }
        @SuppressWarnings("unchecked")
        MapProxyImpl<String, Long> typed = (MapProxyImpl<String, Long>) proxy;
        this.map = typed;
    }

    /**
     * @param request the request
     * @param chain the downstream chain, subscribed to once the write has completed
     * @return the downstream response, after the write; the write's failure as an error signal (Micronaut's 500)
     */
    @RequestFilter
    public Publisher<MutableHttpResponse<?>> floor(HttpRequest<?> request,
                                                  FilterContinuation<Publisher<MutableHttpResponse<?>>> chain) {
        String key = Bucket4jLimiter.clientKey(request);
        Executor loop = request instanceof NettyHttpRequest<?> netty
                ? netty.getChannelHandlerContext().channel().eventLoop() : Runnable::run;
        return subscriber -> {
            InternalCompletableFuture<Data> written = map.executeOnKeyInternal(key, GridFloorProcessor.INSTANCE);
            written.whenCompleteAsync((done, error) -> {
                if (error == null) {
                    chain.proceed().subscribe(subscriber);
                } else {
                    subscriber.onSubscribe(new Subscription() {
                        @Override
                        public void request(long n) {
                            // nothing to emit
                        }

                        @Override
                        public void cancel() {
                            // nothing to stop
                        }
                    });
                    subscriber.onError(error);
                }
            }, loop);
        };
    }
}
