package io.gridlimit.bench.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/**
 * {@code bench/http-skewed.sh}'s {@code bucket4j} mode: {@link Bucket4jLimiter} on Micronaut's blocking executor
 * ({@code @ExecuteOn(TaskExecutors.BLOCKING)}), as Micronaut's documentation asks of a filter method that blocks, so
 * the Netty event loop never waits for the grid. On with {@code bench.bucket4j.enabled: true} and
 * {@code bench.bucket4j.thread} unset or {@code blocking}.
 */
@ServerFilter("/hello")
@Requires(property = "bench.bucket4j.enabled", value = StringUtils.TRUE)
@Requires(property = "bench.bucket4j.thread", value = "blocking", defaultValue = "blocking")
public class Bucket4jFilter {
    private final Bucket4jLimiter limiter;

    /** @param limiter the buckets */
    public Bucket4jFilter(Bucket4jLimiter limiter) {
        this.limiter = limiter;
    }

    /**
     * @param request the request
     * @return null to let the request through, or a 429 response
     */
    @RequestFilter
    @ExecuteOn(TaskExecutors.BLOCKING)
    @Nullable
    public HttpResponse<?> limit(HttpRequest<?> request) {
        return limiter.limit(request);
    }
}
