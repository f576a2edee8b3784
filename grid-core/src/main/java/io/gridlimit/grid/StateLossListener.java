package io.gridlimit.grid;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.MapPartitionLostEvent;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.MapPartitionLostListener;
import com.hazelcast.partition.Partition;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Policy;
import java.util.Iterator;
import io.gridlimit.grid.owner.SeenPolicies;

/**
 * Counts lost limiter state into the member's {@link StateLoss} (SPEC §8 {@code gridlimit.state.lost}).
 *
 * <ul>
 *   <li><b>Evictions</b> (a local entry listener: only the owner's evictions, each counted once): the evicted
 *   state is judged with {@link RateLimitAlgorithms#isFresh} under the map's policy from the member's
 *   {@link SeenPolicies}, at the member's time source; a fresh-equivalent one lost nothing. An eviction whose
 *   policy the member does not know counts as lost.</li>
 *   <li><b>Partition loss</b> (a map partition-lost listener): every member hears it; only the master (the oldest
 *   member) counts it, so the cluster-wide sum is right. The entries are estimated (see
 *   {@link StateLoss#entriesLostWithPartitions()}).</li>
 * </ul>
 * Expiry is not loss (an expired state is fresh by construction) and is not counted. Configured by class name on
 * the policy maps ({@link GridLimitHazelcast#mapConfig(int, int)}); Hazelcast injects the member. Events arrive on
 * Hazelcast's event threads. Thread-safe.
 */
public final class StateLossListener
        implements EntryEvictedListener<String, LimiterState>, MapPartitionLostListener, HazelcastInstanceAware {
    private volatile HazelcastInstance member;

    /** Creates the listener; Hazelcast creates it by class name from the map configuration. */
    public StateLossListener() {
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public void entryEvicted(EntryEvent<String, LimiterState> event) {
        HazelcastInstance m = member;
        if (m == null) {
            return;
        }
        LimiterState state = event.getOldValue();
        SeenPolicies seen = SeenPolicies.of(m);
        Policy policy = seen.forMap(event.getName());
        if (policy == null && state != null) {
            policy = seen.resolve(state, null);
        }
        boolean fresh = state == null
                || (policy != null && RateLimitAlgorithms.isFresh(state, policy,
                        GridLimitHazelcast.timeSourceOf(m).nowNanos()));
        StateLoss.of(m).evicted(fresh);
    }

    @Override
    public void partitionLost(MapPartitionLostEvent event) {
        HazelcastInstance m = member;
        if (m == null) {
            return;
        }
        Iterator<Member> members = m.getCluster().getMembers().iterator();
        if (!members.hasNext() || !members.next().localMember()) {
            return;
        }
        StateLoss.of(m).partitionLost(estimateEntriesPerPartition(m, event.getName()));
    }

    private static long estimateEntriesPerPartition(HazelcastInstance m, String mapName) {
        Member local = m.getCluster().getLocalMember();
        long owned = 0;
        for (Partition p : m.getPartitionService().getPartitions()) {
            if (local.equals(p.getOwner())) {
                owned++;
            }
        }
        if (owned == 0) {
            return 0;
        }
        long entries = m.getMap(mapName).getLocalMapStats().getOwnedEntryCount();
        return (entries + owned / 2) / owned;
    }

    @Override
    public String toString() {
        return "StateLossListener";
    }
}
