package io.gridlimit.bench.http;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The grid floor's one write per request ({@code bench/http-skewed.sh}'s {@code grid-floor} mode, {@link
 * GridFloorFilter}): on the key's owner, sets the entry to the fixed state {@value #STATE} with a time to live of
 * {@value #TTL_SECONDS} s and answers {@link Boolean#TRUE}. No time read, no policy, no arithmetic: the least any
 * grid limiter does per decision (one keyed operation that writes a small state with a TTL). Serialized as an
 * {@link IdentifiedDataSerializable} of factory {@value #FACTORY_ID}, class {@value #CLASS_ID}, with no fields, as
 * cheap on the wire as GridLimit's own processors can be.
 */
public final class GridFloorProcessor implements EntryProcessor<String, Long, Boolean>, IdentifiedDataSerializable {
    /** The Hazelcast data-serializable factory id of this class (distinct from GridLimit's and Bucket4j's). */
    public static final int FACTORY_ID = 31_337;
    /** The class id of this processor in {@link #FACTORY_ID}. */
    public static final int CLASS_ID = 1;
    /** The state written on every request. */
    public static final long STATE = 1L;
    /** The entry's time to live, in seconds (GridLimit's bench policy refills in 1 s, its TTL is of that order). */
    public static final long TTL_SECONDS = 2;
    /** The one instance: the processor has no fields. */
    public static final GridFloorProcessor INSTANCE = new GridFloorProcessor();

    /** @return the factory that reads {@link #INSTANCE} back, to register under {@link #FACTORY_ID} */
    public static DataSerializableFactory factory() {
        return id -> id == CLASS_ID ? INSTANCE : null;
    }

    /**
     * @param entry the request key's entry, on its owner
     * @return {@link Boolean#TRUE}
     */
    @Override
    public Boolean process(Map.Entry<String, Long> entry) {
        ((ExtendedMapEntry<String, Long>) entry).setValue(STATE, TTL_SECONDS, TimeUnit.SECONDS);
        return Boolean.TRUE;
    }

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return CLASS_ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) {
        // no fields
    }

    @Override
    public void readData(ObjectDataInput in) {
        // no fields
    }
}
