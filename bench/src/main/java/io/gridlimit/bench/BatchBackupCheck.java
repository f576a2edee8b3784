package io.gridlimit.bench;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.gridlimit.api.Policy;
import io.gridlimit.bench.grid.BenchDecisions;
import io.gridlimit.grid.GridLimitHazelcast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Checks that a batched decision's backup carries every key's computed state ({@link BatchingBenchmark}'s
 * {@code BatchDecideProcessor}): two members in this JVM (one backup), three batches of 64 keys owned by member
 * A on a policy of capacity 100 refilled 1 per hour (so each state holds 97 tokens and a TTL of hours), the
 * states read from A, then A TERMINATED (no graceful migration: B serves from its backup replicas) and the same
 * keys read from B; every state must be equal (a backup that re-decided would hold 94, a missing one null). The
 * batch's backups are asynchronous in Hazelcast 5.7 ({@code MultipleEntryOperation.getSyncBackupCount()} is 0), so
 * it waits 500 ms before terminating. Prints one line and exits with status 1 on any difference.
 *
 * <pre>{@code
 * java --add-opens=java.base/java.lang=ALL-UNNAMED -cp bench/target/benchmarks.jar io.gridlimit.bench.BatchBackupCheck
 * }</pre>
 */
public final class BatchBackupCheck {
    /** Capacity 100, refilled 1 per hour: a state's TTL is hours, so nothing expires during the check. */
    private static final Policy POLICY = Policy.builder("batch-check").tokenBucket(100, 1, Duration.ofHours(1)).build();

    private BatchBackupCheck() {
    }

    /**
     * @param args none
     * @throws Exception if the cluster fails
     */
    public static void main(String[] args) throws Exception {
        BenchMember.logHazelcastAt(java.util.logging.Level.WARNING);
        String name = "gridlimit-batch-check-" + UUID.randomUUID();
        List<Integer> ports = List.of(BenchMember.freePort(), BenchMember.freePort());
        HazelcastInstance a = Hazelcast.newHazelcastInstance(
                BenchMember.clusterConfig(name, ports.get(0), ports, BackupMode.of("sync")));
        HazelcastInstance b = Hazelcast.newHazelcastInstance(
                BenchMember.clusterConfig(name, ports.get(1), ports, BackupMode.of("sync")));
        try {
            while (a.getCluster().getMembers().size() < 2 || !a.getPartitionService().isClusterSafe()) {
                Thread.sleep(50);
            }
            Member owner = a.getCluster().getLocalMember();
            Set<String> keys = new HashSet<>();
            Set<Integer> partitions = new HashSet<>();
            for (int i = 0; i < BenchKeys.COUNT && keys.size() < 64; i++) {
                var p = a.getPartitionService().getPartition(BenchKeys.get(i));
                if (owner.equals(p.getOwner())) {
                    keys.add(BenchKeys.get(i));
                    partitions.add(p.getPartitionId());
                }
            }
            BenchDecisions decisions = BenchDecisions.of(a, POLICY);
            for (int round = 0; round < 3; round++) {
                decisions.batchMember(keys, partitions, owner.getUuid()).get(10, TimeUnit.SECONDS);
            }
            String map = GridLimitHazelcast.mapName(POLICY.name());
            IMap<String, Object> onA = a.getMap(map);
            Map<String, Object> before = new HashMap<>();
            for (String key : keys) {
                before.put(key, onA.get(key));
            }
            Thread.sleep(500);
            a.getLifecycleService().terminate();
            while (b.getCluster().getMembers().size() != 1 || !b.getPartitionService().isClusterSafe()) {
                Thread.sleep(50);
            }
            IMap<String, Object> onB = b.getMap(map);
            List<String> differing = new ArrayList<>();
            for (String key : keys) {
                if (before.get(key) == null || !Objects.equals(before.get(key), onB.get(key))) {
                    differing.add(key + " (owner " + before.get(key) + ", backup " + onB.get(key) + ")");
                }
            }
            System.out.println("batch backup check: " + keys.size() + " keys over " + partitions.size()
                    + " partitions, " + (keys.size() - differing.size()) + " equal on the backup after the owner's"
                    + " termination, " + differing.size() + " differing " + differing);
            if (!differing.isEmpty()) {
                System.exit(1);
            }
        } finally {
            b.shutdown();
            if (a.getLifecycleService().isRunning()) {
                a.shutdown();
            }
        }
    }
}
