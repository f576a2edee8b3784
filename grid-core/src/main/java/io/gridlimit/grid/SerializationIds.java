package io.gridlimit.grid;

/**
 * The wire identities of GridLimit's grid types. <b>These numbers and names never change</b>: members and
 * clients of different GridLimit versions exchange them during a rolling upgrade. A new type takes a new id; a
 * retired id is never reused.
 */
final class SerializationIds {
    /** The {@link com.hazelcast.nio.serialization.DataSerializableFactory} id: ASCII "GL" (0x474C). */
    static final int FACTORY_ID = 0x474C;

    /** {@link DecideProcessor}: the primary EntryProcessor that decides. */
    static final int DECIDE_PROCESSOR = 1;
    /** {@link WriteStateProcessor}: the backup processor that stores the state the primary computed. */
    static final int WRITE_STATE_PROCESSOR = 2;
    /** {@link DecisionResult}: the decisions a {@link DecideProcessor} returns. */
    static final int DECISION_RESULT = 3;
    /** {@link ConservativeMergePolicy}: the split-brain merge policy of the policy maps. */
    static final int CONSERVATIVE_MERGE_POLICY = 4;

    /** Compact type names of the stored states, one per {@link io.gridlimit.algorithm.LimiterState} class. */
    static final String TOKEN_BUCKET_STATE = "gridlimit.TokenBucketState";
    static final String GCRA_STATE = "gridlimit.GcraState";
    static final String FIXED_WINDOW_STATE = "gridlimit.FixedWindowState";
    static final String SLIDING_WINDOW_LOG_STATE = "gridlimit.SlidingWindowLogState";
    static final String SLIDING_WINDOW_COUNTER_STATE = "gridlimit.SlidingWindowCounterState";
    static final String COMPOSITE_STATE = "gridlimit.CompositeState";

    private SerializationIds() {
    }
}
