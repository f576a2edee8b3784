package io.gridlimit.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.SwitchableGrid;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.gridlimit.envoy.Rls.d;
import static io.gridlimit.envoy.Rls.headers;
import static io.gridlimit.envoy.Rls.statuses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What Envoy gets when the grid does not answer (SPEC §12, §5): the failure mode within the gRPC deadline, and
 * all-or-nothing through the give-back seam, local admissions given back on the local share. The grid is a
 * {@link SwitchableGrid} (no member), local decisions run on its manual clock.
 */
class EnvoyFailureModeTest {
    private Rls rls;

    @AfterEach
    void stop() {
        if (rls != null) {
            rls.close();
        }
    }

    private SwitchableGrid.Grid start(String mode, Object... more) {
        Map<String, Object> p = Rls.properties("envoy-failure", "example1.yaml", "example3-without-blocklist.yaml");
        p.put("gridlimit-test.switchable-grid", "true");
        p.put("envoy-test.recording-give-back", "true");
        p.put("gridlimit.failure-mode", mode);
        p.put("gridlimit.grid-timeout", "100ms");
        for (int i = 0; i < more.length; i += 2) {
            p.put((String) more[i], more[i + 1]);
        }
        rls = Rls.start(p);
        return rls.context.getBean(SwitchableGrid.Grid.class);
    }

    private RecordingGiveBack.Recorder giveBack() {
        return (RecordingGiveBack.Recorder) rls.context.getBean(io.gridlimit.micronaut.decide.GiveBack.class);
    }

    @Test
    void localDecidesOnThisReplicasShareAndShowsIt() {
        SwitchableGrid.Grid grid = start("local");
        grid.mode(SwitchableGrid.Mode.NEVER);
        RateLimitResponse r = rls.call("mongo_cps", d("database", "users"));
        // expected-replicas 3 (the default): floor(500 / 3) = 166 per second on this replica
        assertThat(statuses(r)).containsExactly("OK 165/500 per SECOND");
        assertThat(headers(r)).containsEntry("RateLimit-Policy", "\"mongo_cps.database_users\";q=166;w=1")
                .containsEntry("RateLimit", "\"mongo_cps.database_users\";r=165;t=1");
        assertThat(rls.context.getBean(MeterRegistry.class).get("gridlimit.decisions")
                .tag("outcome", "fallback").tag("mode", "local").tag("source", "envoy").counter().count())
                .isEqualTo(1.0);
        grid.mode(SwitchableGrid.Mode.UP);
        assertThat(statuses(rls.call("mongo_cps", d("database", "users")))).containsExactly("OK 499/500 per SECOND");
    }

