package io.gridlimit.grid;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.grid.catalog.CatalogSupport;
import io.gridlimit.grid.catalog.CatalogUpdateProcessor;
import io.gridlimit.grid.catalog.CatalogWriteProcessor;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.owner.LeaseProcessor;
import io.gridlimit.grid.owner.LeaseResult;
import io.gridlimit.grid.owner.SettleProcessor;
import io.gridlimit.grid.owner.SettleResult;
import io.gridlimit.grid.owner.WriteStateProcessor;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;

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
     * @return a new instance; for an id this GridLimit does not know (written by a newer GridLimit: ids are never
     *     reused, and ranges are reserved ahead, {@link SerializationIds}) one whose reading fails with
     *     {@link WireFormat#refuse}'s one log line; null for an id below 1
     */
    @Override
    public IdentifiedDataSerializable create(int typeId) {
        return switch (typeId) {
            case SerializationIds.DECIDE_PROCESSOR -> new DecideProcessor(false);
            case SerializationIds.WRITE_STATE_PROCESSOR -> new WriteStateProcessor(false);
            case SerializationIds.DECISION_RESULT -> new DecisionResult(false);
            case SerializationIds.CONSERVATIVE_MERGE_POLICY -> new ConservativeMergePolicy<>();
            case SerializationIds.DECIDE_PROCESSOR_VERSIONED -> new DecideProcessor(true);
            case SerializationIds.WRITE_STATE_PROCESSOR_VERSIONED -> new WriteStateProcessor(true);
            case SerializationIds.DECISION_RESULT_VERSIONED -> new DecisionResult(true);
            case SerializationIds.RESERVE_PROCESSOR -> new DecideProcessor(true).reserving();
            case SerializationIds.HIT_PROCESSOR -> new DecideProcessor(true).hitting();
            case SerializationIds.RESERVE_RESULT -> new DecisionResult(true).reserving();
            case SerializationIds.SETTLE_PROCESSOR -> new SettleProcessor();
            case SerializationIds.SETTLE_RESULT -> new SettleResult();
            case SerializationIds.LEASE_PROCESSOR -> new LeaseProcessor();
            case SerializationIds.LEASE_RESULT -> new LeaseResult();
            case SerializationIds.DECIDE_PROCESSOR_CATALOG -> DecideProcessor.catalogForm();
            case SerializationIds.DECISION_RESULT_CATALOG -> DecisionResult.catalogForm();
            case SerializationIds.POLICY_RECORD -> CatalogSupport.emptyRecord();
            case SerializationIds.CATALOG_UPDATE_PROCESSOR -> new CatalogUpdateProcessor();
            case SerializationIds.CATALOG_WRITE_PROCESSOR -> new CatalogWriteProcessor();
            case SerializationIds.CATALOG_UPDATE_RESULT -> new CatalogUpdateProcessor.Result();
            case SerializationIds.POLICY_RECORD_GENERATION -> CatalogSupport.emptyGenerationRecord();
            case SerializationIds.CATALOG_SEED_PROCESSOR -> CatalogUpdateProcessor.generationForm();
            default -> typeId > 0 ? new Unknown(typeId) : null;
        };
    }

    /** A type of a newer GridLimit: reading it fails with one clear log line, not a stack trace per message. */
    private record Unknown(int classId) implements IdentifiedDataSerializable {
        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            throw new IOException("class id " + classId + " is never written here");
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            throw WireFormat.refuse("GridLimit type", "class id " + classId);
        }

        @Override
        public int getFactoryId() {
            return SerializationIds.FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return classId;
        }
    }
}
