package io.gridlimit.grid.catalog;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.wire.PolicyCodec;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.grid.wire.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import io.gridlimit.grid.owner.SeenPolicies;

/**
 * One versioned policy of the grid's policy catalog (docs/SPEC.md §11), the value of the catalog map under the
 * policy's name. Versions start at 1 and grow by one with every change; a deletion is a record without a policy (a
 * tombstone), so a policy created again under the name continues the versions and no owner mistakes an old version
 * for a newer one. A rollback is a change like any other: a new, higher version.
 *
 * <p>A record seeded from configuration keeps the configuration generation that seeded it
 * ({@code gridlimit.catalog.generation}, SPEC §11): a seed of a higher generation changes it, one of the same or a
 * lower generation leaves it standing, so a replica restarted on an older configuration never rolls the cluster
 * back. A record the admin API wrote has generation 0 (configuration no longer changes it).
 *
 * <p>Wire form (class id {@link SerializationIds#POLICY_RECORD}): the format byte (2 or later), name, version,
 * origin (byte: 1 configuration, 2 API), changedBy (nullable string), changedAtMillis, a live flag, the policy when
 * live ({@link PolicyCodec} in the record's format), then the count of earlier versions kept and per one its
 * version and policy. A record of generation 0 is written so, and one of class id 32 (written before generations)
 * reads as generation 0; a record of a higher generation is written under class id
 * {@link SerializationIds#POLICY_RECORD_GENERATION}: the same fields, then the generation (long). Such a record
 * exists only once every member reads generations ({@link io.gridlimit.grid.catalog.CatalogSupport#generations}).
 * Immutable and thread-safe once read.
 */
public final class PolicyRecord implements IdentifiedDataSerializable {
    /** Most earlier versions a record keeps, for the owners' carry-over (SPEC §4). */
    public static final int MAX_EARLIER = SeenPolicies.HISTORY - 1;

    /** Where the current version comes from. */
    public enum Origin {
        /** Seeded from the configuration of a replica: configuration may change it again. */
        CONFIGURATION,
        /** Changed through the admin API: the catalog owns it, configuration no longer overwrites it. */
        API
    }

    private String name;
    private long version;
    private Origin origin;
    private long generation;
    private String changedBy;
    private long changedAtMillis;
    private Policy policy;
    private List<SeenPolicies.Versioned> earlier;

    /** Set on an instance to be read in the form of class id 36 ({@link #generationForm()}). */
    private transient boolean readsGeneration;

    /** For deserialization (class id 32: generation 0). */
    PolicyRecord() {
    }

    /** @return an empty record to be read in the form of class id 36, with its generation */
    static PolicyRecord generationForm() {
        PolicyRecord r = new PolicyRecord();
        r.readsGeneration = true;
        return r;
    }

