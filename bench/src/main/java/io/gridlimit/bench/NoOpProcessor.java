package io.gridlimit.bench;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.bench.grid.BatchBackupProcessor;
import io.gridlimit.bench.grid.BatchDecideProcessor;

import java.util.Map;

/**
 * The floor of the grid: an EntryProcessor that reads nothing, writes nothing and returns {@code null}. Its cost
 * is the key's serialization, the partition routing, the hand-off to the partition thread and back: everything a
 * GridLimit decision pays except the algorithm, its state's (de)serialization and the write with TTL.
 *
 * <p>Read-only ({@link #getBackupProcessor()} is null), so no backup runs even on a multi-member cluster.
 * Serialized as {@link IdentifiedDataSerializable} through {@link #FACTORY} (no Java serialization), under
 * factory id {@value #FACTORY_ID}, chosen far from grid-core's and Bucket4j's ids. Stateless; thread-safe.
 */
public final class NoOpProcessor implements EntryProcessor<String, Object, Object>, IdentifiedDataSerializable {
    /** The data-serializable factory id of the bench module. */
    public static final int FACTORY_ID = 7_342_001;
    /** This class's id within {@link #FACTORY_ID}. */
    public static final int CLASS_ID = 1;
    /** The one instance: the processor has no fields. */
    public static final NoOpProcessor INSTANCE = new NoOpProcessor();
    /**
     * Creates bench processors from their ids (this one, {@link RewriteProcessor}, and {@link BatchingBenchmark}'s
     * {@link BatchDecideProcessor} and {@link BatchBackupProcessor}); register under {@link #FACTORY_ID}.
     */
    public static final DataSerializableFactory FACTORY = typeId -> switch (typeId) {
        case CLASS_ID -> INSTANCE;
        case RewriteProcessor.CLASS_ID -> RewriteProcessor.INSTANCE;
        case BatchDecideProcessor.CLASS_ID -> new BatchDecideProcessor();
        case BatchBackupProcessor.CLASS_ID -> new BatchBackupProcessor();
        default -> null;
    };

    /**
     * Does nothing.
     *
     * @param entry the entry, untouched
     * @return null, always
     */
    @Override
    public Object process(Map.Entry<String, Object> entry) {
        return null;
    }

    /** @return null: the processor is read-only, no backup is needed */
    @Override
    public EntryProcessor<String, Object, Object> getBackupProcessor() {
        return null;
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
