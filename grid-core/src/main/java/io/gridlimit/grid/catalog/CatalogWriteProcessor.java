package io.gridlimit.grid.catalog;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for the factory ({@code io.gridlimit.grid}), which creates it by class id.
 *
 * <p>The backup processor of a catalog update: it stores, on a backup replica, exactly the record the primary
 * computed ({@link CatalogUpdateProcessor}); it reads no clock and compares nothing. Wire form (class id
 * {@link SerializationIds#CATALOG_WRITE_PROCESSOR}): the format byte, then the record. Not thread-safe; one instance
 * per backup operation.
 */
public final class CatalogWriteProcessor
        implements EntryProcessor<String, PolicyRecord, CatalogUpdateProcessor.Result>, IdentifiedDataSerializable {
    private PolicyRecord record;

    /** For deserialization. */
    public CatalogWriteProcessor() {
    }

    /** @param record the record the primary wrote */
    public CatalogWriteProcessor(PolicyRecord record) {
        this.record = Objects.requireNonNull(record, "record");
    }

    @Override
    public CatalogUpdateProcessor.Result process(Map.Entry<String, PolicyRecord> entry) {
        entry.setValue(record);
        return null;
    }

    /** @return null: a backup has no backup of its own */
    @Override
    public EntryProcessor<String, PolicyRecord, CatalogUpdateProcessor.Result> getBackupProcessor() {
        return null;
    }

    public PolicyRecord record() {
        return record;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(WireFormat.catalogFormat());
        out.writeObject(record);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "CatalogWriteProcessor");
        record = in.readObject();
        if (record == null) {
            throw new IOException("a catalog backup without a record");
        }
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SerializationIds.CATALOG_WRITE_PROCESSOR;
    }
}