    @Test
    void localWithoutAShareAnswersUnavailable() {
        SwitchableGrid.Grid grid = start("local");
        grid.mode(SwitchableGrid.Mode.FAIL);
        // 2 per second cannot be divided by 3 replicas: never decided alone
        assertThatThrownBy(() -> rls.call("edge_proxy_per_ip", d("remote_address", "50.0.0.5")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                        .isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void openAnswersOkWithoutALimit() {
        SwitchableGrid.Grid grid = start("open");
        grid.mode(SwitchableGrid.Mode.NEVER);
        RateLimitResponse r = rls.call("mongo_cps", d("database", "users"), d("database", "orders"));
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(r)).containsExactly("OK 0", "OK 0");
        assertThat(r.getResponseHeadersToAddList()).isEmpty();
    }

    @Test
    void closedAnswersUnavailableAndGivesBackWhatOtherDescriptorsTook() {
        SwitchableGrid.Grid grid = start("closed");
        grid.mode(SwitchableGrid.Mode.FAIL);
        assertThatThrownBy(() -> rls.call("mongo_cps", d("database", "users")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.getStatus().getDescription()).isEqualTo("the rate-limit grid did not answer in "
                            + "time (gridlimit.failure-mode: closed)");
                });
        assertThat(giveBack().calls).isEmpty();
    }

    @Test
    void theGrpcDeadlineBoundsTheWaitForTheGrid() {
        SwitchableGrid.Grid grid = start("open", "gridlimit.grid-timeout", "1h");
        grid.mode(SwitchableGrid.Mode.NEVER);
        // Envoy gives up after its timeout: the answer (here open's OK) comes within four fifths of the deadline
        RateLimitResponse r = rls.stub.withDeadlineAfter(3, TimeUnit.SECONDS).shouldRateLimit(
                io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest.newBuilder().setDomain("mongo_cps")
                        .addDescriptors(d("database", "users")).build());
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(statuses(r)).containsExactly("OK 0");
    }

    @Test
    void closedAndLocalAlsoAnswerWithinTheDeadlineOfAGridThatNeverAnswers() {
        for (String mode : List.of("closed", "local")) {
            SwitchableGrid.Grid grid = start(mode, "gridlimit.grid-timeout", "1h");
            grid.mode(SwitchableGrid.Mode.NEVER);
            RateLimitServiceGrpc.RateLimitServiceBlockingStub stub = rls.stub.withDeadlineAfter(3, TimeUnit.SECONDS);
            RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("mongo_cps")
                    .addDescriptors(d("database", "users")).build();
            if (mode.equals("closed")) {
                // UNAVAILABLE from the service, not the client's own DEADLINE_EXCEEDED
                assertThatThrownBy(() -> stub.shouldRateLimit(request)).isInstanceOfSatisfying(
                        StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                                .isEqualTo(Status.Code.UNAVAILABLE));
            } else {
                assertThat(statuses(stub.shouldRateLimit(request))).containsExactly("OK 165/500 per SECOND");
            }
            assertThat(rls.context.getBean(EnvoyRateLimitService.class).armedTimers()).isZero();
            rls.close();
            rls = null;
        }
    }

    @Test
    void callsWaitingForTheGridNeverHoldTheEventLoop() {
        SwitchableGrid.Grid grid = start("closed", "gridlimit.grid-timeout", "1h");
        grid.mode(SwitchableGrid.Mode.NEVER);
        EnvoyRateLimitService service = rls.context.getBean(EnvoyRateLimitService.class);
        RateLimitServiceGrpc.RateLimitServiceStub async = RateLimitServiceGrpc.newStub(rls.channel);
        List<CompletableFuture<Status>> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            CompletableFuture<Status> done = new CompletableFuture<>();
            waiting.add(done);
            async.shouldRateLimit(RateLimitRequest.newBuilder().setDomain("mongo_cps")
                    .addDescriptors(d("database", "users")).build(), new io.grpc.stub.StreamObserver<>() {
                        @Override
                        public void onNext(RateLimitResponse value) {
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.complete(Status.fromThrowable(t));
                        }

                        @Override
                        public void onCompleted() {
                            done.complete(Status.OK);
                        }
                    });
        }
        // 50 calls wait for a grid that never answers (grid-timeout 1 h, no deadline), on one connection, while
        // the gRPC event loop that runs the handler directly still answers a call that needs no grid at once
        await().atMost(10, TimeUnit.SECONDS).until(() -> service.armedTimers() == 50);
        RateLimitResponse r = rls.stub.withDeadlineAfter(5, TimeUnit.SECONDS).shouldRateLimit(RateLimitRequest
                .newBuilder().setDomain("no-such-domain").addDescriptors(d("database", "users")).build());
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        assertThat(grid.calls()).isEqualTo(50);
        rls.channel.shutdownNow();
        await().atMost(10, TimeUnit.SECONDS).until(() -> service.armedTimers() == 0);
    }

