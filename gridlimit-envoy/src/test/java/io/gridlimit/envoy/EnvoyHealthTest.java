package io.gridlimit.envoy;

import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.gridlimit.envoy.Rls.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * docs/SPEC.md §12, "Health": {@code grpc.health.v1.Health} on the RLS port, asked with grpc-java's own health stub:
 * {@code ""} and {@code ratelimit} SERVING while the port is open, NOT_SERVING told to a {@code Watch} as soon as the
 * context starts closing (while the connection is still served), and any other name NOT_FOUND.
 */
class EnvoyHealthTest {
    private static HealthCheckRequest service(String name) {
        return HealthCheckRequest.newBuilder().setService(name).build();
    }

    @Test
    void checkAnswersServingForBothNamesAndNotFoundForOthers() {
        try (Rls rls = Rls.start(Rls.properties("envoy-health", "example1.yaml"))) {
            HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(rls.channel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS);
            assertThat(health.check(service("")).getStatus()).isEqualTo(ServingStatus.SERVING);
            assertThat(health.check(service(EnvoyRlsServer.HEALTH_SERVICE)).getStatus())
                    .isEqualTo(ServingStatus.SERVING);
            assertThat(EnvoyRlsServer.HEALTH_SERVICE).isEqualTo("ratelimit");
            assertThatThrownBy(() -> health.check(service("envoy.service.ratelimit.v3.RateLimitService")))
                    .isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
            // SERVING means decisions are answered on the same port
            assertThat(Rls.statuses(rls.call("mongo_cps", d("database", "users"))))
                    .containsExactly("OK 499/500 per SECOND");
        }
    }

    @Test
    void aWatchSeesNotServingWhenTheContextStartsClosing() throws Exception {
        Rls rls = Rls.start(Rls.properties("envoy-health-watch", "example1.yaml"));
        LinkedBlockingQueue<ServingStatus> seen = new LinkedBlockingQueue<>();
        Context.CancellableContext watch = Context.current().withCancellation();
        try {
            watch.run(() -> HealthGrpc.newStub(rls.channel).watch(service(EnvoyRlsServer.HEALTH_SERVICE),
                    new StreamObserver<>() {
                        @Override
                        public void onNext(HealthCheckResponse value) {
                            seen.add(value.getStatus());
                        }

                        @Override
                        public void onError(Throwable t) {
                        }

                        @Override
                        public void onCompleted() {
                        }
                    }));
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVING);
            // close the context (the server's @PreDestroy) while the watch is open: NOT_SERVING arrives on the
            // open stream, which the server still serves (it waits for calls in flight before it stops)
            CompletableFuture<Void> closing = CompletableFuture.runAsync(rls.context::close);
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.NOT_SERVING);
            watch.cancel(null); // the last call in flight ends, so the server stops at once
            closing.get(20, TimeUnit.SECONDS);
            assertThat(seen).isEmpty();
        } finally {
            watch.cancel(null);
            rls.channel.shutdownNow();
            if (rls.context.isRunning()) {
                rls.context.close();
            }
        }
    }
}
