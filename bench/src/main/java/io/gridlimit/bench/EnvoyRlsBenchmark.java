package io.gridlimit.bench;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.RoutingMode;
import com.hazelcast.core.HazelcastInstance;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One decision three ways against the same GridLimit service processes, in the same run (docs/SPEC.md §12): Envoy's
 * {@code ShouldRateLimit} over gRPC (Envoy's own generated stubs, one HTTP/2 channel per service), the HTTP decision
 * API ({@code POST /v1/ratelimit/check}, the JDK's HTTP/1.1 client) and the Java API ({@link HazelcastRateLimiter}
 * on a Hazelcast smart client of the services' members). Each path carries one hop from this JVM to a service
 * process and decides one token bucket of 4 294 967 295 per second (it never denies, so every decision writes) over
 * {@value BenchKeys#COUNT} uniform keys, cost 1, with {@value GridFloorBenchmark#THREADS} caller threads keeping at
 * most {@value InFlight#PERMITS} decisions in flight each.
 *
 * <p>{@code members=1}: one service JVM (one embedded member); {@code members=3}: three service JVMs forming one
 * cluster, calls spread over them at random (as a load balancer would). The service jar is
 * {@code micronaut-app/target<suffix>/micronaut-app-0.1.0-SNAPSHOT-all.jar}, or {@code -Dgridlimit.serviceJar}.
 * Run (bench/envoy.sh does all of it):
 * <pre>{@code
 * mvn -q -B -DskipTests -pl bench,micronaut-app -am package
 * java -jar bench/target/benchmarks.jar EnvoyRlsBenchmark -f 1 -wi 3 -w 3s -i 3 -r 3s
 * }</pre>
 * The load, the services and the grid share this machine's cores: the figures compare the paths with each other,
 * not with a dedicated deployment.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class EnvoyRlsBenchmark {
    /** Service JVMs, each one embedded member. */
    @Param({"1", "3"})
    public int members;

    private static final String POLICY = "bench-rls";
    private static final long HUGE = 4_294_967_295L;

    private final List<Process> services = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<RateLimitServiceGrpc.RateLimitServiceFutureStub> stubs = new ArrayList<>();
    private final List<URI> checkUris = new ArrayList<>();
    private HttpClient http;
    private HazelcastInstance client;
    private HazelcastRateLimiter limiter;
    private Policy policy;
    private Path work;

    /**
     * Starts the service JVMs, waits until each is ready, and connects the three clients.
     *
     * @throws Exception when a service does not start
     */
    @Setup(Level.Trial)
    public void start() throws Exception {
        work = Files.createTempDirectory("gridlimit-envoy-bench");
        Path rules = work.resolve("bench.yaml");
        Files.writeString(rules, "domain: bench\ndescriptors:\n  - key: ip\n    rate_limit:\n      unit: second\n"
                + "      requests_per_unit: " + HUGE + "\n      gridlimit: {algorithm: token-bucket}\n");
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            ports.add(new int[] {freePort(), freePort(), freePort(), freePort()}); // member, http, internal, grpc
        }
        StringBuilder memberList = new StringBuilder();
        for (int[] p : ports) {
            memberList.append(memberList.length() == 0 ? "" : ",").append("127.0.0.1:").append(p[0]);
        }
        String cluster = "bench-envoy-" + ports.get(0)[0];
        String jar = System.getProperty("gridlimit.serviceJar", "micronaut-app/target"
                + System.getProperty("gridlimit.buildSuffix", "") + "/micronaut-app-0.1.0-SNAPSHOT-all.jar");
        for (int i = 0; i < members; i++) {
            int[] p = ports.get(i);
            List<String> command = List.of("java", "-Xmx768m",
                    "-Dgridlimit.hazelcast.port=" + p[0], "-Dgridlimit.hazelcast.members=" + memberList,
                    "-Dgridlimit.hazelcast.cluster-name=" + cluster, "-Dgridlimit.grid-timeout=1s",
                    "-Dmicronaut.server.port=" + p[1], "-Dgridlimit.decision-api.port=" + p[2],
                    "-Dgridlimit.policies." + POLICY + ".algorithm=token-bucket",
                    "-Dgridlimit.policies." + POLICY + ".capacity=" + HUGE,
                    "-Dgridlimit.policies." + POLICY + ".refill-tokens=" + HUGE,
                    "-Dgridlimit.policies." + POLICY + ".refill-period=1s",
                    "-Dgridlimit.envoy-rls.enabled=true", "-Dgridlimit.envoy-rls.port=" + p[3],
                    "-Dgridlimit.envoy-rls.config-files=" + rules, "-jar", jar);
            services.add(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(work.resolve("service-" + i + ".log").toFile()).start());
        }
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .build();
        for (int[] p : ports) {
            awaitReady(URI.create("http://127.0.0.1:" + p[2] + "/health/readiness"));
            checkUris.add(URI.create("http://127.0.0.1:" + p[2] + "/v1/ratelimit/check"));
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", p[3]).usePlaintext().build();
            channels.add(channel);
            stubs.add(RateLimitServiceGrpc.newFutureStub(channel));
        }
        ClientConfig config = new ClientConfig();
        config.setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        for (int[] p : ports) {
            config.getNetworkConfig().addAddress("127.0.0.1:" + p[0]);
        }
        config.getNetworkConfig().getClusterRoutingConfig().setRoutingMode(RoutingMode.ALL_MEMBERS);
        client = HazelcastClient.newHazelcastClient(GridLimitHazelcast.configure(config));
        limiter = HazelcastRateLimiter.create(client);
        policy = Policy.builder(POLICY).tokenBucket(HUGE, HUGE, Duration.ofSeconds(1)).build();
    }

    private void awaitReady(URI readiness) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            for (Process s : services) {
                if (!s.isAlive()) {
                    throw new IllegalStateException("a service JVM exited; see " + work);
                }
            }
            try {
                if (http.send(HttpRequest.newBuilder(readiness).GET().build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("service not ready within 120 s: " + readiness + "; logs in " + work);
    }

    /** Stops the clients and the service JVMs. */
    @TearDown(Level.Trial)
    public void stop() {
        channels.forEach(ManagedChannel::shutdownNow);
        if (limiter != null) {
            limiter.close();
        }
        if (client != null) {
            client.shutdown();
        }
        for (Process s : services) {
            s.destroy();
        }
        for (Process s : services) {
            try {
                if (!s.waitFor(30, TimeUnit.SECONDS)) {
                    s.destroyForcibly();
                }
            } catch (InterruptedException e) {
                s.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private int service() {
        return members == 1 ? 0 : ThreadLocalRandom.current().nextInt(members);
    }

    /**
     * Envoy's {@code ShouldRateLimit}: one descriptor {@code (ip, <key>)}, cost 1; fails unless the answer is OK.
     *
     * @param inFlight this thread's permits
     * @return the pending answer
     */
    @Benchmark
    public CompletionStage<RateLimitResponse> shouldRateLimit(InFlight inFlight) {
        inFlight.acquire();
        try {
            RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("bench")
                    .addDescriptors(RateLimitDescriptor.newBuilder().addEntries(RateLimitDescriptor.Entry.newBuilder()
                            .setKey("ip").setValue(BenchKeys.next()))).build();
            CompletableFuture<RateLimitResponse> answer = new CompletableFuture<>();
            Futures.addCallback(stubs.get(service()).shouldRateLimit(request), new FutureCallback<>() {
                @Override
                public void onSuccess(RateLimitResponse r) {
                    if (r.getOverallCode() == RateLimitResponse.Code.OK) {
                        answer.complete(r);
                    } else {
                        answer.completeExceptionally(new IllegalStateException("not OK: " + r.getOverallCode()));
                    }
                }

                @Override
                public void onFailure(Throwable t) {
                    answer.completeExceptionally(t);
                }
            }, MoreExecutors.directExecutor());
            return inFlight.track(answer);
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * The HTTP decision API: {@code POST /v1/ratelimit/check}, cost 1; fails unless the answer is 200.
     *
     * @param inFlight this thread's permits
     * @return the pending answer
     */
    @Benchmark
    public CompletionStage<Integer> decisionApi(InFlight inFlight) {
        inFlight.acquire();
        try {
            HttpRequest request = HttpRequest.newBuilder(checkUris.get(service()))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"policy\":\"" + POLICY + "\",\"key\":\""
                            + BenchKeys.next() + "\",\"cost\":1}")).build();
            return inFlight.track(http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(r -> {
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("HTTP " + r.statusCode());
                }
                return r.statusCode();
            }));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    /**
     * The Java API on a Hazelcast client of the services' members: {@code tryAcquireAsync}, cost 1.
     *
     * @param inFlight this thread's permits
     * @return the pending decision
     */
    @Benchmark
    public CompletionStage<Decision> javaApi(InFlight inFlight) {
        inFlight.acquire();
        try {
            return inFlight.track(limiter.tryAcquireAsync(policy, BenchKeys.next(), 1));
        } catch (RuntimeException e) {
            inFlight.release();
            throw e;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
