package io.gridlimit.grid;

import com.hazelcast.core.EntryView;
import com.hazelcast.map.MapEvictionPolicyComparator;

/**
 * The eviction order of the policy maps at their per-member bound (SPEC §8): fresh-equivalent states first, then
 * the states closest to fresh, so that a depleted key in use is the last to be silently refilled.
 *
 * <h2>Why the expiration time</h2>
 * A comparator sees two entries of one map (Hazelcast evicts per map and partition), but not the map's name, so
 * it cannot look up the policy that {@code RateLimitAlgorithms.isFresh} needs. It does not need to: every write
 * of a state sets its TTL to the time after which the state equals a fresh one (SPEC §8; {@code DecideProcessor}
 * adds a fixed 1 s margin for Hazelcast's whole-second expiry), so an entry's expiration time is the instant its
 * state becomes fresh, plus that margin. Hence:
 * <ul>
 *   <li>an entry whose expiration time has passed, or falls within the margin, holds a fresh-equivalent state:
 *   evicting it loses nothing (Hazelcast evicts an already expired sample first anyway);</li>
 *   <li>among the others, the earlier expiration is the state nearer to fresh: for a bucket the fewer missing
 *   tokens ({@code resetAfter = missing·P/R} under one policy), for a window the earlier end of its counts, for a
 *   log the older newest entry. A key that has just spent its quota expires last and is evicted last.</li>
 * </ul>
 * Ties (same expiration, e.g. two keys of one fixed window) go to the entry updated least recently, then the
 * least hit. Reads only metadata: no value is deserialized during eviction.
 *
 * <p>Hazelcast samples a few entries of the partition (15) and evicts the one this comparator puts first, so the
 * order holds among the sampled entries; with partitions holding more entries than the sample, a non-fresh entry
 * may go while a fresher one elsewhere in the partition stays. Such evictions are counted by
 * {@link StateLossListener}.
 *
 * <p>Configured by class name ({@link GridLimitHazelcast#mapConfig(int, int)}). Stateless and thread-safe.
 */
public final class FreshFirstEvictionComparator implements MapEvictionPolicyComparator<Object, Object> {
    private static final long serialVersionUID = 1L;

    /** Creates the comparator; Hazelcast creates it by class name from the map configuration. */
    public FreshFirstEvictionComparator() {
    }

    /**
     * Orders two entries for eviction.
     *
     * @param e1 an entry of the map
     * @param e2 another entry of the same map
     * @return negative when {@code e1} is to be evicted before {@code e2}, positive for the reverse, 0 when equal
     */
    @Override
    public int compare(EntryView<Object, Object> e1, EntryView<Object, Object> e2) {
        int c = Long.compare(e1.getExpirationTime(), e2.getExpirationTime());
        if (c != 0) {
            return c;
        }
        c = Long.compare(e1.getLastUpdateTime(), e2.getLastUpdateTime());
        return c != 0 ? c : Long.compare(e1.getHits(), e2.getHits());
    }
}
