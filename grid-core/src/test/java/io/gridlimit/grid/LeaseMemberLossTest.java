package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.WireFormat;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Leases across a member loss and a rolling upgrade (docs/SPEC.md §13), each on its own cluster with frozen clocks.
 * The policy is a token bucket of capacity 1000 refilling 1000 per hour; with the default settings requests 1 to 7
 * of a key go to the owner one by one and request 8 takes a lease of 8 units.
 */
class LeaseMemberLossTest {
    /** 1 000 per hour: a hold of an hour, so the state outlives the member change in real time (Hazelcast's expiry). */
    private static final Policy POLICY = Policy.builder("loss")
            .single(Band.tokenBucket("loss", 1000, 1000, Duration.ofHours(1))).build();

    /** A key owned by {@code owner}. */
    private static String keyOwnedBy(GridTestSupport.Cluster cluster, HazelcastInstance owner) {
        for (int i = 0; ; i++) {
            String key = "k" + i;
            if (cluster.ownerOf(key) == owner) {
                return key;
            }
        }
    }

    @Test
    void theBackupThatTakesOverKeepsTheLeaseAndItsGiveBack() {
        try (GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(3, 1)) {
            HazelcastInstance holderMember = cluster.startMember(T0);
            HazelcastInstance second = cluster.startMember(T0);
            HazelcastInstance third = cluster.startMember(T0);
            cluster.awaitSafe();
            String key = keyOwnedBy(cluster, second);
            AtomicLong ticks = new AtomicLong();
            try (HazelcastRateLimiter holder = HazelcastRateLimiter.builder(holderMember).leases(true)
                    .leaseTicker(ticks::get).build();
                 HazelcastRateLimiter probe = HazelcastRateLimiter.create(third)) {
                for (int i = 0; i < 10; i++) {
                    assertThat(holder.tryAcquireAsync(POLICY, key, 1).toCompletableFuture().join().allowed())
                            .isTrue();
                }
                // the owner dies; its backup (on another member) takes over with the computed state
                second.getLifecycleService().terminate();
                cluster.awaitClusterSize(2);
                cluster.awaitSafe();
                LimiterState state = third.<String, LimiterState>getMap("gridlimit.loss").get(key);
                assertThat(((ReservedState) state).leaseUnits()).containsExactly(8);
                // 1000 − 7 − 8 = 985 on the new owner, and the cap of the open lease still holds
                assertThat(probe.tryAcquire(POLICY, key, 1000).remaining()).isEqualTo(985);
                // the holder spends the lease on (requests 11 to 15) and gives the rest back to the new owner
                for (int i = 0; i < 5; i++) {
                    assertThat(holder.tryAcquireAsync(POLICY, key, 1).toCompletableFuture().join().allowed())
                            .isTrue();
                }
                ticks.addAndGet(2_000_000_000L);
                holder.leases().sweep().join();
                // 15 requests: 7 decided alone, 8 from the lease (all used): nothing to give back, 985 left
                assertThat(probe.tryAcquire(POLICY, key, 1000).remaining()).isEqualTo(985);
            }
        }
    }

    @Test
    void noLeaseIsTakenWhileAMemberDoesNotKeepLeases() {
        try (GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(2, 1)) {
            HazelcastInstance current = cluster.startMember(T0);
            // a member of a GridLimit before leases: no gridlimit.leases attribute
            cluster.beforeStart = c -> c.getMemberAttributeConfig().removeAttribute(WireFormat.LEASES_ATTRIBUTE);
            cluster.startMember(T0);
            cluster.awaitSafe();
            try (HazelcastRateLimiter limiter = HazelcastRateLimiter.builder(current).leases(true)
                    .leaseTicker(() -> 0L).build()) {
                int admitted = 0;
                for (int i = 0; i < 1200; i++) {
                    admitted += limiter.tryAcquireAsync(POLICY, "old", 1).toCompletableFuture().join().allowed()
                            ? 1 : 0;
                }
                assertThat(admitted).isEqualTo(1000);
                assertThat(limiter.leaseStats().asked()).isZero();
                LimiterState state = current.<String, LimiterState>getMap("gridlimit.loss").get("old");
                assertThat(state).isNotInstanceOf(ReservedState.class);
            }
        }
    }
}
