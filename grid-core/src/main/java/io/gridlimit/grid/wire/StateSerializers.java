package io.gridlimit.grid.wire;

import com.hazelcast.nio.serialization.FieldKind;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import io.gridlimit.algorithm.CalendarState;
import io.gridlimit.algorithm.CompositeState;
import io.gridlimit.algorithm.FixedWindowState;
import io.gridlimit.algorithm.GcraState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.algorithm.SlidingWindowCounterState;
import io.gridlimit.algorithm.SlidingWindowLogState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Policy;
import java.util.List;

/**
 * Internal to grid-core: not API; public for {@code GridLimitHazelcast}, which registers them.
 *
 * <p>Explicit Compact serializers for the stored states (SPEC §8), one per {@link LimiterState} class, each under a
 * stable type name ({@code gridlimit.<Class>}, see {@link SerializationIds}). Field names and kinds are part of
 * the stored format: a change adds a field (and reads it only when {@code getFieldKind} finds it), never renames
 * one. Every state carries its {@link WireFormat} in the INT8 field {@code format} (absent: format 1). No
 * reflection-based Compact and no Java serialization. Stateless and thread-safe.
 */
public final class StateSerializers {
    /** Slots of a composite state's bands: one nullable nested Compact field each, {@code band00..band15}. */
    private static final String[] BAND_FIELDS = new String[Policy.Builder.MAX_BANDS];

    static {
        for (int i = 0; i < BAND_FIELDS.length; i++) {
            BAND_FIELDS[i] = String.format("band%02d", i);
        }
    }

    private StateSerializers() {
    }

    /**
     * Checks a state's format: the INT8 field {@code format}, absent in format 1 (a Compact reader of any
     * version skips a field it does not know, so states write {@link WireFormat#CURRENT} at once; Compact itself
     * keeps each field set as its own schema).
     *
     * @throws HazelcastSerializationException if the format is not read here (after {@link WireFormat#refuse}'s
     *     log line)
     */
    private static void readFormat(CompactReader r, String type) {
        int format = r.getFieldKind(SerializationIds.STATE_FORMAT_FIELD) == FieldKind.INT8
                ? r.readInt8(SerializationIds.STATE_FORMAT_FIELD) : WireFormat.UNVERSIONED;
        if (format != WireFormat.CURRENT && format != WireFormat.PREVIOUS) {
            throw new HazelcastSerializationException(WireFormat.refuse(type, "format " + format).getMessage());
        }
    }

    /** @return one serializer per state class, to register on every member and client */
    public static List<CompactSerializer<?>> all() {
        return List.of(new TokenBucket(), new Gcra(), new FixedWindow(), new SlidingWindowLog(),
                new SlidingWindowCounter(), new Calendar(), new Composite(), new Reserved());
    }

    /** Fields: format (INT8), lastNanos, tokens, tokenFraction, refillPeriodNanos (all INT64). */
    static final class TokenBucket implements CompactSerializer<TokenBucketState> {
        @Override
        public TokenBucketState read(CompactReader r) {
            readFormat(r, "TokenBucketState");
            return new TokenBucketState(r.readInt64("lastNanos"), r.readInt64("tokens"),
                    r.readInt64("tokenFraction"), r.readInt64("refillPeriodNanos"));
        }

        @Override
        public void write(CompactWriter w, TokenBucketState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("tokens", s.tokens());
            w.writeInt64("tokenFraction", s.tokenFraction());
            w.writeInt64("refillPeriodNanos", s.refillPeriodNanos());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.TOKEN_BUCKET_STATE;
        }

        @Override
        public Class<TokenBucketState> getCompactClass() {
            return TokenBucketState.class;
        }
    }

    /** Fields: format (INT8), lastNanos, tatHigh, tatLow, capacity, refillTokens, refillPeriodNanos (INT64). */
    static final class Gcra implements CompactSerializer<GcraState> {
        @Override
        public GcraState read(CompactReader r) {
            readFormat(r, "GcraState");
            return new GcraState(r.readInt64("lastNanos"), r.readInt64("tatHigh"), r.readInt64("tatLow"),
                    r.readInt64("capacity"), r.readInt64("refillTokens"), r.readInt64("refillPeriodNanos"));
        }

        @Override
        public void write(CompactWriter w, GcraState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("tatHigh", s.tatHigh());
            w.writeInt64("tatLow", s.tatLow());
            w.writeInt64("capacity", s.capacity());
            w.writeInt64("refillTokens", s.refillTokens());
            w.writeInt64("refillPeriodNanos", s.refillPeriodNanos());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.GCRA_STATE;
        }

        @Override
        public Class<GcraState> getCompactClass() {
            return GcraState.class;
        }
    }

    /** Fields: format (INT8), lastNanos, count, windowNanos (all INT64). */
    static final class FixedWindow implements CompactSerializer<FixedWindowState> {
        @Override
        public FixedWindowState read(CompactReader r) {
            readFormat(r, "FixedWindowState");
            return new FixedWindowState(r.readInt64("lastNanos"), r.readInt64("count"), r.readInt64("windowNanos"));
        }

