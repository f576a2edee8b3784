package io.gridlimit.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.impl.merge.MapMergingEntryImpl;
import com.hazelcast.spi.merge.MergingExpirationTime;
import com.hazelcast.spi.merge.MergingTTL;
import com.hazelcast.spi.merge.MergingValue;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.MergeStates;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.owner.SeenPolicies;

/**
 * The split-brain merge policy of the policy maps {@code gridlimit.*} (docs/SPEC.md §8): when two
 * sub-clusters heal, each key keeps a state at least as consumed as both sides' ({@link MergeStates}), so a client
 * that spent its quota on both sides gets nothing back. Hazelcast's own policies keep one side's value whole
 * ({@code PutIfAbsentMergePolicy}, the default, keeps the larger cluster's), which hands back what was spent on
 * the other side.
 *
 * <h2>How it merges</h2>
 * <ol>
 *   <li>Hazelcast runs {@link #merge} on the owner of the key in the healed cluster, with the entry of the smaller
 *   side ({@code mergingValue}) and the owner's own ({@code existingValue}, null when it has none: the merging
 *   value is then taken as it is).</li>
 *   <li>The key's policy is not part of the entry: it is found in the member's {@link SeenPolicies} by the
 *   shape of the two states (it fills itself with every decision the member runs or asks). When no
 *   known policy, or several different ones, fit both states, the states are merged without it, as
 *   {@link MergeStates} describes (still conservative; a token bucket may then withhold some refill).</li>
 *   <li>Expiry: Hazelcast gives the merged record the expiration of the merging entry. The merged state becomes
 *   fresh no later than the later of the two inputs, so the policy hands Hazelcast the later of the two entries'
 *   expiration times (with its TTL and update time), so that a merged state never expires before it equals a
 *   fresh one (SPEC §8). This writes through Hazelcast's merging entry ({@code MapMergingEntryImpl}), the type
 *   Hazelcast 5.x passes to map merge policies; a test checks it on a real merge.</li>
 *   <li>A value that is not a GridLimit state (the policy configured on another map) keeps the existing value,
 *   as Hazelcast's default does.</li>
 * </ol>
 *
 * <p>Configured by {@link GridLimitHazelcast#mapConfig(int)} on every policy map. Wire form: no fields
 * ({@link IdentifiedDataSerializable}, factory {@link GridLimitDataSerializableFactory#FACTORY_ID}, class id 4).
 * Thread-safe: it keeps no state but the injected member.
 *
 * @param <T> the merging entry view: a value with its expiration time and TTL
 */
public final class ConservativeMergePolicy<T extends MergingValue<Object> & MergingExpirationTime & MergingTTL>
        implements SplitBrainMergePolicy<Object, T, Object>, IdentifiedDataSerializable, HazelcastInstanceAware {
    private transient volatile HazelcastInstance instance;

    /** Creates the policy; Hazelcast creates it by class name from the map configuration. */
    public ConservativeMergePolicy() {
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    /**
     * Merges one key.
     *
     * @param mergingValue the entry of the smaller sub-cluster, never null
     * @param existingValue the entry of the owner in the healed cluster, or null when it has none
     * @return the value to store: one of the two raw values when the merge equals it, else the merged
     *     {@link LimiterState}
     */
    @Override
    public Object merge(T mergingValue, T existingValue) {
        if (existingValue == null) {
            return mergingValue.getRawValue();
        }
        Object existingObject = existingValue.getDeserializedValue();
        Object mergingObject = mergingValue.getDeserializedValue();
        if (!(existingObject instanceof LimiterState existing) || !(mergingObject instanceof LimiterState merging)) {
            return existingValue.getRawValue();
        }
        LimiterState merged = merge(existing, merging, instance);
        keepLaterExpiration(mergingValue, existingValue);
        if (merged.equals(existing)) {
            return existingValue.getRawValue();
        }
        if (merged.equals(merging)) {
            return mergingValue.getRawValue();
        }
        return merged;
    }

    /**
     * The state merge with the policy found in the member's seen policies.
     *
     * @param existing the owner's state
     * @param merging the smaller side's state
     * @param memberOrNull the member (its {@link SeenPolicies}), or null: merge without a policy
     * @return the merged state
     */
    static LimiterState merge(LimiterState existing, LimiterState merging, HazelcastInstance memberOrNull) {
        Policy policy = memberOrNull == null ? null : SeenPolicies.of(memberOrNull).resolve(existing, merging);
        return MergeStates.moreConsumed(existing, merging, policy);
    }

    /** Makes Hazelcast apply the later of the two expirations (it applies the merging entry's). */
    private static void keepLaterExpiration(MergingValue<?> merging, MergingValue<?> existing) {
        long mergingExpiration = ((MergingExpirationTime) merging).getExpirationTime();
        long existingExpiration = ((MergingExpirationTime) existing).getExpirationTime();
        if (existingExpiration > mergingExpiration && merging instanceof MapMergingEntryImpl<?, ?> entry) {
            entry.setExpirationTime(existingExpiration);
            entry.setTtl(((MergingTTL) existing).getTtl());
            if (existing instanceof MapMergingEntryImpl<?, ?> e) {
                entry.setLastUpdateTime(e.getLastUpdateTime());
            }
        }
    }

    @Override
    public void writeData(ObjectDataOutput out) {
        // no fields
    }

    @Override
    public void readData(ObjectDataInput in) {
        // no fields
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.CONSERVATIVE_MERGE_POLICY;
    }

    @Override
    public String toString() {
        return "ConservativeMergePolicy";
    }
}
