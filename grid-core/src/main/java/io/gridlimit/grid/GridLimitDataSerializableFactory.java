package io.gridlimit.grid;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * Creates GridLimit's {@link IdentifiedDataSerializable} grid types by class id. Register it on every member and
 * client under {@link #FACTORY_ID}; {@link GridLimitHazelcast} does so. Its ids never change. Stateless and
 * thread-safe.
 */
public final class GridLimitDataSerializableFactory implements DataSerializableFactory {
    /** The factory id to register this factory under: 0x474C ("GL"). Never changes. */
    public static final int FACTORY_ID = SerializationIds.FACTORY_ID;

    /** Creates the factory (Hazelcast may also create it by class name from XML or YAML configuration). */
    public GridLimitDataSerializableFactory() {
    }

    /**
     * Creates an empty instance to be read from the wire.
     *
     * @param typeId the class id
     * @return a new instance; null for an unknown id (Hazelcast then reports the unknown id)
     */
    @Override
    public IdentifiedDataSerializable create(int typeId) {
        return switch (typeId) {
            case SerializationIds.DECIDE_PROCESSOR -> new DecideProcessor();
            case SerializationIds.WRITE_STATE_PROCESSOR -> new WriteStateProcessor();
            case SerializationIds.DECISION_RESULT -> new DecisionResult();
            case SerializationIds.CONSERVATIVE_MERGE_POLICY -> new ConservativeMergePolicy<>();
            default -> null;
        };
    }
}