        @Override
        public void write(CompactWriter w, FixedWindowState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("count", s.count());
            w.writeInt64("windowNanos", s.windowNanos());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.FIXED_WINDOW_STATE;
        }

        @Override
        public Class<FixedWindowState> getCompactClass() {
            return FixedWindowState.class;
        }
    }

    /**
     * Fields: format (INT8), lastNanos, windowNanos (INT64), entryNanos (ARRAY_OF_INT64), entryCosts
     * (ARRAY_OF_INT32).
     */
    static final class SlidingWindowLog implements CompactSerializer<SlidingWindowLogState> {
        private static final long[] NO_NANOS = new long[0];
        private static final int[] NO_COSTS = new int[0];

        @Override
        public SlidingWindowLogState read(CompactReader r) {
            readFormat(r, "SlidingWindowLogState");
            long[] nanos = r.readArrayOfInt64("entryNanos");
            int[] costs = r.readArrayOfInt32("entryCosts");
            return new SlidingWindowLogState(r.readInt64("lastNanos"), r.readInt64("windowNanos"),
                    nanos == null ? NO_NANOS : nanos, costs == null ? NO_COSTS : costs);
        }

        @Override
        public void write(CompactWriter w, SlidingWindowLogState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("windowNanos", s.windowNanos());
            w.writeArrayOfInt64("entryNanos", s.entryNanos());
            w.writeArrayOfInt32("entryCosts", s.entryCosts());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.SLIDING_WINDOW_LOG_STATE;
        }

        @Override
        public Class<SlidingWindowLogState> getCompactClass() {
            return SlidingWindowLogState.class;
        }
    }

    /** Fields: format (INT8), lastNanos, currentCount, previousCount, windowNanos (all INT64). */
    static final class SlidingWindowCounter implements CompactSerializer<SlidingWindowCounterState> {
        @Override
        public SlidingWindowCounterState read(CompactReader r) {
            readFormat(r, "SlidingWindowCounterState");
            return new SlidingWindowCounterState(r.readInt64("lastNanos"), r.readInt64("currentCount"),
                    r.readInt64("previousCount"), r.readInt64("windowNanos"));
        }

        @Override
        public void write(CompactWriter w, SlidingWindowCounterState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("currentCount", s.currentCount());
            w.writeInt64("previousCount", s.previousCount());
            w.writeInt64("windowNanos", s.windowNanos());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.SLIDING_WINDOW_COUNTER_STATE;
        }

        @Override
        public Class<SlidingWindowCounterState> getCompactClass() {
            return SlidingWindowCounterState.class;
        }
    }

    /**
     * Fields: format (INT8), lastNanos, localStartSeconds, startNanos, earliestEndNanos, latestEndNanos, count,
     * nextCount (INT64), calendar (STRING: the calendar's id, docs/SPEC.md §14). A member before calendar bands has
     * no serializer for this type and refuses it.
     */
    static final class Calendar implements CompactSerializer<CalendarState> {
        @Override
        public CalendarState read(CompactReader r) {
            readFormat(r, "CalendarState");
            return new CalendarState(r.readInt64("lastNanos"), r.readInt64("localStartSeconds"),
                    r.readInt64("startNanos"), r.readInt64("earliestEndNanos"), r.readInt64("latestEndNanos"),
                    r.readInt64("count"), r.readInt64("nextCount"), r.readString("calendar"));
        }

        @Override
        public void write(CompactWriter w, CalendarState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeInt64("localStartSeconds", s.localStartSeconds());
            w.writeInt64("startNanos", s.startNanos());
            w.writeInt64("earliestEndNanos", s.earliestEndNanos());
            w.writeInt64("latestEndNanos", s.latestEndNanos());
            w.writeInt64("count", s.count());
            w.writeInt64("nextCount", s.nextCount());
            w.writeString("calendar", s.calendar());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.CALENDAR_STATE;
        }

        @Override
        public Class<CalendarState> getCompactClass() {
            return CalendarState.class;
        }
    }

    /**
     * Fields: format (INT8), lastNanos (INT64), bandNames (ARRAY_OF_STRING), and {@code band00..band15}
     * (COMPACT, nullable): band {@code i}'s state in slot {@code i}, the rest null. Slots, because a Compact array holds one type only
     * and a composite's bands differ in type; a fixed set of fields keeps one schema for every composite.
     */
    static final class Composite implements CompactSerializer<CompositeState> {
        @Override
        public CompositeState read(CompactReader r) {
            readFormat(r, "CompositeState");
            String[] names = r.readArrayOfString("bandNames");
            if (names == null || names.length > BAND_FIELDS.length) {
                throw new IllegalStateException("composite state with "
                        + (names == null ? "no" : String.valueOf(names.length)) + " band names");
            }
            LimiterState[] states = new LimiterState[names.length];
            for (int i = 0; i < names.length; i++) {
                states[i] = r.readCompact(BAND_FIELDS[i]);
            }
            return new CompositeState(r.readInt64("lastNanos"), names, states);
        }

