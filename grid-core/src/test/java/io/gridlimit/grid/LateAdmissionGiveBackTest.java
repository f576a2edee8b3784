package io.gridlimit.grid;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Settlement;
import io.gridlimit.time.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reservation whose caller cancels its stage after it was sent (a timeout) is given back when its admission
 * arrives, and reported to the {@link GiveBackListener} (docs/SPEC.md §10): the cancelled request consumes
 * nothing. The member's clock blocks the partition thread until the test has cancelled.
 */
class LateAdmissionGiveBackTest {
    /** A frozen clock that, while armed, holds each reading until released. */
    static final class HeldClock implements TimeSource {
        volatile CountDownLatch entered = new CountDownLatch(0);
        volatile CountDownLatch release = new CountDownLatch(0);

        void arm() {
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
        }

        @Override
        public long nowNanos() {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return T0;
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aCancelledReservationsLateAdmissionIsGivenBack(boolean coalesce) throws Exception {
        HeldClock clock = new HeldClock();
        Config config = GridLimitHazelcast.defaultMemberConfig();
        config.setClusterName("late-" + System.nanoTime());
        config.getNetworkConfig().setPort(GridTestSupport.freePorts(1)[0]).setPortAutoIncrement(false);
        config.setProperty("hazelcast.logging.type", "none");
        GridLimitHazelcast.configure(config, clock);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        List<Settlement> heard = new CopyOnWriteArrayList<>();
        try (HazelcastRateLimiter limiter = HazelcastRateLimiter.builder(member).coalesceHotKeys(coalesce)
                .giveBackListener((policy, settlement, failure) -> heard.add(settlement)).build()) {
            Policy policy = Policy.builder("late").tokenBucket(10, 1, Duration.ofHours(1)).build();
            clock.arm();
            CompletableFuture<Decision> stage = limiter.reserveAsync(policy, "k", 4).toCompletableFuture();
            assertThat(clock.entered.await(30, TimeUnit.SECONDS)).as("the owner is deciding").isTrue();
            stage.cancel(false); // the caller's timeout, after the request left
            clock.release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 1);
            assertThat(heard.get(0).status()).isEqualTo(Settlement.Status.SETTLED);
            assertThat(heard.get(0).actual()).isZero();
            // the key is exactly as before: 10 tokens
            assertThat(limiter.tryAcquire(policy, "k", 1).remaining()).isEqualTo(9);
        } finally {
            member.getLifecycleService().terminate();
        }
    }
}
