package io.gridlimit.grid;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hot-key coalescing through a real member whose clock is frozen ({@link io.gridlimit.time.ManualTimeSource}):
 * concurrent async decisions of one key are exactly those of sequential application in arrival order, for every
 * algorithm; fewer invocations than requests reach the owner (time reads, one per invocation); no request is lost
 * or answered twice when many threads hammer a few keys; no slot stays behind.
 */
class CoalescingExactnessTest {
    private static GridTestSupport.Cluster cluster;
    private static HazelcastInstance member;
    private static HazelcastRateLimiter coalescing;
    private static HazelcastRateLimiter plain;

    @BeforeAll
    static void start() {
        cluster = new GridTestSupport.Cluster(1, 1);
        member = cluster.startMember(GridTestSupport.T0);
        coalescing = HazelcastRateLimiter.create(member); // the default: coalesced
        plain = HazelcastRateLimiter.builder(member).coalesceHotKeys(false).build();
    }

    @AfterAll
    static void stop() {
        if (coalescing != null) {
            coalescing.close();
            plain.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * One thread submits 400 mixed costs (1 to 5) then 100 of cost 1 for one key without waiting: arrival order is
     * submission order, the first call is in flight while the others queue. Each decision equals sequential
     * {@code apply} at the frozen reading, exactly the quota (100) is admitted, and fewer invocations than
     * requests were made; the uncoalesced limiter gives the same decisions with one invocation each.
     */
    @Test
    void concurrentRequestsOfOneKeyGetTheSequentialDecisionsInArrivalOrder() {
        assertThat(coalescing.coalescesHotKeys()).isTrue();
        assertThat(plain.coalescesHotKeys()).isFalse();
        Random random = new Random(6);
        long[] costs = new long[500];
        for (int i = 0; i < costs.length; i++) {
            costs[i] = i < 400 ? 1 + random.nextInt(5) : 1;
        }
        for (Policy policy : GridTestSupport.policies("coalesce-", 100)) {
            List<Decision> expected = sequential(policy, costs);
            assertThat(expected.stream().filter(Decision::allowed).count()).isGreaterThan(1);

            cluster.resetReads();
            List<Decision> coalesced = decideAll(coalescing, policy, "hot", costs);
            long coalescedReads = cluster.totalReads();
            cluster.resetReads();
            List<Decision> uncoalesced = decideAll(plain, policy, "hot-plain", costs);
            long plainReads = cluster.totalReads();

            assertThat(coalesced).as(policy.name()).containsExactlyElementsOf(expected);
            assertThat(uncoalesced).as(policy.name()).containsExactlyElementsOf(expected);
            long admittedCost = 0;
            for (int i = 0; i < costs.length; i++) {
                admittedCost += coalesced.get(i).allowed() ? costs[i] : 0;
            }
            // the composite's binding quota is its hourly log of 100 (its burst bucket holds 110)
            assertThat(admittedCost).as(policy.name()).isEqualTo(100);
            assertThat(coalescedReads).as(policy.name()).isLessThan(costs.length).isGreaterThanOrEqualTo(1);
            assertThat(plainReads).as(policy.name()).isEqualTo(costs.length);
            assertThat(coalescing.coalescingBusyKeys()).isZero();
        }
    }

    /**
     * 8 threads, 8 rounds, each thread 300 requests of random cost 1 to 3 over 3 keys of a token bucket
     * (capacity 1000, frozen clock), released together. Every stage completes exactly once without error; per
     * key, the admitted decisions form one chain {@code remaining_i = remaining_{i-1} - cost_i} from 1000, every
     * denial reports a level of that chain and a cost above it, each thread's requests appear in its own
     * submission order, and what is admitted plus what remains is exactly the capacity.
     */
    @Test
    void noRequestIsLostOrAnsweredTwiceUnderConcurrency() throws Exception {
        long capacity = 1000;
        int threads = 8;
        int perThread = 300;
        for (int round = 0; round < 8; round++) {
            Policy policy = Policy.builder("race-" + round).tokenBucket(capacity, 1, Duration.ofHours(1)).build();
            String[] keys = {"a", "b", "c"};
            long[][] costs = new long[threads][perThread];
            int[][] keyOf = new int[threads][perThread];
            Random random = new Random(round);
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    costs[t][i] = 1 + random.nextInt(3);
                    keyOf[t][i] = random.nextInt(keys.length);
                }
            }
            @SuppressWarnings("unchecked")
            CompletableFuture<Decision>[][] stages = new CompletableFuture[threads][perThread];
            AtomicInteger completions = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Thread worker = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        CompletableFuture<Decision> stage = coalescing.tryAcquireAsync(policy,
                                keys[keyOf[thread][i]], costs[thread][i]).toCompletableFuture();
                        // keep the dependent: joining it guarantees the count ran (a dependent of the stage itself
                        // may still be running when the stage is already complete)
                        stages[thread][i] = stage.whenComplete((d, e) -> completions.incrementAndGet());
                    }
                });
                worker.start();
                workers.add(worker);
            }
            go.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            for (CompletableFuture<Decision>[] row : stages) {
                CompletableFuture.allOf(row).join(); // throws if any failed
            }
            assertThat(completions.get()).isEqualTo(threads * perThread);

            for (int k = 0; k < keys.length; k++) {
                // level = tokens before the request: admitted remaining + cost, or a denial's remaining
                Map<Long, Long> costAtLevel = new HashMap<>();
                TreeSet<Long> denialLevels = new TreeSet<>();
                long admitted = 0;
                for (int t = 0; t < threads; t++) {
                    long lastLevel = Long.MAX_VALUE;
                    long lastAdmittedCost = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (keyOf[t][i] != k) {
                            continue;
                        }
                        Decision d = stages[t][i].join();
                        long level = d.allowed() ? d.remaining() + costs[t][i] : d.remaining();
                        // a thread's requests arrive in its own order: tokens never rise, and an admission
                        // consumed its cost before the thread's next request
                        assertThat(level).isLessThanOrEqualTo(lastLevel - lastAdmittedCost);
                        lastLevel = level;
                        lastAdmittedCost = d.allowed() ? costs[t][i] : 0;
                        if (d.allowed()) {
                            assertThat(costAtLevel.put(level, costs[t][i])).as("two admissions at level " + level)
                                    .isNull();
                            admitted += costs[t][i];
                        } else {
                            assertThat(costs[t][i]).isGreaterThan(d.remaining());
                            denialLevels.add(level);
                        }
                    }
                }
                // the admissions form one chain down from the capacity
                long level = capacity;
                TreeSet<Long> chain = new TreeSet<>();
                chain.add(capacity);
                while (costAtLevel.containsKey(level)) {
                    level -= costAtLevel.remove(level);
                    chain.add(level);
                }
                assertThat(costAtLevel).as("admissions off the chain").isEmpty();
                assertThat(chain).containsAll(denialLevels);
                assertThat(admitted + level).isEqualTo(capacity);
                // the grid holds exactly what the chain left
                Decision next = coalescing.tryAcquire(policy, keys[k], 1);
                assertThat(next.remaining()).isEqualTo(level > 0 ? level - 1 : 0);
            }
            assertThat(coalescing.coalescingBusyKeys()).isZero();
        }
    }

    private static List<Decision> decideAll(HazelcastRateLimiter limiter, Policy policy, String key, long[] costs) {
        List<CompletableFuture<Decision>> stages = new ArrayList<>();
        for (long cost : costs) {
            stages.add(limiter.tryAcquireAsync(policy, key, cost).toCompletableFuture());
        }
        return stages.stream().map(CompletableFuture::join).toList();
    }

    private static List<Decision> sequential(Policy policy, long[] costs) {
        List<Decision> decisions = new ArrayList<>();
        LimiterState state = null;
        for (long cost : costs) {
            Outcome outcome = RateLimitAlgorithms.apply(state, policy, cost, GridTestSupport.T0);
            state = outcome.state();
            decisions.add(outcome.decision());
        }
        return decisions;
    }
}