    @Test
    void aCancelledCallStopsWaitingForTheGridAtOnce() {
        SwitchableGrid.Grid grid = start("closed", "gridlimit.grid-timeout", "1h");
        grid.mode(SwitchableGrid.Mode.NEVER);
        EnvoyRateLimitService service = rls.context.getBean(EnvoyRateLimitService.class);
        ClientCall<RateLimitRequest, RateLimitResponse> call = rls.channel.newCall(
                RateLimitServiceGrpc.getShouldRateLimitMethod(), CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
            }
        }, new Metadata());
        call.request(1);
        call.sendMessage(RateLimitRequest.newBuilder().setDomain("mongo_cps").addDescriptors(d("database", "users"))
                .addDescriptors(d("database", "default")).build());
        call.halfClose();
        // the service waits for the grid (up to grid-timeout, 1 h, without a deadline): two armed waits
        await().atMost(10, TimeUnit.SECONDS).until(() -> service.armedTimers() == 2);
        call.cancel("Envoy gave up", null);
        assertThat(closed.join().getCode()).isEqualTo(Status.Code.CANCELLED);
        // found by attack: each cancelled call held its timers (and the call's state) for the whole grid-timeout
        await().atMost(10, TimeUnit.SECONDS).until(() -> service.armedTimers() == 0);
        assertThat(grid.calls()).isEqualTo(2);
        assertThat(rls.context.getBean(MeterRegistry.class).find("gridlimit.decisions").tag("source", "envoy")
                .counters()).isEmpty();
    }

    @Test
    void aLateAnswerOfACancelledStageIsNeverTakenHere() {
        SwitchableGrid.Grid grid = start("local");
        grid.mode(SwitchableGrid.Mode.SLOW);
        assertThat(statuses(rls.call("mongo_cps", 7, d("database", "users")))).containsExactly(
                "OK 159/500 per SECOND");
        // the timed-out stage was cancelled: its late answer is the limiter's to give back (HazelcastRateLimiter
        // does, EnvoyLateAdmissionTest), never seen by the service
        assertThat(grid.answerLate()).hasSize(1);
        assertThat(giveBack().calls).isEmpty();
    }

    @Test
    void aDeniedRequestGivesBackTheOtherDescriptorsAdmissions() {
        start("local");
        RateLimitResponse r = rls.call("edge_proxy_per_ip", d(1, "remote_address", "50.0.0.1"),
                d(3, "remote_address", "50.0.0.5"));
        assertThat(statuses(r)).containsExactly("OK 9/10 per SECOND", "OVER_LIMIT 2/2 per SECOND");
        assertThat(giveBack().calls).containsExactly("edge_proxy_per_ip.remote_address denied grid");
        assertThat(rls.call("edge_proxy_per_ip", d("remote_address", "50.0.0.1")).getOverallCode())
                .isEqualTo(RateLimitResponse.Code.OK);
        assertThat(giveBack().calls).hasSize(1);
    }

    @Test
    void aLocalAdmissionOfARequestEndingOverLimitIsGivenBackOnTheLocalShare() {
        SwitchableGrid.Grid grid = start("local");
        grid.mode(SwitchableGrid.Mode.FAIL);
        // expected-replicas 3: a share of floor(10 / 3) = 3 per second for each address
        RateLimitResponse r = rls.call("edge_proxy_per_ip", d(1, "remote_address", "50.0.0.1"),
                d(4, "remote_address", "50.0.0.2"));
        assertThat(r.getOverallCode()).isEqualTo(RateLimitResponse.Code.OVER_LIMIT);
        assertThat(statuses(r)).containsExactly("OK 2/10 per SECOND", "OVER_LIMIT 3/10 per SECOND");
        assertThat(giveBack().calls).containsExactly("edge_proxy_per_ip.remote_address denied local");
        assertThat(localGiveBacks("denied")).isEqualTo(1.0);
        // the share is exactly as before the denied request: 3, and this request takes 1
        assertThat(statuses(rls.call("edge_proxy_per_ip", d(1, "remote_address", "50.0.0.1"))))
                .containsExactly("OK 2/10 per SECOND");
    }

    @Test
    void aLocalAdmissionOfARequestAnsweredUnavailableIsGivenBackOnTheLocalShare() {
        SwitchableGrid.Grid grid = start("local");
        grid.mode(SwitchableGrid.Mode.FAIL);
        // 50.0.0.5's 2 per second has no share: the call is UNAVAILABLE, 50.0.0.1's local admission given back
        assertThatThrownBy(() -> rls.call("edge_proxy_per_ip", d(1, "remote_address", "50.0.0.1"),
                d("remote_address", "50.0.0.5")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                        .isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(giveBack().calls).containsExactly("edge_proxy_per_ip.remote_address failed local");
        assertThat(localGiveBacks("failed")).isEqualTo(1.0);
        assertThat(statuses(rls.call("edge_proxy_per_ip", d(3, "remote_address", "50.0.0.1"))))
                .containsExactly("OK 0/10 per SECOND");
    }

    private double localGiveBacks(String reason) {
        return rls.context.getBean(MeterRegistry.class).find(GridLimitMetrics.GIVE_BACKS)
                .tags("policy", "edge_proxy_per_ip.remote_address", "reason", reason, "result", "given-back")
                .counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }
}
