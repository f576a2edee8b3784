package io.gridlimit.bench.http;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.FilterContinuation;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;

/**
 * {@code bench/http-skewed.sh}'s {@code grid-floor} mode (issue 22 item 4): the least any grid limiter must do per
 * request at the HTTP door, measured on the same app, member and requests as the other modes. On the Netty event
 * loop, with no thread hop: the client key as {@link Bucket4jLimiter#clientKey} takes it, one asynchronous
 * {@code submitToKey} of {@link GridFloorProcessor} (a small fixed state with a TTL) on the map {@value #MAP}, and the
 * downstream chain subscribed to when it completes, so the response is written then. No policy, algorithm, headers
 * or 429: whatever GridLimit's filter costs above this mode is the door's own work. On with
 * {@code bench.grid-floor.enabled: true} (the library's route is then exempt).
 */
@ServerFilter("/hello")
@Requires(property = "bench.grid-floor.enabled", value = StringUtils.TRUE)
public class GridFloorFilter {
    /** The map the floor writes to. */
    public static final String MAP = "grid-floor.http";

    private final IMap<String, Long> map;

    /** @param hazelcast the application's embedded member */
    public GridFloorFilter(HazelcastInstance hazelcast) {
        this.map = hazelcast.getMap(MAP);
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
        return subscriber -> map.submitToKey(key, GridFloorProcessor.INSTANCE).whenComplete((done, error) -> {
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
        });
    }
}
