package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link GridOperations#of}: the seam code outside grid-core uses instead of a cast to the Hazelcast limiter. */
class GridOperationsTest {
    @Test
    void hazelcastLimiterIsItsOwnGridOperations() {
        try (GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(1, 0)) {
            cluster.startMember(T0);
            try (HazelcastRateLimiter limiter = HazelcastRateLimiter.create(cluster.members.get(0))) {
                GridOperations grid = GridOperations.of(limiter).orElseThrow();
                assertThat(grid).isSameAs(limiter);
                assertThat(grid.instance()).isSameAs(cluster.members.get(0));
                assertThat(grid.leaseStats()).as("leases are off by default").isNull();
                Policy policy = Policy.builder("ops").tokenBucket(5, 1, Duration.ofHours(1)).build();
                limiter.tryAcquire(policy, "k1", 1);
                limiter.tryAcquire(policy, "k2", 1);
                assertThat(grid.localOwnedKeyCount("ops")).as("two keys, both on the only member").hasValue(2);
            }
        }
    }

    @Test
    void otherLimitersHaveNone() {
        assertThat(GridOperations.of(new LocalRateLimiter(16, new ManualTimeSource(T0)))).isEmpty();
    }

    @Test
    void nullLimiterIsRefused() {
        assertThatThrownBy(() -> GridOperations.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("limiter");
    }
}
