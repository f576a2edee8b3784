package io.gridlimit.grid.catalog;

import io.gridlimit.grid.wire.MemberContext;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Internal to grid-core: not API; public for {@code PolicyCatalog} and the factory ({@code io.gridlimit.grid}).
 *
 * <p>One change of the grid's policy catalog (docs/SPEC.md §11), run on the owner of the policy's catalog entry: a
 * compare-and-set on the record's version, since open-source Hazelcast has no CP subsystem and a ReplicatedMap no
 * compare-and-set. Three operations:
 * <ul>
 *   <li>{@link Op#PUT}: applied when {@code expectedVersion} is {@link #ANY}, or {@link #ABSENT} and the policy is
 *   absent or deleted, or equal to the live record's version; the new record is version + 1, origin
 *   {@link PolicyRecord.Origin#API}. A policy equal to the live one, already owned by the API, changes nothing.</li>
 *   <li>{@link Op#DELETE}: the same version check on a live record; writes a tombstone (version + 1).</li>
 *   <li>{@link Op#SEED}: configuration's rule (SPEC §11), decided here against the record as it stands: a policy
 *   the catalog lacks is created, origin {@link PolicyRecord.Origin#CONFIGURATION}, with the seed's generation; a
 *   record the API changed or deleted is left as it is; a record configuration seeded is changed (version + 1)
 *   only by a seed of a higher generation ({@link #withGeneration}), whatever its parameters, and otherwise left
 *   standing, so the first replica of a generation wins and a replica of an older generation never rolls the
 *   cluster back. Left as it is, the answer is {@link Status#UNCHANGED} with the record that stands: the caller
 *   compares it with its configuration to report a disagreement. A seed without a generation (class id 33: from a
 *   GridLimit before generations, or sent while a member of the cluster is one) keeps that version's rule for
 *   records of generation 0 (other parameters change it) and never changes a record of a higher generation.</li>
 * </ul>
 * The record's time is the owner's cluster time, read once. The backup receives the record computed here
 * ({@link CatalogWriteProcessor}), never a re-run. Wire form (class id
 * {@link SerializationIds#CATALOG_UPDATE_PROCESSOR}): the format byte, name, op (byte), expectedVersion, changedBy
 * (nullable), a policy flag and the policy; a seed with a generation is class id
 * {@link SerializationIds#CATALOG_SEED_PROCESSOR}: the same fields, then the generation (long). Not thread-safe:
 * one instance per invocation.
 */
public final class CatalogUpdateProcessor
        implements EntryProcessor<String, PolicyRecord, CatalogUpdateProcessor.Result>, IdentifiedDataSerializable,
        HazelcastInstanceAware {
    /** {@code expectedVersion}: apply whatever the current version. */
    public static final long ANY = -1;
    /** {@code expectedVersion}: apply only when the policy is absent or deleted. */
    public static final long ABSENT = 0;

    /** The kind of change; its position (from 1) is its wire code (docs/wire.md): never reorder. */
    public enum Op {
        /** Create or replace through the admin API. */
        PUT,
        /** Delete through the admin API. */
        DELETE,
        /** Seed from configuration. */
        SEED
    }

    /** What became of a change; its position (from 1) is its wire code (docs/wire.md): never reorder. */
    public enum Status {
        /** Written: a new version. */
        APPLIED,
        /** Nothing to write: the same policy, or (a seed) a record the API owns. */
        UNCHANGED,
        /** The expected version did not match: nothing written. */
        CONFLICT,
        /** A delete of a policy that is absent or already deleted. */
        NOT_FOUND
    }

    private String name;
    private Op op;
    private long expectedVersion;
    private String changedBy;
    private Policy policy;
    /** Whether this seed carries a generation (class id 37). */
    private boolean generationForm;
    /** The configuration generation of a seed in the generation form, >= 0; else 0. */
    private long generation;

    private transient HazelcastInstance instance;
    private transient CatalogWriteProcessor backup;

    /** For deserialization (class id 33). */
    public CatalogUpdateProcessor() {
    }

    /** @return an empty processor to be read in the form of class id 37, a seed with its generation */
    public static CatalogUpdateProcessor generationForm() {
        CatalogUpdateProcessor p = new CatalogUpdateProcessor();
        p.generationForm = true;
        return p;
    }

    /**
     * @param name the policy name
     * @param op the change
     * @param expectedVersion {@link #ANY}, {@link #ABSENT} or a version >= 1
     * @param changedBy who asks, or null
     * @param policyOrNull the policy for PUT and SEED (its name is {@code name}), null for DELETE
     */
    public CatalogUpdateProcessor(String name, Op op, long expectedVersion, String changedBy, Policy policyOrNull) {
        this.name = Objects.requireNonNull(name, "name");
        this.op = Objects.requireNonNull(op, "op");
        this.expectedVersion = expectedVersion;
        this.changedBy = changedBy;
        this.policy = policyOrNull;
        if ((op == Op.DELETE) != (policyOrNull == null)) {
            throw new IllegalArgumentException(op + " needs " + (op == Op.DELETE ? "no policy" : "a policy"));
        }
        if (policyOrNull != null && !policyOrNull.name().equals(name)) {
            throw new IllegalArgumentException("policy '" + policyOrNull.name() + "' stored under '" + name + "'");
        }
    }

    /**
     * Makes this seed carry a configuration generation (class id 37): send it only while every member reads
     * generations ({@link CatalogSupport#generations}).
     *
     * @param seedGeneration {@code gridlimit.catalog.generation}, >= 0
     * @return this processor
     * @throws IllegalArgumentException if this is not a seed, or {@code seedGeneration < 0}
     */
    public CatalogUpdateProcessor withGeneration(long seedGeneration) {
        if (op != Op.SEED || seedGeneration < 0) {
            throw new IllegalArgumentException("a generation >= 0 for a seed, got " + seedGeneration + " for " + op);
        }
        this.generationForm = true;
        this.generation = seedGeneration;
        return this;
    }

    /** @return the policy name: the catalog map key */
    public String name() {
        return name;
    }

    /** @return the seed's configuration generation in the generation form (class id 37), else 0 */
    public long generation() {
        return generation;
    }

    /** @return the change */
    public Op op() {
        return op;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public Result process(Map.Entry<String, PolicyRecord> entry) {
        backup = null;
        PolicyRecord current = entry.getValue();
        boolean live = current != null && current.live();
        if (op == Op.SEED) {
            return seed(entry, current, live);
        }
        if (expectedVersion == ABSENT ? live : expectedVersion != ANY && (!live || current.version() != expectedVersion)) {
            return new Result(Status.CONFLICT, current, current);
        }
        if (op == Op.DELETE) {
            return live ? write(entry, current, PolicyRecord.Origin.API) : new Result(Status.NOT_FOUND, current, current);
        }
        if (live && current.origin() == PolicyRecord.Origin.API && current.policy().equals(policy)) {
            return new Result(Status.UNCHANGED, current, current);
        }
        return write(entry, current, PolicyRecord.Origin.API);
    }

    /** The seed rule of the class note. */
    private Result seed(Map.Entry<String, PolicyRecord> entry, PolicyRecord current, boolean live) {
        if (current != null && current.origin() == PolicyRecord.Origin.API) {
            return new Result(Status.UNCHANGED, current, current); // the catalog's: the caller reports the difference
        }
        if (!live) {
            return write(entry, current, PolicyRecord.Origin.CONFIGURATION);
        }
        boolean replaces = generationForm ? current.generation() < generation
                : current.generation() == 0 && !current.policy().equals(policy);
        return replaces ? write(entry, current, PolicyRecord.Origin.CONFIGURATION)
                : new Result(Status.UNCHANGED, current, current);
    }

    private Result write(Map.Entry<String, PolicyRecord> entry, PolicyRecord current, PolicyRecord.Origin origin) {
        long atMillis = instance == null ? 0 : MemberContext.timeSourceOf(instance).nowNanos() / 1_000_000L;
        long nextGeneration = origin == PolicyRecord.Origin.CONFIGURATION ? generation : 0;
        PolicyRecord next = current == null
                ? new PolicyRecord(name, 1, origin, nextGeneration, changedBy, atMillis, policy, List.of())
                : current.next(policy, origin, nextGeneration, changedBy, atMillis);
        entry.setValue(next);
        backup = new CatalogWriteProcessor(next);
        return new Result(Status.APPLIED, current, next);
    }

    /** @return the processor writing the record computed here on the backups; null when nothing was written */
    @Override
    public CatalogWriteProcessor getBackupProcessor() {
        return backup;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(WireFormat.catalogFormat());
        out.writeString(name);
        out.writeByte(op.ordinal() + 1);
        out.writeLong(expectedVersion);
        out.writeString(changedBy);
        out.writeBoolean(policy != null);
        if (policy != null) {
            PolicyCodec.writeWithDebts(out, policy, WireFormat.catalogFormat());
        }
        if (generationForm) {
            out.writeLong(generation); // class id 37 (getClassId)
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = WireFormat.readVersion(in, "CatalogUpdateProcessor");
        name = in.readString();
        int o = in.readByte();
        if (name == null || o < 1 || o > Op.values().length) {
            throw new IOException("corrupt catalog update: op " + o);
        }
        op = Op.values()[o - 1];
        expectedVersion = in.readLong();
        changedBy = in.readString();
        policy = in.readBoolean() ? PolicyCodec.readWithDebts(in, format) : null;
        if (generationForm) {
            generation = in.readLong();
            if (op != Op.SEED || generation < 0 || policy == null) {
                throw new IOException("corrupt catalog seed: op " + op + ", generation " + generation);
            }
        }
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return generationForm ? SerializationIds.CATALOG_SEED_PROCESSOR : SerializationIds.CATALOG_UPDATE_PROCESSOR;
    }

    /**
     * What a catalog change returns. Wire form (class id {@link SerializationIds#CATALOG_UPDATE_RESULT}): the format
     * byte, status (byte), the record before and the record after (nullable objects).
     */
    public static final class Result implements IdentifiedDataSerializable {
        private Status status;
        private PolicyRecord before;
        private PolicyRecord after;

        /** For deserialization. */
        public Result() {
        }

        public Result(Status status, PolicyRecord before, PolicyRecord after) {
            this.status = status;
            this.before = before;
            this.after = after;
        }

        public Status status() {
            return status;
        }

        /** @return the record before the change, or null when there was none */
        public PolicyRecord before() {
            return before;
        }

        /** @return the record after the change (the current one when nothing was written), or null */
        public PolicyRecord after() {
            return after;
        }

        @Override
        public void writeData(ObjectDataOutput out) throws IOException {
            out.writeByte(WireFormat.catalogFormat());
            out.writeByte(status.ordinal() + 1);
            out.writeObject(before);
            out.writeObject(after);
        }

        @Override
        public void readData(ObjectDataInput in) throws IOException {
            WireFormat.readVersion(in, "CatalogUpdateProcessor.Result");
            int s = in.readByte();
            if (s < 1 || s > Status.values().length) {
                throw new IOException("corrupt catalog result: status " + s);
            }
            status = Status.values()[s - 1];
            before = in.readObject();
            after = in.readObject();
        }

        @Override
        public int getFactoryId() {
            return SerializationIds.FACTORY_ID;
        }

        @Override
        public int getClassId() {
            return SerializationIds.CATALOG_UPDATE_RESULT;
        }
    }
}
