package io.gridlimit.grid.wire;

/**
 * Internal to grid-core: not API; the wire identities of GridLimit's grid types, read by the processors, results
 * and stored states of every grid-core package (and the bench module's seams). <b>These numbers and names never
 * change</b>: members and clients of different GridLimit versions exchange them during a rolling upgrade. A new type
 * takes a new id; a retired id is never reused. Ids 1 to 3 are the unversioned forms (wire format 1, no format
 * byte), readable as long as {@link WireFormat#PREVIOUS} is 1; ids 5 to 7 the versioned forms of the same types,
 * whose stream starts with the format byte (grid-core/docs/wire.md). The types live in {@code io.gridlimit.grid.owner}
 * (the owner's processors and results), {@code io.gridlimit.grid.catalog} (catalog updates) and
 * {@code io.gridlimit.grid} ({@code PolicyRecord}, {@code ConservativeMergePolicy}); the factory that creates them
 * by id is {@link io.gridlimit.grid.GridLimitDataSerializableFactory}.
 */
public final class SerializationIds {
    /** The {@link com.hazelcast.nio.serialization.DataSerializableFactory} id: ASCII "GL" (0x474C). */
    public static final int FACTORY_ID = 0x474C;

    /**
     * {@link io.gridlimit.grid.owner.DecideProcessor}, unversioned form (wire format 1): the primary EntryProcessor
     * that decides.
     */
    public static final int DECIDE_PROCESSOR = 1;
    /** {@link io.gridlimit.grid.owner.WriteStateProcessor}, unversioned form (wire format 1): the backup processor. */
    public static final int WRITE_STATE_PROCESSOR = 2;
    /**
     * {@link io.gridlimit.grid.owner.DecisionResult}, unversioned form (wire format 1): the decisions a
     * {@code DecideProcessor} returns.
     */
    public static final int DECISION_RESULT = 3;
    /**
     * {@link io.gridlimit.grid.ConservativeMergePolicy}: the split-brain merge policy of the policy maps (no
     * fields).
     */
    public static final int CONSERVATIVE_MERGE_POLICY = 4;
    /**
     * {@link io.gridlimit.grid.owner.DecideProcessor}, versioned form: a {@link WireFormat} byte (2 or later)
     * first.
     */
    public static final int DECIDE_PROCESSOR_VERSIONED = 5;
    /**
     * {@link io.gridlimit.grid.owner.WriteStateProcessor}, versioned form: a {@link WireFormat} byte (2 or later)
     * first.
     */
    public static final int WRITE_STATE_PROCESSOR_VERSIONED = 6;
    /** {@link io.gridlimit.grid.owner.DecisionResult}, versioned form: a {@link WireFormat} byte (2 or later) first. */
    public static final int DECISION_RESULT_VERSIONED = 7;
    /*
     * Ids 20 to 29: reservations and settles (docs/SPEC.md §10). Versioned from the start: a format byte first.
     * A member of a GridLimit before them refuses them as a newer GridLimit's types (grid-core/docs/wire.md).
     */
    /**
     * {@link io.gridlimit.grid.owner.DecideProcessor} taking reservations: a format byte, the fields of id 5, then the
     * policy's catalog version (long, 0 when not from the catalog).
     */
    public static final int RESERVE_PROCESSOR = 20;
    /**
     * {@link io.gridlimit.grid.owner.DecisionResult} with reservations: a format byte, the fields of id 7, the
     * reservations, then the catalog version used (long, 0 when none).
     */
    public static final int RESERVE_RESULT = 21;
    /** {@link io.gridlimit.grid.owner.SettleProcessor}: the EntryProcessor of a settle. */
    public static final int SETTLE_PROCESSOR = 22;
    /** {@link io.gridlimit.grid.owner.SettleResult}: what a {@code SettleProcessor} returns. */
    public static final int SETTLE_RESULT = 23;
    /**
     * {@link io.gridlimit.grid.owner.LeaseProcessor}: the EntryProcessor of a lease request (docs/SPEC.md §13); sent
     * only when every member advertises {@link WireFormat#LEASES_ATTRIBUTE}.
     */
    public static final int LEASE_PROCESSOR = 24;
    /** {@link io.gridlimit.grid.owner.LeaseResult}: what a {@code LeaseProcessor} returns. */
    public static final int LEASE_RESULT = 25;
    /*
     * Ids 30 to 39: the policy catalog (docs/SPEC.md §11).
     * The catalog's ids are sent only to a cluster whose every member advertises the catalog (catalog.CatalogSupport).
     */
    /**
     * {@link io.gridlimit.grid.owner.DecideProcessor}, catalog form: the versioned form's fields, then the policy's
     * catalog version.
     */
    public static final int DECIDE_PROCESSOR_CATALOG = 30;
    /**
     * {@link io.gridlimit.grid.owner.DecisionResult}, catalog form: the versioned form's fields, then the catalog
     * version used.
     */
    public static final int DECISION_RESULT_CATALOG = 31;
    /** {@link io.gridlimit.grid.catalog.PolicyRecord}: one versioned policy of the catalog map (format byte first). */
    public static final int POLICY_RECORD = 32;
    /**
     * {@link io.gridlimit.grid.catalog.CatalogUpdateProcessor}: a compare-and-set on one policy record (format byte
     * first).
     */
    public static final int CATALOG_UPDATE_PROCESSOR = 33;
    /**
     * {@link io.gridlimit.grid.catalog.CatalogWriteProcessor}: the backup of a catalog update, writing the record the
     * primary computed.
     */
    public static final int CATALOG_WRITE_PROCESSOR = 34;
    /** {@link io.gridlimit.grid.catalog.CatalogUpdateProcessor.Result}: what a catalog update returns. */
    public static final int CATALOG_UPDATE_RESULT = 35;
    /*
     * Configuration generations (docs/SPEC.md §11): sent and stored only while every member advertises
     * CatalogSupport's generations attribute; a record or seed without one keeps ids 32 and 33.
     */
    /**
     * {@link io.gridlimit.grid.catalog.PolicyRecord} of a generation above 0: the fields of id 32, then the generation
     * (long).
     */
    public static final int POLICY_RECORD_GENERATION = 36;
    /**
     * {@link io.gridlimit.grid.catalog.CatalogUpdateProcessor} seeding with a generation: the fields of id 33, then
     * the generation (long).
     */
    public static final int CATALOG_SEED_PROCESSOR = 37;
    /**
     * {@link io.gridlimit.grid.owner.DecideProcessor} counting every hit (docs/SPEC.md §3, "Every hit counts";
     * Envoy's {@code compatibility: reference}, §12): the fields of id 20 (format byte, policy, cost, a null costs
     * array, the catalog version); answered with a {@link io.gridlimit.grid.owner.DecisionResult} of the format
     * (id 7, or 31 for a catalog version). A member of a GridLimit before it cannot read it: the decision fails on
     * the asker, whose failure mode answers (§5).
     */
    public static final int HIT_PROCESSOR = 38;
    /** The highest class id this GridLimit knows: a higher one was written by a newer GridLimit. */
    static final int HIGHEST_KNOWN = HIT_PROCESSOR;

