package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.gridlimit.time.ManualTimeSource;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.headers;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ShouldRateLimit attacked as a hostile Envoy client would, over real gRPC with Envoy's generated stubs, against one
 * embedded member on a manual clock (every test starts at a fresh UTC midnight, so every day window is fresh):
 * request-size limits, huge and separator-laden values, extreme costs, invalid UTF-8, parallel callers on one key
 * (never admitted beyond the limit, exact totals), unknown domains by the thousand (no metric tag, no log of a
 * raw value), and answers that never echo a raw key or value (docs/SPEC.md §12).
 */
class EnvoyHostileClientTest {
    static Rls rls;
    static ManualTimeSource clock;

    @BeforeAll
    static void start() {
        rls = Rls.start(Rls.properties("envoy-hostile", "attack.yaml"));
        clock = rls.context.getBean(ManualTimeSource.class);
    }

    @AfterAll
    static void stop() {
        rls.close();
    }

    @BeforeEach
    void nextMidnight() {
        Rls.nextMidnight(clock);
    }

    private static RateLimitDescriptor[] users(int n) {
        RateLimitDescriptor[] out = new RateLimitDescriptor[n];
        for (int i = 0; i < n; i++) {
            out[i] = d("user", "u" + i);
        }
        return out;
    }

    @Test
    void requestSizeIsBoundedAndARefusedRequestDecidesNothing() {
        assertThatThrownBy(() -> rls.call("attack", users(5000))).hasMessage("INVALID_ARGUMENT: descriptors must "
                + "hold 1 to 100 descriptors, got 5000");
        assertThatThrownBy(() -> rls.call("attack", users(101))).hasMessage("INVALID_ARGUMENT: descriptors must "
                + "hold 1 to 100 descriptors, got 101");
        String[] wide = new String[2 * 65];
        for (int i = 0; i < 65; i++) {
            wide[2 * i] = "user";
            wide[2 * i + 1] = "w" + i;
        }
        assertThatThrownBy(() -> rls.call("attack", d("user", "u0"), d(wide))).hasMessage("INVALID_ARGUMENT: "
                + "descriptors[1].entries must hold 1 to 64 entries, got 65");
        // nothing of the refused requests was decided: u0 still has all 10
        assertThat(statuses(rls.call("attack", d("user", "u0")))).containsExactly("OK 9/10 per DAY");
        // at the bounds: 100 descriptors, each decided once
        RateLimitResponse r = rls.call("attack", users(100));
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(r)).hasSize(100).first().isEqualTo("OK 8/10 per DAY");
        assertThat(statuses(r).subList(1, 100)).containsOnly("OK 9/10 per DAY");
        // 64 entries select no rule (the domain nests two levels): OK, not limited
        assertThat(statuses(rls.call("attack", d(Arrays.copyOf(wide, 128))))).containsExactly("OK 0");
    }

    @Test
    void hugeKeysAndValuesAreLimitedByTheirHashAndNeverEchoed() {
        String huge = "v".repeat(100_000) + "\u00e9\ud83d\ude00"; // > 1024 UTF-8 bytes, a surrogate pair
        RateLimitResponse r = rls.call("attack", d(9, "user", huge));
        assertThat(statuses(r)).containsExactly("OK 1/10 per DAY");
        assertThat(statuses(rls.call("attack", d(2, "user", huge)))).containsExactly("OVER_LIMIT 1/10 per DAY");
        // one character less is another key
        assertThat(statuses(rls.call("attack", d(9, "user", huge.substring(1))))).containsExactly("OK 1/10 per DAY");
        RateLimitResponse over = rls.call("attack", d(2, "user", huge));
        assertThat(over.getRawBody().toStringUtf8()).doesNotContain("vvv");
        assertThat(headers(over).toString()).doesNotContain("vvv");
        assertThat(over.toString()).doesNotContain("vvv");
        // a huge key selects no rule
        assertThat(statuses(rls.call("attack", d("k".repeat(5000), "x")))).containsExactly("OK 0");
    }

    @Test
    void separatorsInsideValuesNeverMakeTwoDescriptorsShareACounter() {
        // (a, b) pairs whose concatenations with any separator coincide: each its own counter of 3
        List<String[]> pairs = List.of(new String[] {"a", "x", "b", "y"}, new String[] {"a", "x=b", "b", "y"},
                new String[] {"a", "x_b", "b", "y"}, new String[] {"a", "x", "b", "_y"},
                new String[] {"a", "x:1", "b", "y"}, new String[] {"a", "1:x", "b", "y"},
                new String[] {"a", "x/b=y", "b", ""}, new String[] {"a", "x\u0000b", "b", "y"});
        for (String[] p : pairs) {
            assertThat(statuses(rls.call("attack", d(3, p)))).as(String.join("|", p))
                    .containsExactly("OK 0/3 per DAY");
        }
        // an empty value is a value of its own, not "any"
        assertThat(statuses(rls.call("attack", d(10, "user", "")))).containsExactly("OK 0/10 per DAY");
        assertThat(statuses(rls.call("attack", d("user", "u-empty")))).containsExactly("OK 9/10 per DAY");
    }

    @Test
    void extremeCostsAreDecidedExactlyOrRefused() {
        // the request's uint32 maximum, 4294967295, is a cost that can never pass 10 per day
        RateLimitResponse r = rls.call("attack", -1, d("user", "c1"));
        assertThat(statuses(r)).containsExactly("OVER_LIMIT 10/10 per DAY");
        assertThat(headers(r)).doesNotContainKey("Retry-After");
        assertThat(statuses(rls.call("attack", d(1_000_000_000_000_000L, "user", "c1"))))
                .containsExactly("OVER_LIMIT 10/10 per DAY");
        assertThatThrownBy(() -> rls.call("attack", d(1_000_000_000_000_001L, "user", "c1")))
                .hasMessage("INVALID_ARGUMENT: descriptors[0].hits_addend must be in [0, 1000000000000000], got "
                        + "1000000000000001");
        assertThatThrownBy(() -> rls.call("attack", d(Long.MIN_VALUE, "user", "c1")))
                .hasMessage("INVALID_ARGUMENT: descriptors[0].hits_addend must be in [0, 1000000000000000], got "
                        + "9223372036854775808");
        // request 0 means 1, descriptor 1 is 1, descriptor 0 peeks
        assertThat(statuses(rls.call("attack", 0, d("user", "c1")))).containsExactly("OK 9/10 per DAY");
        assertThat(statuses(rls.call("attack", d(1, "user", "c1")))).containsExactly("OK 8/10 per DAY");
        assertThat(statuses(rls.call("attack", d(0, "user", "c1")))).containsExactly("OK 8/10 per DAY");
        assertThat(statuses(rls.call("attack", 8, d("user", "c1")))).containsExactly("OK 0/10 per DAY");
        assertThat(statuses(rls.call("attack", d(0, "user", "c1")))).containsExactly("OVER_LIMIT 0/10 per DAY");
    }

    @Test
    void invalidUtf8IsInvalidArgumentDecidesNothingAndLogsNothing() {
        byte[] bytes = RateLimitRequest.newBuilder().setDomain("attack").addDescriptors(d(10, "user", "XYZ"))
                .build().toByteArray();
        int at = indexOf(bytes, "XYZ".getBytes(StandardCharsets.US_ASCII));
        // a lone surrogate as CESU-8 (ED A0 80): not UTF-8; a Java client cannot even send one
        bytes[at] = (byte) 0xED;
        bytes[at + 1] = (byte) 0xA0;
        bytes[at + 2] = (byte) 0x80;
        MethodDescriptor<byte[], byte[]> raw = RateLimitServiceGrpc.getShouldRateLimitMethod()
                .toBuilder(BYTES, BYTES).build();
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler handler = warnings(logged);
        try {
            for (byte[] request : List.of(bytes, new byte[] {(byte) 0xFF, (byte) 0xFF, 0x01})) {
                // found by attack: grpc-java answered UNKNOWN and logged a SEVERE stack trace for each
                assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(rls.channel, raw,
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request))
                        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                            assertThat(e.getStatus().getDescription()).isEqualTo("the request is not a valid "
                                    + "RateLimitRequest (bad protobuf encoding, or a string that is not UTF-8)");
                        });
            }
        } finally {
            GRPC_LOG.removeHandler(handler);
        }
        assertThat(logged).isEmpty();
        // "?" and U+FFFD are what a lenient decoder would have made of it: nothing was decided under any key
        assertThat(statuses(rls.call("attack", d("user", "?")))).containsExactly("OK 9/10 per DAY");
        assertThat(statuses(rls.call("attack", d("user", "\ufffd")))).containsExactly("OK 9/10 per DAY");
    }

    @Test
    void parallelCallersOnOneKeyAreNeverAdmittedBeyondTheLimit() throws Exception {
        int callers = 48;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            for (long cost : new long[] {1, 3}) {
                String user = "hot-" + cost;
                CountDownLatch go = new CountDownLatch(1);
                List<CompletableFuture<RateLimitResponse>> calls = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    calls.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        return rls.call("attack", d(cost, "user", user));
                    }, pool));
                }
                go.countDown();
                long ok = 0;
                List<Long> remaining = new ArrayList<>();
                for (CompletableFuture<RateLimitResponse> c : calls) {
                    RateLimitResponse r = c.get(30, TimeUnit.SECONDS);
                    if (r.getOverallCode() == RateLimitResponse.Code.OK) {
                        ok++;
                        remaining.add(Integer.toUnsignedLong(r.getStatuses(0).getLimitRemaining()));
                    }
                }
                // 10 per day: cost 1 admits exactly 10 callers, cost 3 exactly 3 (9 taken, 1 left)
                long admitted = 10 / cost;
                assertThat(ok).as("cost " + cost).isEqualTo(admitted);
                List<Long> expected = new ArrayList<>();
                for (long i = 0; i < admitted; i++) {
                    expected.add(10 - (i + 1) * cost);
                }
                assertThat(remaining).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(statuses(rls.call("attack", d(0, "user", user))))
                        .containsExactly((10 % cost == 0 ? "OVER_LIMIT " : "OK ") + (10 % cost) + "/10 per DAY");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void oneKeyRepeatedInOneRequestIsNeverAdmittedBeyondItsLimit() {
        // 100 copies of one descriptor (10 per day), decided at once: OVER_LIMIT; exactly 10 copies were admitted,
        // and, the request being all-or-nothing (SPEC §12), all 10 are given back: a peek finds the key untouched
        RateLimitDescriptor[] same = new RateLimitDescriptor[100];
        Arrays.fill(same, d("user", "repeated"));
        RateLimitResponse r = rls.call("attack", same);
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
        assertThat(r.getStatusesList().stream().filter(s -> s.getCode() == RateLimitResponse.Code.OK).count())
                .isEqualTo(10);
        org.awaitility.Awaitility.await().atMost(10, java.util.concurrent.TimeUnit.SECONDS).untilAsserted(() ->
                assertThat(statuses(rls.call("attack", d(0, "user", "repeated"))))
                        .containsExactly("OK 10/10 per DAY"));
        // cost 6 twice against 10: one admitted, one denied with 4 left
        RateLimitResponse six = rls.call("attack", d(6, "user", "six"), d(6, "user", "six"));
        assertThat(statuses(six)).containsExactlyInAnyOrder("OK 4/10 per DAY", "OVER_LIMIT 4/10 per DAY");
    }

    @Test
    void unknownDomainsByTheThousandAreOneCounterWithoutTags() {
        MeterRegistry registry = rls.context.getBean(MeterRegistry.class);
        double before = registry.counter(EnvoyRateLimitService.UNKNOWN_DOMAINS).count();
        for (int i = 0; i < 1000; i++) {
            assertThat(rls.call("tenant-" + i, d("user", "x")).getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        }
        assertThat(registry.find(EnvoyRateLimitService.UNKNOWN_DOMAINS).meters()).singleElement()
                .satisfies(m -> assertThat(m.getId().getTags()).isEmpty());
        assertThat(registry.counter(EnvoyRateLimitService.UNKNOWN_DOMAINS).count()).isEqualTo(before + 1000);
        // no meter (name or tag) of any kind was made from a domain the client sent
        for (Meter m : registry.getMeters()) {
            assertThat(m.getId().toString()).doesNotContain("tenant-");
        }
    }

    @Test
    void aMessageAboveFourMebibytesIsResourceExhaustedAndLogsNothing() {
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler handler = warnings(logged);
        try {
            // found by attack: grpc-java logged a WARNING with a stack trace for each such message
            assertThatThrownBy(() -> rls.call("attack", d("user", "v".repeat(5_000_000))))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                        assertThat(e.getStatus().getDescription()).isEqualTo("gRPC message exceeds maximum size "
                                + "4194304: 5000029");
                    });
        } finally {
            GRPC_LOG.removeHandler(handler);
        }
        assertThat(logged).isEmpty();
        // just below the maximum: decided
        assertThat(statuses(rls.call("attack", d("user", "v".repeat(4_000_000))))).containsExactly("OK 9/10 per DAY");
    }

    private static final Logger GRPC_LOG = Logger.getLogger("io.grpc");

    /** Collects what grpc-java logs at WARNING or above until the handler is removed from {@link #GRPC_LOG}. */
    private static Handler warnings(List<LogRecord> into) {
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    into.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        GRPC_LOG.addHandler(handler);
        return handler;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

}
