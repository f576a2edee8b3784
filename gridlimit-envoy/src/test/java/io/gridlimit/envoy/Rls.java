package io.gridlimit.envoy;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.time.ManualTimeSource;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micronaut.context.ApplicationContext;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An Envoy-style client for the tests: Envoy's own generated stubs ({@code RateLimitServiceGrpc}) over a plaintext
 * channel to a service started in an {@link ApplicationContext} on free ports.
 */
final class Rls implements AutoCloseable {
    final ApplicationContext context;
    final ManagedChannel channel;
    final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;

    private Rls(ApplicationContext context, int port) {
        this.context = context;
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        this.stub = RateLimitServiceGrpc.newBlockingStub(channel);
    }

    /** The properties of a service with its own member, manual clock and the given config files. */
    static Map<String, Object> properties(String clusterPrefix, String... files) {
        Map<String, Object> p = new LinkedHashMap<>(Ports.ownMember(clusterPrefix));
        p.put("gridlimit-test.manual-clock", "true");
        p.put("gridlimit.envoy-rls.enabled", "true");
        p.put("gridlimit.envoy-rls.port", Integer.toString(Ports.freePort()));
        p.put("gridlimit.envoy-rls.config-files", List.of(files).stream().map(Rls::file).toList());
        p.put("gridlimit.headers", "ietf");
        p.put("gridlimit.grid-timeout", "5s");
        return p;
    }

    /** @return the path of a file in src/test/resources/rls, or {@code name} itself when it is a path */
    static String file(String name) {
        return name.contains("/") ? name : Path.of("src/test/resources/rls", name).toAbsolutePath().toString();
    }

    static Rls start(Map<String, Object> properties) {
        ApplicationContext c = ApplicationContext.run(properties);
        return new Rls(c, Integer.parseInt(String.valueOf(properties.get("gridlimit.envoy-rls.port"))));
    }

    /** A client of a context started by the test; closing it closes the context too. */
    static Rls client(ApplicationContext context, int port) {
        return new Rls(context, port);
    }

    /** One descriptor from alternating keys and values: {@code d("database", "users")}. */
    static RateLimitDescriptor d(String... keyValues) {
        RateLimitDescriptor.Builder b = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < keyValues.length; i += 2) {
            b.addEntriesBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]);
        }
        return b.build();
    }

    /** A descriptor with its own hits_addend. */
    static RateLimitDescriptor d(long hits, String... keyValues) {
        return d(keyValues).toBuilder().setHitsAddend(UInt64Value.of(hits)).build();
    }

    /** A descriptor with a per-request limit override ({@code RateLimitDescriptor.limit}, Envoy's limit action). */
    static RateLimitDescriptor override(RateLimitDescriptor d, int requestsPerUnit, RateLimitUnit unit) {
        return d.toBuilder().setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder()
                .setRequestsPerUnit(requestsPerUnit).setUnit(unit)).build();
    }

    RateLimitResponse call(String domain, RateLimitDescriptor... descriptors) {
        return call(domain, 0, descriptors);
    }

    RateLimitResponse call(String domain, int hitsAddend, RateLimitDescriptor... descriptors) {
        return stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(RateLimitRequest.newBuilder()
                .setDomain(domain).addAllDescriptors(List.of(descriptors)).setHitsAddend(hitsAddend).build());
    }

    /**
     * Calls {@code times} times.
     *
     * @return "OVERALL [statuses]" of each call ({@link #statuses}), in call order
     */
    List<String> sequence(int times, String domain, RateLimitDescriptor... descriptors) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            RateLimitResponse r = call(domain, descriptors);
            out.add(r.getOverallCode() + " " + statuses(r));
        }
        return out;
    }

    /** Moves a test's manual clock to the next midnight (UTC), the start of every unit's window. */
    static void nextMidnight(ManualTimeSource clock) {
        long day = Duration.ofDays(1).toNanos();
        clock.setNanos((clock.peekNanos() / day + 1) * day);
    }

    /** @return the response headers to add, by name */
    static Map<String, String> headers(RateLimitResponse r) {
        Map<String, String> h = new LinkedHashMap<>();
        for (HeaderValue v : r.getResponseHeadersToAddList()) {
            h.put(v.getKey(), v.getValue());
        }
        return h;
    }

    /** @return "CODE remaining" of each status, e.g. {@code [OK 4, OVER_LIMIT 0]} */
    static List<String> statuses(RateLimitResponse r) {
        return r.getStatusesList().stream().map(s -> s.getCode() + " " + Integer.toUnsignedLong(s.getLimitRemaining())
                + (s.hasCurrentLimit() ? "/" + s.getCurrentLimit().getRequestsPerUnit() + " per "
                + s.getCurrentLimit().getUnit() : "")).toList();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        context.close();
    }
}
