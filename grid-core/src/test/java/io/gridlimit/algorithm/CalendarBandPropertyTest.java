package io.gridlimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarModel;
import io.gridlimit.calendar.CalendarPeriod;
import io.gridlimit.calendar.CalendarPeriods;

import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * A calendar band's decisions against a reference built on {@link CalendarModel} (java.time, independent of
 * {@link CalendarPeriods}): per model period, admitted iff count + cost <= limit; remaining, resetAfter and
 * retryAfter exact (docs/SPEC.md §14). Readings move forward by small and large steps and land exactly on period
 * ends and one nanosecond before them, in random zones of the JDK's tz data.
 */
class CalendarBandPropertyTest {
    private static final long S = 1_000_000_000L;
    private static final List<String> ZONES = List.copyOf(new TreeSet<>(ZoneId.getAvailableZoneIds()));

    /** How the next reading is found: 0 a small step, 1 a large one, 2 the period's end, 3 one ns before it. */
    record Step(int kind, long deltaNanos, long cost) {
    }

    @Provide
    Arbitrary<String> zones() {
        return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(ZONES)), Tuple.of(1, Arbitraries.of(
                "Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe", "Asia/Beirut", "Pacific/Apia")));
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, 3),
                Arbitraries.longs().between(0, 3 * S), Arbitraries.longs().between(1, 4)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 1500)
    void decisionsAreTheModelsFixedWindowOverItsPeriods(
            @ForAll("zones") String zoneId, @ForAll CalendarPeriod period, @ForAll DayOfWeek weekStart,
            @ForAll @IntRange(min = 1, max = 31) int anchor, @ForAll @IntRange(min = 1, max = 3) int limit,
            @ForAll @IntRange(min = 1_000_000_000, max = 1_990_000_000) int startSeconds,
            @ForAll("steps") List<Step> steps) {
        ZoneId zone = ZoneId.of(zoneId);
        CalendarPeriods calendar = CalendarPeriods.of(period, zone, period == CalendarPeriod.WEEK ? weekStart : null,
                period == CalendarPeriod.MONTH ? anchor : null);
        Key key = new Key(Policy.builder("p").calendar(limit, calendar).build());
        Map<Long, Long> counts = new HashMap<>();
        long t = startSeconds * S;
        for (Step step : steps) {
            long end = CalendarModel.period(t, period, zone, weekStart, anchor)[1];
            t = switch (step.kind()) {
                case 0 -> t + step.deltaNanos();
                case 1 -> t + step.deltaNanos() * 100_000; // up to about 3.5 days
                case 2 -> end;
                default -> Math.max(t, end - 1);
            };
            long[] p = CalendarModel.period(t, period, zone, weekStart, anchor);
            long count = counts.getOrDefault(p[0], 0L);
            long cost = step.cost();
            boolean admitted = count + cost <= limit;
            long after = admitted ? count + cost : count;
            Decision expected = new Decision(admitted, limit, limit - after, after > 0 ? p[1] - t : 0,
                    admitted ? Decision.NO_RETRY : cost > limit ? Decision.NO_RETRY : p[1] - t, null);
            assertThat(key.take(cost, t)).as("%s at %d (period [%d, %d))", calendar, t, p[0], p[1])
                    .isEqualTo(expected);
            assertThat(key.last.write()).isEqualTo(admitted);
            if (admitted) {
                assertThat(key.last.ttlNanos()).isEqualTo(p[1] - t);
                counts.put(p[0], after);
            }
        }
    }
}