        @Override
        public void write(CompactWriter w, CompositeState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            String[] names = s.bandNames();
            LimiterState[] states = s.bandStates();
            if (names.length > BAND_FIELDS.length) {
                throw new IllegalArgumentException("a composite state has at most " + BAND_FIELDS.length
                        + " bands, got " + names.length);
            }
            w.writeInt64("lastNanos", s.lastNanos());
            w.writeArrayOfString("bandNames", names);
            for (int i = 0; i < BAND_FIELDS.length; i++) {
                w.writeCompact(BAND_FIELDS[i], i < states.length ? states[i] : null);
            }
        }

        @Override
        public String getTypeName() {
            return SerializationIds.COMPOSITE_STATE;
        }

        @Override
        public Class<CompositeState> getCompactClass() {
            return CompositeState.class;
        }
    }

    /**
     * Fields: format (INT8), inner (COMPACT: the limiter state), stateId, secretHigh, secretLow, nextId,
     * holdUntilNanos, closedBelow (INT64), settledIds, settledExpiresAtNanos, settledActuals, and since leases
     * (docs/SPEC.md §13) leaseIds, leaseUnits, leaseEndsAtNanos, leaseHolderHigh, leaseHolderLow (ARRAY_OF_INT64;
     * absent in a state written before, read as no lease) expiredThroughNanos and lastFullNanos (INT64; absent: none).
     */
    static final class Reserved implements CompactSerializer<ReservedState> {
        @Override
        public ReservedState read(CompactReader r) {
            readFormat(r, "ReservedState");
            LimiterState inner = r.readCompact("inner");
            long[] ids = r.readArrayOfInt64("settledIds");
            long[] expiries = r.readArrayOfInt64("settledExpiresAtNanos");
            long[] actuals = r.readArrayOfInt64("settledActuals");
            return new ReservedState(inner, r.readInt64("stateId"), r.readInt64("secretHigh"),
                    r.readInt64("secretLow"), r.readInt64("nextId"), r.readInt64("holdUntilNanos"),
                    r.readInt64("closedBelow"), ids == null ? new long[0] : ids,
                    expiries == null ? new long[0] : expiries, actuals == null ? new long[0] : actuals,
                    leases(r, "leaseIds"), leases(r, "leaseUnits"), leases(r, "leaseEndsAtNanos"),
                    leases(r, "leaseHolderHigh"), leases(r, "leaseHolderLow"),
                    r.getFieldKind("expiredThroughNanos") == com.hazelcast.nio.serialization.FieldKind.INT64
                            ? r.readInt64("expiredThroughNanos") : Long.MIN_VALUE,
                    r.getFieldKind("lastFullNanos") == com.hazelcast.nio.serialization.FieldKind.INT64
                            ? r.readInt64("lastFullNanos") : Long.MIN_VALUE);
        }

        /** A lease array; empty in a state written before leases (docs/SPEC.md §13), whose schema lacks it. */
        private static long[] leases(CompactReader r, String field) {
            if (r.getFieldKind(field) != com.hazelcast.nio.serialization.FieldKind.ARRAY_OF_INT64) {
                return new long[0];
            }
            long[] a = r.readArrayOfInt64(field);
            return a == null ? new long[0] : a;
        }

        @Override
        public void write(CompactWriter w, ReservedState s) {
            w.writeInt8(SerializationIds.STATE_FORMAT_FIELD, WireFormat.CURRENT);
            w.writeCompact("inner", s.inner());
            w.writeInt64("stateId", s.stateId());
            w.writeInt64("secretHigh", s.secretHigh());
            w.writeInt64("secretLow", s.secretLow());
            w.writeInt64("nextId", s.nextId());
            w.writeInt64("holdUntilNanos", s.holdUntilNanos());
            w.writeInt64("closedBelow", s.closedBelow());
            w.writeArrayOfInt64("settledIds", s.settledIds());
            w.writeArrayOfInt64("settledExpiresAtNanos", s.settledExpiresAtNanos());
            w.writeArrayOfInt64("settledActuals", s.settledActuals());
            w.writeArrayOfInt64("leaseIds", s.leaseIds());
            w.writeArrayOfInt64("leaseUnits", s.leaseUnits());
            w.writeArrayOfInt64("leaseEndsAtNanos", s.leaseEndsAtNanos());
            w.writeArrayOfInt64("leaseHolderHigh", s.leaseHolderHigh());
            w.writeArrayOfInt64("leaseHolderLow", s.leaseHolderLow());
            w.writeInt64("expiredThroughNanos", s.expiredThroughNanos());
            w.writeInt64("lastFullNanos", s.lastFullNanos());
        }

        @Override
        public String getTypeName() {
            return SerializationIds.RESERVED_STATE;
        }

        @Override
        public Class<ReservedState> getCompactClass() {
            return ReservedState.class;
        }
    }
}