    /**
     * A record.
     *
     * @param name the policy name
     * @param version the version, >= 1
     * @param origin where this version comes from
     * @param generation the configuration generation that seeded it, >= 0; 0 for the API's
     * @param changedBy who made the change (the admin API's caller where authenticated, a replica for a seed), or null
     * @param changedAtMillis the owner's cluster time of the change, epoch milliseconds
     * @param policyOrNull the policy, or null for a deletion (tombstone)
     * @param earlier earlier versions with their policies, newest first, at most {@link #MAX_EARLIER}
     * @throws IllegalArgumentException if {@code version < 1}, {@code generation < 0}, or an API record has a
     *     generation
     */
    public PolicyRecord(String name, long version, Origin origin, long generation, String changedBy,
                        long changedAtMillis, Policy policyOrNull, List<SeenPolicies.Versioned> earlier) {
        this.name = Objects.requireNonNull(name, "name");
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, got " + version);
        }
        this.version = version;
        this.origin = Objects.requireNonNull(origin, "origin");
        if (generation < 0 || (origin == Origin.API && generation != 0)) {
            throw new IllegalArgumentException("generation must be >= 0, and 0 for the API's, got " + generation);
        }
        this.generation = generation;
        this.changedBy = changedBy;
        this.changedAtMillis = changedAtMillis;
        this.policy = policyOrNull;
        this.earlier = List.copyOf(earlier);
    }

    /**
     * The next version of this record.
     *
     * @param nextPolicy the new policy, or null to delete
     * @param nextOrigin where it comes from
     * @param nextGeneration the configuration generation of a seed, 0 for the API's
     * @param by who changes it, or null
     * @param atMillis the owner's cluster time, epoch milliseconds
     * @return the record of version {@code version() + 1}, keeping this version among the earlier ones when live
     */
    public PolicyRecord next(Policy nextPolicy, Origin nextOrigin, long nextGeneration, String by, long atMillis) {
        List<SeenPolicies.Versioned> kept = new ArrayList<>();
        if (policy != null) {
            kept.add(new SeenPolicies.Versioned(version, policy));
        }
        for (SeenPolicies.Versioned v : earlier) {
            if (kept.size() < MAX_EARLIER) {
                kept.add(v);
            }
        }
        return new PolicyRecord(name, version + 1, nextOrigin, nextGeneration, by, atMillis, nextPolicy, kept);
    }

    /** @return the policy name, never null */
    public String name() {
        return name;
    }

    /** @return the version, >= 1 */
    public long version() {
        return version;
    }

    /** @return where this version comes from, never null */
    public Origin origin() {
        return origin;
    }

    /**
     * @return the configuration generation ({@code gridlimit.catalog.generation}) that seeded this version, >= 0; 0
     *     for a version the admin API wrote, and for one written before generations
     */
    public long generation() {
        return generation;
    }

    /** @return who made this version (the admin API's authenticated caller, or the seeding replica), or null */
    public String changedBy() {
        return changedBy;
    }

    /** @return the deciding member's cluster time of the change, epoch milliseconds */
    public long changedAtMillis() {
        return changedAtMillis;
    }

    /** @return the policy; null when this version deleted it */
    public Policy policy() {
        return policy;
    }

    /** @return true unless this version deleted the policy */
    public boolean live() {
        return policy != null;
    }

    /** @return the earlier versions kept, newest first; unmodifiable */
    public List<SeenPolicies.Versioned> earlier() {
        return earlier;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        byte format = WireFormat.catalogFormat();
        out.writeByte(format);
        out.writeString(name);
        out.writeLong(version);
        out.writeByte(origin == Origin.CONFIGURATION ? 1 : 2);
        out.writeString(changedBy);
        out.writeLong(changedAtMillis);
        out.writeBoolean(policy != null);
        if (policy != null) {
            PolicyCodec.writeWithDebts(out, policy, format);
        }
        out.writeInt(earlier.size());
        for (SeenPolicies.Versioned v : earlier) {
            out.writeLong(v.version());
            PolicyCodec.writeWithDebts(out, v.policy(), format);
        }
        if (inGenerationForm()) {
            out.writeLong(generation); // class id 36 (getClassId)
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = WireFormat.readVersion(in, "PolicyRecord");
        if (format == WireFormat.UNVERSIONED) {
            throw WireFormat.refuse("PolicyRecord", "format " + format);
        }
        name = in.readString();
        version = in.readLong();
        byte o = in.readByte();
        if (version < 1 || (o != 1 && o != 2) || name == null) {
            throw new IOException("corrupt policy record: version " + version + ", origin " + o);
        }
        origin = o == 1 ? Origin.CONFIGURATION : Origin.API;
        changedBy = in.readString();
        changedAtMillis = in.readLong();
        policy = in.readBoolean() ? PolicyCodec.readWithDebts(in, format) : null;
        int n = in.readInt();
        if (n < 0 || n > MAX_EARLIER) {
            throw new IOException("earlier version count out of range: " + n);
        }
        List<SeenPolicies.Versioned> read = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long v = in.readLong();
            read.add(new SeenPolicies.Versioned(v, PolicyCodec.readWithDebts(in, format)));
        }
        earlier = List.copyOf(read);
        generation = readsGeneration ? in.readLong() : 0;
        if (generation < 0 || (readsGeneration && origin == Origin.API)) {
            throw new IOException("corrupt policy record: generation " + generation + ", origin " + o);
        }
    }

    @Override
    public int getFactoryId() {
        return SerializationIds.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return inGenerationForm() ? SerializationIds.POLICY_RECORD_GENERATION : SerializationIds.POLICY_RECORD;
    }

    /** @return true when written (or read) under class id 36: a generation above 0, or read so */
    private boolean inGenerationForm() {
        return generation > 0 || readsGeneration;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof PolicyRecord r && name.equals(r.name) && version == r.version
                && origin == r.origin && generation == r.generation && Objects.equals(changedBy, r.changedBy) && changedAtMillis == r.changedAtMillis
                && Objects.equals(policy, r.policy) && earlier.equals(r.earlier));
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, version, origin, policy);
    }

    @Override
    public String toString() {
        return "PolicyRecord{" + name + " v" + version + " " + origin + (generation > 0 ? " g" + generation : "")
                + (policy == null ? " deleted" : " " + policy)
                + "}";
    }
}
