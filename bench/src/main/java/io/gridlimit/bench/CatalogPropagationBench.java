package io.gridlimit.bench;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How long a policy change takes to reach every replica (docs/SPEC.md §11; target: 1 s at p99): {@value #MEMBERS}
 * embedded members of one cluster on loopback (one synchronous backup), each with its own {@link PolicyCatalog} copy;
 * {@value #CHANGES} changes (after {@value #WARMUP} unmeasured ones) made on member {@code i % 3} in turn, each
 * timed from the call to the moment the last of the three copies holds the new version (every copy's listener
 * notes its arrival time). Prints the propagation percentiles in milliseconds, and the time of the change call itself
 * (the compare-and-set on the record's owner).
 *
 * <p>{@code java --add-opens=java.base/java.lang=ALL-UNNAMED -cp bench/target/benchmarks.jar
 * io.gridlimit.bench.CatalogPropagationBench}
 */
public final class CatalogPropagationBench {
    static final int MEMBERS = 3;
    static final int CHANGES = 100;
    static final int WARMUP = 20;

    private CatalogPropagationBench() {
    }

    /**
     * Runs the measurement and prints a Markdown table.
     *
     * @param args ignored
     * @throws Exception if a member fails to start or a change never arrives within 10 s
     */
    public static void main(String[] args) throws Exception {
        String name = "gridlimit-propagation-" + UUID.randomUUID();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            ports.add(BenchMember.freePort());
        }
        List<HazelcastInstance> members = new ArrayList<>();
        List<PolicyCatalog> catalogs = new ArrayList<>();
        try {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(Hazelcast.newHazelcastInstance(BenchMember.clusterConfig(name, ports.get(i), ports,
                        BackupMode.SYNC)));
            }
            while (members.get(0).getCluster().getMembers().size() != MEMBERS
                    || !members.get(0).getPartitionService().isClusterSafe()) {
                Thread.sleep(50);
            }
            long[] arrivedNanos = new long[MEMBERS];
            CountDownLatch[] pending = {new CountDownLatch(MEMBERS)};
            long[] expected = {0};
            for (int i = 0; i < MEMBERS; i++) {
                PolicyCatalog c = PolicyCatalog.start(members.get(i));
                int index = i;
                c.onChange(r -> {
                    if (r.name().equals("propagation") && r.version() == expected[0]) {
                        arrivedNanos[index] = System.nanoTime();
                        pending[0].countDown();
                    }
                });
                catalogs.add(c);
            }
            long[] propagationNanos = new long[CHANGES];
            long[] callNanos = new long[CHANGES];
            long version = 0;
            for (int n = 0; n < WARMUP + CHANGES; n++) {
                version++;
                expected[0] = version;
                pending[0] = new CountDownLatch(MEMBERS);
                Arrays.fill(arrivedNanos, 0);
                Policy p = Policy.builder("propagation").fixedWindow(1 + n, Duration.ofMinutes(1)).build();
                long start = System.nanoTime();
                catalogs.get(n % MEMBERS).put(p, PolicyCatalog.ANY_VERSION, "bench");
                long called = System.nanoTime();
                if (!pending[0].await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("change " + version + " did not reach every copy in 10 s");
                }
                long last = start;
                for (long t : arrivedNanos) {
                    last = Math.max(last, t == 0 ? called : t); // the caller's own copy takes it on return
                }
                if (n >= WARMUP) {
                    propagationNanos[n - WARMUP] = last - start;
                    callNanos[n - WARMUP] = called - start;
                }
            }
            Arrays.sort(propagationNanos);
            Arrays.sort(callNanos);
            System.out.println("| " + MEMBERS + " members, " + CHANGES + " changes | p50 ms | p90 ms | p99 ms | max ms |");
            System.out.println("|---|---|---|---|---|");
            System.out.println(row("every copy holds the change", propagationNanos));
            System.out.println(row("the change call returns", callNanos));
        } finally {
            catalogs.forEach(PolicyCatalog::close);
            members.forEach(m -> m.getLifecycleService().terminate());
        }
    }

    private static String row(String label, long[] sortedNanos) {
        return "| " + label + " | " + ms(pct(sortedNanos, 50)) + " | " + ms(pct(sortedNanos, 90)) + " | "
                + ms(pct(sortedNanos, 99)) + " | " + ms(sortedNanos[sortedNanos.length - 1]) + " |";
    }

    private static long pct(long[] sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.2f", nanos / 1e6);
    }
}
