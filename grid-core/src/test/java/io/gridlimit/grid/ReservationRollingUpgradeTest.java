package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.WireFormat;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * During a rolling upgrade from a GridLimit before reservations (grid-core/docs/wire.md, docs/SPEC.md §10): while
 * a member without the {@code gridlimit.reservations} attribute is in the cluster, {@code reserveAsync} decides
 * without a reservation (a member of the version before would refuse class id 20); once it has left, reservations
 * are taken again.
 */
class ReservationRollingUpgradeTest {
    @Test
    void noReservationIsTakenWhileAMemberCannotReadThem() throws Exception {
        Policy policy = Policy.builder("upgrade").tokenBucket(100, 1, Duration.ofHours(1)).build();
        try (GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(2, 1)) {
            HazelcastInstance upgraded = cluster.startMember(T0);
            cluster.beforeStart = c -> c.getMemberAttributeConfig().removeAttribute(WireFormat.RESERVATIONS_ATTRIBUTE);
            HazelcastInstance old = cluster.startMember(T0);
            try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(upgraded)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> !WireFormat.reservations());
                Decision during = limiter.reserveAsync(policy, "k", 1).toCompletableFuture().get();
                assertThat(during.allowed()).isTrue();
                assertThat(during.reservation()).as("none while the old member is in").isNull();
                assertThat(limiter.reserve(policy, "k", 1).reservation()).isNull();

                old.getLifecycleService().terminate();
                await().atMost(Duration.ofSeconds(30)).until(WireFormat::reservations);
                Decision after = limiter.reserveAsync(policy, "k", 1).toCompletableFuture().get();
                assertThat(after.reservation()).as("taken again once it left").isNotNull();
                assertThat(limiter.settle(policy, after.reservation(), 0).isSettled()).isTrue();
            }
        }
    }
}
