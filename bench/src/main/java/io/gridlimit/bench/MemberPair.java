package io.gridlimit.bench;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.LocalMapStats;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Two embedded members of one fresh cluster in this JVM ({@link BenchMember#clusterConfig}, one synchronous backup),
 * both with one {@link ExpiryBench} sweep setting; waits until they form a safe cluster. Thread-safe once started.
 */
record MemberPair(HazelcastInstance a, HazelcastInstance b) implements AutoCloseable {
    static MemberPair start(ExpiryBench.Sweep sweep) {
        String name = "gridlimit-expiry-" + UUID.randomUUID();
        List<Integer> ports = List.of(BenchMember.freePort(), BenchMember.freePort());
        HazelcastInstance a = Hazelcast.newHazelcastInstance(
                sweep.applyTo(BenchMember.clusterConfig(name, ports.get(0), ports, BackupMode.SYNC)));
        HazelcastInstance b = Hazelcast.newHazelcastInstance(
                sweep.applyTo(BenchMember.clusterConfig(name, ports.get(1), ports, BackupMode.SYNC)));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (a.getCluster().getMembers().size() != 2 || !a.getPartitionService().isClusterSafe()) {
            if (System.nanoTime() > deadline) {
                a.getLifecycleService().terminate();
                b.getLifecycleService().terminate();
                throw new IllegalStateException("the two members did not form a safe cluster in 60 s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the members formed a cluster", e);
            }
        }
        return new MemberPair(a, b);
    }

    /** @return {owned, backup} entries of the map summed over both members */
    long[] held(String map) {
        long owned = 0;
        long backup = 0;
        for (HazelcastInstance m : List.of(a, b)) {
            LocalMapStats stats = m.getMap(map).getLocalMapStats();
            owned += stats.getOwnedEntryCount();
            backup += stats.getBackupEntryCount();
        }
        return new long[] {owned, backup};
    }

    @Override
    public void close() {
        b.getLifecycleService().terminate();
        a.getLifecycleService().terminate();
    }
}
