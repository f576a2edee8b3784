package io.gridlimit.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * Cluster reliability with real processes (docs/SPEC.md §8): each scenario runs its own cluster of
 * service containers (the project's shaded jar, embedded Hazelcast members, one synchronous backup: the shipped
 * default) carrying one policy per algorithm, and drives the decision API through ports published on 127.0.0.1.
 *
 * <p>Every policy has a quota of {@value #LIMIT} per key and a refill period or window of 365 days, so nothing
 * refills during a test and every figure is exact: what a key has left must equal its quota minus what was
 * admitted, give or take the requests whose outcome the client could not see (no answer, or 503 after the
 * decision API's timeout: such a decision may still have run, which can only over-count).
 *
 * <p>Run: {@code mvn verify} (failsafe, after package built the jar), or by hand
 * {@code mvn -Dgridlimit.buildSuffix=-x -pl micronaut-app -am verify -Dit.test=ClusterReliabilityIT -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false} with {@code TESTCONTAINERS_RYUK_DISABLED=true},
 * {@code TESTCONTAINERS_HOST_OVERRIDE=localhost} and {@code GRIDLIMIT_BASE_IMAGE} set as {@code .ci/run} sets them.
 * Each scenario prints its figures (admitted versus limit, state before and after, time to recover).
 */
@ExtendWith(RequireDockerOnCi.class)
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterReliabilityIT {
    static final long LIMIT = 400;
    static final List<String> POLICIES = List.of("tb", "gcra", "fw", "swl", "swc");
    /** The keys of the split-brain scenario. */
    static final List<String> KEYS = List.of("k0", "k1", "k2", "k3");
    static final String POLICIES_YAML = """
            gridlimit:
              policies:
                tb:   {algorithm: token-bucket, capacity: 400, refill-tokens: 1, refill-period: 365d}
                gcra: {algorithm: gcra, capacity: 400, refill-tokens: 1, refill-period: 365d}
                fw:   {algorithm: fixed-window, limit: 400, window: 365d}
                swl:  {algorithm: sliding-window-log, limit: 400, window: 365d}
                swc:  {algorithm: sliding-window-counter, limit: 400, window: 365d}
            """;
    private final DecisionClient client = new DecisionClient();

    private ServiceCluster threeMembers(List<String> aliases, int noHeartbeatSeconds) {
        ServiceCluster cluster = new ServiceCluster(POLICIES_YAML, aliases,
                ServiceCluster.hazelcastTiming(noHeartbeatSeconds));
        for (String alias : List.of("m1", "m2", "m3")) {
            cluster.start(alias);
        }
        return cluster;
    }

    /** A scenario's body, run against its own cluster. */
    interface Scenario {
        void run(ServiceCluster cluster) throws Exception;
    }

    /** Starts three members, runs {@code body}, prints the members' last log lines if it fails, stops the cluster. */
    private void scenario(List<String> aliases, int noHeartbeatSeconds, Scenario body) throws Exception {
        try (ServiceCluster cluster = threeMembers(aliases, noHeartbeatSeconds)) {
            try {
                body.run(cluster);
            } catch (Exception | AssertionError e) {
                System.out.println("scenario failed: " + e + "; members: " + cluster.describe());
                cluster.dumpLogs();
                throw e;
            }
        }
    }

    private LoadDriver load(ServiceCluster cluster, List<String> keys) {
        return new LoadDriver(client, () -> List.copyOf(cluster.members), POLICIES, keys, LIMIT, 3, 60_000, 240_000)
                .start();
    }

    /** {@code n} keys {@code k0..k<n-1>}. */
    private static List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add("k" + i);
        }
        return keys;
    }

    /**
     * Checks every key after the load stopped and the cluster settled: admitted cost never exceeds the quota, and
     * what the key has left is its quota minus what was admitted, minus at most what had an unknown outcome.
     * Prints one row per key.
     */
    private void verifyNoCapacityCameBack(String scenario, ServiceCluster cluster, LoadDriver load,
                                          List<String> keys) {
        ServiceCluster.Member probeMember = cluster.members.get(0);
        System.out.printf("%n[%s] policy/key: admitted cost / limit, unknown cost, remaining after (expected range)%n",
                scenario);
        List<String> failures = new ArrayList<>();
        for (String policy : POLICIES) {
            for (String key : keys) {
                LoadDriver.Tally t = load.tallies.get(policy + "/" + key);
                long admitted = t.admittedCost.sum();
                long unknown = t.unknownCost.sum();
                long remaining = probe(probeMember, policy, key);
                long high = LIMIT - admitted;
                long low = Math.max(0, LIMIT - admitted - unknown);
                System.out.printf("[%s] %s/%s: %d / %d, unknown %d, remaining %d (expected %d..%d)%n", scenario,
                        policy, key, admitted, LIMIT, unknown, remaining, low, high);
                if (admitted > LIMIT) {
                    failures.add(policy + "/" + key + " admitted " + admitted + " > " + LIMIT);
                }
                if (remaining > high || remaining < low) {
                    failures.add(policy + "/" + key + " remaining " + remaining + " not in [" + low + ", " + high
                            + "]");
                }
            }
        }
        System.out.printf("[%s] requests %d, statuses per member %s%n", scenario, load.requests.get(),
                load.statusSummary());
        assertThat(failures).as(scenario).isEmpty();
    }

    /** Every answer from a member that stayed up is a decision (200) or the decision API's 503. */
    private static void assertOnlyDecisionsOrDocumentedFailures(LoadDriver load, List<String> membersThatStayedUp) {
        for (String alias : membersThatStayedUp) {
            Map<Integer, Long> s = load.statusSummary().getOrDefault(alias, Map.of());
            assertThat(s.keySet()).as("statuses from " + alias).isSubsetOf(200, 503);
        }
    }

    private static void awaitAllReady(ServiceCluster cluster, int size) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> cluster.members
                .stream().allMatch(m -> cluster.ready(m) && cluster.membersSeenBy(m) == size));
    }

    @Test
    @Order(1)
    void killOneOfThreeUnderLoad() throws Exception {
        scenario(List.of("m1", "m2", "m3"), 15, cluster -> {
            ServiceCluster.Member victim = cluster.members.get(2);
            LoadDriver load = load(cluster, keys(4));
            load.awaitMoreRequests(1_500);
            long killed = System.nanoTime();
            cluster.kill(victim);
            load.awaitMoreRequests(2_500);
            load.close();
            awaitAllReady(cluster, 2);
            long undecided = load.lastUndecidedNanos.get();
            System.out.printf("%n[kill] time to recover (kill to the last request without a decision): %d ms%n",
                    Math.max(0, undecided - killed) / 1_000_000);
            assertOnlyDecisionsOrDocumentedFailures(load, List.of("m1", "m2"));
            verifyNoCapacityCameBack("kill", cluster, load, keys(4));
        });
    }

    @Test
    @Order(2)
    void rollingRestartUnderLoad() throws Exception {
        scenario(List.of("m1", "m2", "m3"), 30, cluster -> {
            LoadDriver load = load(cluster, keys(16));
            load.awaitMoreRequests(500);
            for (String alias : List.of("m1", "m2", "m3")) {
                ServiceCluster.Member old = cluster.members.stream().filter(m -> m.alias.equals(alias)).findFirst()
                        .orElseThrow();
                long t0 = System.nanoTime();
                cluster.stopGracefully(old);
                cluster.start(alias);
                awaitAllReady(cluster, 3);
                System.out.printf("[rolling] %s restarted, cluster safe again after %d ms%n", alias,
                        (System.nanoTime() - t0) / 1_000_000);
                load.awaitMoreRequests(300);
            }
            load.close();
            verifyNoCapacityCameBack("rolling", cluster, load, keys(16));
        });
    }

    @Test
    @Order(3)
    void fourthMemberJoinsUnderLoad() throws Exception {
        scenario(List.of("m1", "m2", "m3", "m4"), 30, cluster -> {
            LoadDriver load = load(cluster, keys(8));
            load.awaitMoreRequests(1_000);
            long t0 = System.nanoTime();
            cluster.start("m4");
            awaitAllReady(cluster, 4);
            System.out.printf("%n[join] m4 joined, cluster safe after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            load.awaitMoreRequests(1_500);
            load.close();
            assertOnlyDecisionsOrDocumentedFailures(load, List.of("m1", "m2", "m3", "m4"));
            verifyNoCapacityCameBack("join", cluster, load, keys(8));
        });
    }

    /**
     * Cuts m3 off, lets both sides decide (the majority first, then m3), heals, and checks that every key holds
     * the conservative merge: for bucket, GCRA and window counts the side with less left; for the log the union
     * of both sides' entries (each request at its own instant), bounded by the limit. What each side spent is
     * measured by probing before and after its traffic.
     */
    @Test
    @Order(4)
    void splitBrainHealsIntoTheConservativeMerge() throws Exception {
        scenario(List.of("m1", "m2", "m3"), 15, cluster -> {
            ServiceCluster.Member m1 = cluster.members.get(0);
            ServiceCluster.Member m2 = cluster.members.get(1);
            ServiceCluster.Member m3 = cluster.members.get(2);
            // shared history (an answer may be a 503 on a loaded machine: every figure below is measured, not counted)
            for (String policy : POLICIES) {
                for (String key : KEYS) {
                    spend(cluster.members, policy, key, 20);
                }
            }
            Map<String, Long> before = probeAll(m1);
            long cut = System.nanoTime();
            cluster.disconnect(m3);
            await("sides {m1,m2} and {m3}").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        System.out.println("[split] " + cluster.describe());
                        return cluster.membersSeenBy(m1) == 2 && cluster.membersSeenBy(m2) == 2
                                && cluster.membersSeenBy(m3) == 1 && cluster.ready(m1) && cluster.ready(m2)
                                && cluster.ready(m3);
                    });
            System.out.printf("%n[split] sides {m1,m2} and {m3} formed after %d ms%n",
                    (System.nanoTime() - cut) / 1_000_000);
            // each side starts from what it holds: {m1,m2} from the shared state, m3 from its replica (or fresh where
            // it held none)
            Map<String, Long> startA = probeAll(m1);
            Map<String, Long> startB = probeAll(m3);
            for (String policy : POLICIES) {
                for (String key : KEYS) {
                    spend(List.of(m1, m2), policy, key, 30 + 10 * KEYS.indexOf(key));
                }
            }
            for (String policy : POLICIES) {
                for (String key : KEYS) {
                    spend(List.of(m3), policy, key, 60 - 10 * KEYS.indexOf(key));
                }
            }
            Map<String, Long> sideA = probeAll(m1);
            Map<String, Long> sideB = probeAll(m3);
            Map<String, Long> admittedA = new LinkedHashMap<>();
            Map<String, Long> admittedB = new LinkedHashMap<>();
            Map<String, Long> expected = new LinkedHashMap<>();
            for (String pk : before.keySet()) {
                admittedA.put(pk, startA.get(pk) - sideA.get(pk));
                admittedB.put(pk, startB.get(pk) - sideB.get(pk));
                long merged = pk.startsWith("swl/")
                        ? Math.max(0, before.get(pk) - admittedA.get(pk) - admittedB.get(pk))
                        : Math.min(sideA.get(pk), sideB.get(pk));
                expected.put(pk, merged);
            }
            assertThat(startA).as("the majority side kept every key").isEqualTo(before);
            assertThat(sideA.values()).as("every probe on {m1,m2} answered").allMatch(v -> v >= 0);
            assertThat(sideB.values()).as("every probe on {m3} answered").allMatch(v -> v >= 0);
            long heal = System.nanoTime();
            cluster.reconnect(m3);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() ->
                    cluster.membersSeenBy(m1) == 3 && cluster.membersSeenBy(m3) == 3 && probeAll(m1).equals(expected));
            System.out.printf("[split] healed and merged after %d ms%n", (System.nanoTime() - heal) / 1_000_000);
            awaitAllReady(cluster, 3);
            Map<String, Long> after = probeAll(m3);
            System.out.println("[split] policy/key: before split, admitted on {m1,m2} / on {m3}, left on {m1,m2} / on"
                    + " {m3}, after heal (expected)");
            for (String pk : before.keySet()) {
                System.out.printf("[split] %s: %d, %d / %d, %d / %d, %d (%d)%n", pk, before.get(pk),
                        admittedA.get(pk), admittedB.get(pk), sideA.get(pk), sideB.get(pk), after.get(pk),
                        expected.get(pk));
            }
            assertThat(after).isEqualTo(expected);
            assertThat(probeAll(m2)).isEqualTo(expected);
        });
    }

    /**
     * Sends {@code n} requests of cost 1 round-robin to {@code members}. Each answer is a decision or the decision
     * API's 503 (on a loaded machine the grid may miss the API's 1 s deadline; that decision may still run, so the
     * scenario measures what was spent by probing, never by counting answers).
     */
    private void spend(List<ServiceCluster.Member> members, String policy, String key, int n) {
        for (int i = 0; i < n; i++) {
            DecisionClient.Answer a = client.check(members.get(i % members.size()).baseUrl, policy, key, 1);
            assertThat(a.status()).as(policy + "/" + key + " on " + members).isIn(200, 503);
        }
    }

    private Map<String, Long> probeAll(ServiceCluster.Member m) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String policy : POLICIES) {
            for (String key : KEYS) {
                out.put(policy + "/" + key, probe(m, policy, key));
            }
        }
        return out;
    }

    /** What a key has left, asked up to 10 times (a probe consumes nothing, so asking again is safe); -1 if none. */
    private long probe(ServiceCluster.Member m, String policy, String key) {
        long remaining = -1;
        for (int attempt = 0; attempt < 10 && remaining < 0; attempt++) {
            remaining = client.remaining(m.baseUrl, policy, key, LIMIT);
        }
        return remaining;
    }
}
