package io.gridlimit.bench.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * {@code bench/http-skewed.sh}'s optional {@code bucket4j-event-loop} mode: {@link Bucket4jLimiter} called on the
 * Netty event loop, which then waits for the member's answer (what a user gets who calls {@code tryConsume} in a
 * filter without {@code @ExecuteOn}; GridLimit's invariant 6 forbids it for the library). On with
 * {@code bench.bucket4j.enabled: true} and {@code bench.bucket4j.thread: event-loop}.
 */
@ServerFilter("/hello")
@Requires(property = "bench.bucket4j.enabled", value = StringUtils.TRUE)
@Requires(property = "bench.bucket4j.thread", value = "event-loop")
public class Bucket4jEventLoopFilter {
    private final Bucket4jLimiter limiter;

    /** @param limiter the buckets */
    public Bucket4jEventLoopFilter(Bucket4jLimiter limiter) {
        this.limiter = limiter;
    }

    /**
     * @param request the request
     * @return null to let the request through, or a 429 response
     */
    @RequestFilter
    @Nullable
    public HttpResponse<?> limit(HttpRequest<?> request) {
        return limiter.limit(request);
    }
}
