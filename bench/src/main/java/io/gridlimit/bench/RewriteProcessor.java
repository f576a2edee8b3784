package io.gridlimit.bench;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The write floor of the grid: an EntryProcessor that reads the stored value (deserializing GridLimit's state as a
 * decision does) and writes the same value back with a TTL, returning {@code null}. Its cost is everything a
 * GridLimit decision that writes pays on one member except the algorithm, the policy carried by the processor,
 * the owner's time reading and the decision result: the record update, the entry's expiry metadata, the state's
 * Compact (de)serialization. GridLimit's rows divided by this row show what GridLimit adds to a Hazelcast write.
 *
 * <p>No backup processor: measured on one member only, where no backup runs anyway (a multi-member backup would
 * not be updated). The TTL is one hour, so no entry expires during a trial. Serialized as
 * {@link IdentifiedDataSerializable} under {@link NoOpProcessor#FACTORY_ID}, class id {@value #CLASS_ID}.
 * Stateless; thread-safe.
 */
public final class RewriteProcessor implements EntryProcessor<String, Object, Object>, IdentifiedDataSerializable {
    /** This class's id within {@link NoOpProcessor#FACTORY_ID}. */
    public static final int CLASS_ID = 2;
    /** The one instance: the processor has no fields. */
    public static final RewriteProcessor INSTANCE = new RewriteProcessor();
    private static final long TTL_MILLIS = TimeUnit.HOURS.toMillis(1);

    /**
     * Writes the entry's value back with a one-hour TTL.
     *
     * @param entry the entry; absent entries are left absent
     * @return null, always
     * @throws IllegalStateException if Hazelcast passes an entry that cannot take a TTL
     */
    @Override
    public Object process(Map.Entry<String, Object> entry) {
        Object value = entry.getValue();
        if (value == null) {
            return null;
        }
        if (!(entry instanceof ExtendedMapEntry<String, Object> extended)) {
            throw new IllegalStateException("expected an ExtendedMapEntry, got " + entry.getClass().getName());
        }
        extended.setValue(value, TTL_MILLIS, TimeUnit.MILLISECONDS);
        return null;
    }

    /** @return null: measured on one member, where no backup runs */
    @Override
    public EntryProcessor<String, Object, Object> getBackupProcessor() {
        return null;
    }

    @Override
    public int getFactoryId() {
        return NoOpProcessor.FACTORY_ID;
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
