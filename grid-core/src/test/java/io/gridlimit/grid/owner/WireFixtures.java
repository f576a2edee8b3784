package io.gridlimit.grid.owner;

import io.gridlimit.algorithm.CompositeState;
import io.gridlimit.algorithm.FixedWindowState;
import io.gridlimit.algorithm.GcraState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.SlidingWindowCounterState;
import io.gridlimit.algorithm.SlidingWindowLogState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridTestSupport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The known values of the frozen wire fixtures ({@link WireFixtureTest}): one per serialized type, small enough
 * to read their bytes by hand. Changing a value here changes its fixture: never do it, add a new one.
 */
final class WireFixtures {
    /** 2026-01-01T00:00:01Z in epoch nanoseconds. */
    static final long T = GridTestSupport.T0;

    static final Policy SINGLE = Policy.builder("api").tokenBucket(10, 5, Duration.ofSeconds(1)).build();
    static final Policy COMPOSITE = Policy.builder("orders")
            .band(Band.gcra("burst", 3, 1, Duration.ofMillis(500)))
            .band(Band.slidingWindowLog("hourly", 100, Duration.ofHours(1)))
            .build();

    static final TokenBucketState TOKEN_BUCKET = new TokenBucketState(T, 7, 123, 1_000_000_000L);
    static final GcraState GCRA = new GcraState(T, 1, -2L, 3, 1, 500_000_000L);
    static final FixedWindowState FIXED_WINDOW = new FixedWindowState(T, 4, 60_000_000_000L);
    static final SlidingWindowLogState SLIDING_WINDOW_LOG = new SlidingWindowLogState(T, 3_600_000_000_000L,
            new long[] {T - 2, T}, new int[] {1, 5});
    static final SlidingWindowCounterState SLIDING_WINDOW_COUNTER =
            new SlidingWindowCounterState(T, 9, 2, 1_000_000_000L);
    static final CompositeState COMPOSITE_STATE = new CompositeState(T, new String[] {"burst", "hourly"},
            new LimiterState[] {GCRA, SLIDING_WINDOW_LOG});

    static final Decision[] DECISIONS = {
        new Decision(true, 10, 9, 1_000_000_000L, Decision.NO_RETRY, null),
        new Decision(false, 100, 0, 7, 5, "hourly")};

    /** A reservation of {@link #SINGLE} with an all-zero MAC (docs/SPEC.md §10). */
    static final io.gridlimit.api.Reservation RESERVATION = new io.gridlimit.api.Reservation("api", "user:1", 11, 4,
            T, T + 2_000_000_000L, 3, java.util.List.of(io.gridlimit.api.Reservation.BandShape.of(
                    SINGLE.bands().get(0))), new byte[io.gridlimit.api.Reservation.MAC_BYTES]);
    static final Decision[] RESERVED_DECISIONS = {
        new Decision(true, 10, 7, 600_000_000L, Decision.NO_RETRY, null, RESERVATION),
        new Decision(false, 10, 0, 7, 5, null)};
    static final io.gridlimit.algorithm.ReservedState RESERVED_STATE = new io.gridlimit.algorithm.ReservedState(
            TOKEN_BUCKET, 11, 22, 33, 5, T + 2_000_000_000L, 2, new long[] {3}, new long[] {T + 1_000_000_000L},
            new long[] {7});

    /** A composite of a burst and a calendar band (docs/SPEC.md §14). */
    static final Policy CALENDAR = Policy.builder("monthly")
            .band(Band.tokenBucket("per-second", 10, 10, Duration.ofSeconds(1)))
            .band(Band.calendar("per-month", 10_000, io.gridlimit.calendar.CalendarPeriods.monthly(
                    java.time.ZoneId.of("Europe/Berlin"), 31)))
            .build();
    /** A calendar band's state: local start 2025-12-31T00:00, members' ends 1 and 2 ns after T, next count 1. */
    static final io.gridlimit.algorithm.CalendarState CALENDAR_STATE = new io.gridlimit.algorithm.CalendarState(T,
            1_767_139_200L, T - 1, T + 1, T + 2, 4, 1, "period=month;zone=Europe/Berlin;anchor=31");
    /** A reservation of {@link #CALENDAR} with an all-zero MAC: the calendar band's shape names its calendar. */
    static final io.gridlimit.api.Reservation CALENDAR_RESERVATION = new io.gridlimit.api.Reservation("monthly",
            "user:1", 11, 4, T, T + 2_000_000_000L, 3, java.util.List.of(
                    io.gridlimit.api.Reservation.BandShape.of(CALENDAR.bands().get(0)),
                    io.gridlimit.api.Reservation.BandShape.of(CALENDAR.bands().get(1))),
            new byte[io.gridlimit.api.Reservation.MAC_BYTES]);
    static final Decision[] CALENDAR_DECISIONS = {
        new Decision(true, 10_000, 9_997, 7, Decision.NO_RETRY, "per-month", CALENDAR_RESERVATION)};

    private WireFixtures() {
    }

    /** @return every state fixture by name, in a fixed order */
    static Map<String, LimiterState> states() {
        Map<String, LimiterState> states = new LinkedHashMap<>();
        states.put("TokenBucketState", TOKEN_BUCKET);
        states.put("GcraState", GCRA);
        states.put("FixedWindowState", FIXED_WINDOW);
        states.put("SlidingWindowLogState", SLIDING_WINDOW_LOG);
        states.put("SlidingWindowCounterState", SLIDING_WINDOW_COUNTER);
        states.put("CompositeState", COMPOSITE_STATE);
        return states;
    }

    /** @return the state fixtures first written in format 2 (no format-1 form), by name */
    static Map<String, LimiterState> format2States() {
        Map<String, LimiterState> states = new LinkedHashMap<>();
        states.put("ReservedState", RESERVED_STATE);
        return states;
    }
}
