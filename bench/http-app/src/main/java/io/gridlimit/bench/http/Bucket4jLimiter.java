package io.gridlimit.bench.http;

import com.hazelcast.core.HazelcastInstance;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.util.StringUtils;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The peer of {@code bench/http-skewed.sh}'s {@code bucket4j} modes: {@code GET /hello} limited the way a Micronaut
 * user would limit it with Bucket4j 8.14.0's Hazelcast integration instead of GridLimit. One bucket per client IP in
 * the map {@value #MAP} of the application's one embedded Hazelcast member (the {@link HazelcastInstance} bean, with
 * Bucket4j's custom serializers registered, {@code io.gridlimit.micronaut.grid.BenchGridFactory}), built through an
 * EntryProcessor-based {@link HazelcastProxyManager} whose entries expire after the time to refill plus 1 s (as in
 * every Bucket4j row of the bench). Bandwidth: capacity {@value #CAPACITY}, greedy refill of {@value #CAPACITY} per
 * second, equal to the library's {@code bench-skewed} token bucket.
 *
 * <p>Each request asks {@code tryConsumeAndReturnRemaining(1)} (Bucket4j's documented HTTP pattern) synchronously,
 * on the thread of the filter that calls it: {@link Bucket4jFilter} (the measured {@code bucket4j} mode) runs on
 * Micronaut's blocking executor, {@link Bucket4jEventLoopFilter} on the Netty event loop. (Bucket4j's asynchronous
 * proxies complete through Hazelcast's default executor, which on 2 CPUs starts a new thread per completion: 1.5 k
 * decisions/s in {@code Bucket4jBenchmark.tryConsumeAsync}, so a user on this machine would not pick them.) A denial
 * answers 429 with {@code Retry-After} in whole seconds, rounded up.
 *
 * <p>Key: {@code ip:} and the client address, taken as GridLimit takes it with {@code trusted-proxies:
 * [127.0.0.1/32]}: from a peer at 127.0.0.1, the last address of {@code X-Forwarded-For}; otherwise the peer's
 * address. Present only with {@code bench.bucket4j.enabled: true}.
 */
@Singleton
@Requires(property = "bench.bucket4j.enabled", value = StringUtils.TRUE)
public class Bucket4jLimiter {
    /** The map holding Bucket4j's buckets. */
    public static final String MAP = "bucket4j.http";
    /** Capacity of every bucket, and tokens refilled per second. */
    public static final long CAPACITY = 1_000;

    private static final String TRUSTED_PROXY = "127.0.0.1";
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final HazelcastProxyManager<String> buckets;
    private final Supplier<BucketConfiguration> configuration;

    /** @param hazelcast the application's embedded member */
    public Bucket4jLimiter(HazelcastInstance hazelcast) {
        this.buckets = Bucket4jHazelcast.entryProcessorBasedBuilder(hazelcast.<String, byte[]>getMap(MAP))
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        BucketConfiguration bandwidth = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(CAPACITY).refillGreedy(CAPACITY, Duration.ofSeconds(1)))
                .build();
        this.configuration = () -> bandwidth;
    }

    /**
     * Takes one token from the client's bucket, waiting for the member's answer on the calling thread.
     *
     * @param request the request
     * @return null to let the request through, or a 429 response
     */
    @Nullable
    public HttpResponse<?> limit(HttpRequest<?> request) {
        ConsumptionProbe probe = buckets.builder().build(clientKey(request), configuration)
                .tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            return null;
        }
        long seconds = (probe.getNanosToWaitForRefill() + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
        return HttpResponse.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", Long.toString(seconds));
    }

    /**
     * @param request the request
     * @return {@code ip:} and the client address: the last {@code X-Forwarded-For} entry from the trusted proxy
     */
    static String clientKey(HttpRequest<?> request) {
        InetSocketAddress peer = request.getRemoteAddress();
        String peerAddress = peer.getAddress() == null ? peer.getHostString() : peer.getAddress().getHostAddress();
        String forwarded = request.getHeaders().get("X-Forwarded-For");
        if (forwarded == null || !TRUSTED_PROXY.equals(peerAddress)) {
            return "ip:" + peerAddress;
        }
        int comma = forwarded.lastIndexOf(',');
        String last = (comma < 0 ? forwarded : forwarded.substring(comma + 1)).trim();
        return "ip:" + (last.isEmpty() ? peerAddress : last);
    }
}