    /**
     * Compact type names of the stored states, one per {@link io.gridlimit.algorithm.LimiterState} class. Their
     * format is the INT8 field {@link #STATE_FORMAT_FIELD} (absent: format 1).
     */
    public static final String TOKEN_BUCKET_STATE = "gridlimit.TokenBucketState";
    public static final String GCRA_STATE = "gridlimit.GcraState";
    public static final String FIXED_WINDOW_STATE = "gridlimit.FixedWindowState";
    public static final String SLIDING_WINDOW_LOG_STATE = "gridlimit.SlidingWindowLogState";
    public static final String SLIDING_WINDOW_COUNTER_STATE = "gridlimit.SlidingWindowCounterState";
    public static final String COMPOSITE_STATE = "gridlimit.CompositeState";
    /** The Compact type of a {@link io.gridlimit.algorithm.CalendarState} (docs/SPEC.md §14). */
    static final String CALENDAR_STATE = "gridlimit.CalendarState";
    /** The Compact type of a {@link io.gridlimit.algorithm.ReservedState} (docs/SPEC.md §10). */
    public static final String RESERVED_STATE = "gridlimit.ReservedState";
    /** The Compact field of a stored state holding its {@link WireFormat} (INT8); absent in format 1. */
    public static final String STATE_FORMAT_FIELD = "format";

    private SerializationIds() {
    }
}
