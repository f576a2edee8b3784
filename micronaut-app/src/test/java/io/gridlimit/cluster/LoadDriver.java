package io.gridlimit.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Drives decisions against the live members, bounded in count and time (it stops by itself), and tallies per
 * policy and key what was admitted and what has an unknown outcome (no answer, or 503: the grid may or may not
 * have decided). Threads pick a random policy, key, cost 1 to 3 and live member per request. Each key has a budget
 * of cost to send: keys at even positions get {@code 1.5 × limit} (they run out: denials, and the admitted total
 * must stop at the limit), the others {@code 0.75 × limit} (they never run out, so what they have left afterwards is
 * a sharp check). The driver ends when every budget is spent, or at its request or time bound.
 */
final class LoadDriver implements AutoCloseable {
    /** Per policy/key: admitted cost, and the cost of requests whose outcome is unknown. */
    static final class Tally {
        /** Cost this driver may still send for the key (claimed before each request). */
        final AtomicLong budget;
        final LongAdder admittedCost = new LongAdder();
        final LongAdder deniedCount = new LongAdder();
        final LongAdder unknownCost = new LongAdder();

        Tally(long budget) {
            this.budget = new AtomicLong(budget);
        }
    }

    private final DecisionClient client;
    private final Supplier<List<ServiceCluster.Member>> targets;
    private final List<String> policies;
    private final List<String> keys;
    private final long maxRequests;
    private final long deadlineNanos;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    /** HTTP status (-1: no answer) -> count, per member alias. */
    final Map<String, Map<Integer, LongAdder>> statuses = new ConcurrentHashMap<>();
    final AtomicLong requests = new AtomicLong();
    /** System.nanoTime() of the last request that got no decision (0: none yet). */
    final AtomicLong lastUndecidedNanos = new AtomicLong();

    LoadDriver(DecisionClient client, Supplier<List<ServiceCluster.Member>> targets, List<String> policies,
               List<String> keys, long limit, int threadCount, long maxRequests, long maxMillis) {
        this.client = client;
        this.targets = targets;
        this.policies = policies;
        this.keys = keys;
        this.maxRequests = maxRequests;
        this.deadlineNanos = System.nanoTime() + maxMillis * 1_000_000L;
        for (String p : policies) {
            for (int i = 0; i < keys.size(); i++) {
                tallies.put(p + "/" + keys.get(i), new Tally(i % 2 == 0 ? limit * 3 / 2 : limit * 3 / 4));
            }
        }
        for (int i = 0; i < threadCount; i++) {
            long seed = 42 + i;
            Thread t = new Thread(() -> run(new SplittableRandom(seed)), "load-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
    }

    LoadDriver start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void run(SplittableRandom random) {
        while (!stopped && System.nanoTime() < deadlineNanos && requests.incrementAndGet() <= maxRequests) {
            List<ServiceCluster.Member> live = targets.get();
            if (live.isEmpty()) {
                continue;
            }
            ServiceCluster.Member m = live.get(random.nextInt(live.size()));
            long cost = 1 + random.nextInt(3);
            int pairs = policies.size() * keys.size();
            int start = random.nextInt(pairs);
            String policy = null;
            String key = null;
            Tally t = null;
            for (int i = 0; i < pairs && t == null; i++) {
                int pair = (start + i) % pairs;
                Tally candidate = tallies.get(policies.get(pair / keys.size()) + "/" + keys.get(pair % keys.size()));
                if (candidate.budget.addAndGet(-cost) >= 0) {
                    policy = policies.get(pair / keys.size());
                    key = keys.get(pair % keys.size());
                    t = candidate;
                } else {
                    candidate.budget.addAndGet(cost);
                }
            }
            if (t == null) {
                return; // every budget is spent
            }
            DecisionClient.Answer a = client.check(m.baseUrl, policy, key, cost);
            statuses.computeIfAbsent(m.alias, x -> new ConcurrentHashMap<>())
                    .computeIfAbsent(a.status(), x -> new LongAdder()).increment();
            if (!a.decided()) {
                t.unknownCost.add(cost);
                lastUndecidedNanos.set(System.nanoTime());
            } else if (a.allowed()) {
                t.admittedCost.add(cost);
            } else {
                t.deniedCount.increment();
            }
        }
    }

    /** Waits (at most 2 minutes) until at least {@code n} more requests were sent, or the driver ended. */
    void awaitMoreRequests(long n) {
        long target = requests.get() + n;
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(2))
                .pollInterval(java.time.Duration.ofMillis(20))
                .until(() -> requests.get() >= target || threads.stream().noneMatch(Thread::isAlive));
    }

    /** Stops the threads and waits for their last request. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    /** @return statuses per member, sorted, for the printed figures */
    Map<String, Map<Integer, Long>> statusSummary() {
        Map<String, Map<Integer, Long>> out = new TreeMap<>();
        statuses.forEach((alias, counts) -> {
            Map<Integer, Long> m = new TreeMap<>();
            counts.forEach((s, c) -> m.put(s, c.sum()));
            out.put(alias, m);
        });
        return out;
    }
}
