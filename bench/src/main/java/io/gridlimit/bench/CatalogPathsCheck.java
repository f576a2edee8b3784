package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.grid.catalog.PolicyCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link CatalogDecisionBenchmark}'s four paths interleaved, for a machine whose load drifts (other builds sharing
 * the CPUs): {@value #ROUNDS} rounds, each running every path for {@value #SLICE_MILLIS} ms in a rotated order, on
 * one embedded member with {@value GridFloorBenchmark#THREADS} threads of synchronous decisions over
 * {@value BenchKeys#COUNT} keys. Each round's ratio to {@code today} compares slices seconds apart, so the drift of the
 * load mostly cancels; prints the median throughput per path and the median, min and max per-round ratio.
 *
 * <p>{@code java --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
 * -cp bench/target/benchmarks.jar io.gridlimit.bench.CatalogPathsCheck}
 */
public final class CatalogPathsCheck {
    static final int ROUNDS = 12;
    static final long SLICE_MILLIS = 2_000;
    static final List<String> PATHS = List.of("today", "catalog", "override", "plan");

    private CatalogPathsCheck() {
    }

    /**
     * Runs the check and prints a Markdown table.
     *
     * @param args ignored
     * @throws Exception if a thread fails
     */
    public static void main(String[] args) throws Exception {
        HazelcastInstance member = BenchMember.start();
        HazelcastRateLimiter today = HazelcastRateLimiter.create(member);
        HazelcastRateLimiter withCatalog = HazelcastRateLimiter.create(member);
        PolicyCatalog catalog = PolicyCatalog.start(member);
        withCatalog.useCatalog(catalog);
        Policy configured = Policy.builder("bench-free").fixedWindow(1_000_000_000_000L, Duration.ofHours(1)).build();
        Policy overridden = Policy.builder("bench-over").fixedWindow(1_000_000_000_000L, Duration.ofHours(1)).build();
        catalog.put(configured, PolicyCatalog.ANY_VERSION, "bench");
        catalog.put(overridden, PolicyCatalog.ANY_VERSION, "bench");
        catalog.put(Policy.builder("bench-gold").fixedWindow(2_000_000_000_000L, Duration.ofHours(1)).build(),
                PolicyCatalog.ANY_VERSION, "bench");
        for (int i = 0; i < BenchKeys.COUNT; i++) {
            catalog.putOverride("bench-over", BenchKeys.get(i), "bench-gold", null);
        }
        Map<String, String> plan = Map.of("gold", "bench-gold", "silver", "bench-silver");
        double[][] opsPerSecond = new double[PATHS.size()][ROUNDS];
        try {
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms every path up
                for (int k = 0; k < PATHS.size(); k++) {
                    int p = Math.floorMod(k + round, PATHS.size());
                    String path = PATHS.get(p);
                    double ops = slice(() -> {
                        String key = BenchKeys.next();
                        switch (path) {
                            case "today" -> today.tryAcquire(configured, key, 1);
                            case "catalog" -> withCatalog.tryAcquire(resolve(catalog, configured, key), key, 1);
                            case "override" -> withCatalog.tryAcquire(resolve(catalog, overridden, key), key, 1);
                            default -> withCatalog.tryAcquire(resolve(catalog, catalog.policy(plan.get("gold")), key),
                                    key, 1);
                        }
                    });
                    if (round >= 0) {
                        opsPerSecond[p][round] = ops;
                    }
                }
            }
        } finally {
            today.close();
            withCatalog.close();
            catalog.close();
            member.shutdown();
        }
        System.out.println("| path | median ops/s | median ratio to today | min ratio | max ratio |");
        System.out.println("|---|---|---|---|---|");
        for (int p = 0; p < PATHS.size(); p++) {
            double[] ratios = new double[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                ratios[r] = opsPerSecond[p][r] / opsPerSecond[0][r];
            }
            double[] sortedOps = opsPerSecond[p].clone();
            Arrays.sort(sortedOps);
            Arrays.sort(ratios);
            System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.3f | %.3f | %.3f |", PATHS.get(p),
                    median(sortedOps), median(ratios), ratios[0], ratios[ROUNDS - 1]));
        }
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** PolicySource.resolve(policy, key): the override, else the catalog's current version, else the policy. */
    private static Policy resolve(PolicyCatalog catalog, Policy policy, String key) {
        String target = catalog.overrideFor(policy.name(), key);
        if (target != null) {
            Policy other = catalog.policy(target);
            if (other != null) {
                return other;
            }
        }
        Policy current = catalog.policy(policy.name());
        return current != null ? current : policy;
    }

    /** Runs {@code decision} on the threads for one slice; returns decisions per second. */
    private static double slice(Runnable decision) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder done = new LongAdder();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < GridFloorBenchmark.THREADS; t++) {
            Thread thread = new Thread(() -> {
                while (!stop.get()) {
                    decision.run();
                    done.increment();
                }
            });
            thread.start();
            threads.add(thread);
        }
        long start = System.nanoTime();
        Thread.sleep(SLICE_MILLIS);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        return done.sum() * 1e9 / (System.nanoTime() - start);
    }
}
