package io.gridlimit.calendar;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.List;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link CalendarPeriods} against the independent {@link CalendarModel} over random instants (1900 to 2200, and
 * instants right at a zone transition) in random zones of the JDK's tz data, for every period kind, week start and
 * anchor.
 */
class CalendarPeriodsPropertyTest {
    private static final long NS = 1_000_000_000L;
    private static final List<String> ZONES = List.copyOf(new TreeSet<>(ZoneId.getAvailableZoneIds()));
    private static final long FROM = -2_208_988_800L * NS; // 1900-01-01T00:00Z
    private static final long TO = 7_258_118_400L * NS; // 2200-01-01T00:00Z

    @Provide
    Arbitrary<String> zones() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(ZONES)),
                Tuple.of(2, Arbitraries.of("Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe", "Asia/Beirut",
                        "Pacific/Apia", "America/Santiago", "America/Havana", "Pacific/Chatham", "UTC")));
    }

    @Provide
    Arbitrary<Long> instants() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs().between(FROM, TO)),
                Tuple.of(3, Arbitraries.longs().between(1_700_000_000L * NS, 1_900_000_000L * NS)));
    }

    @Property(tries = 3000)
    void everyPeriodIsTheModels(@ForAll("zones") String zoneId, @ForAll("instants") long nanos,
                                @ForAll CalendarPeriod period, @ForAll DayOfWeek weekStart,
                                @ForAll @IntRange(min = 1, max = 31) int anchor,
                                @ForAll @IntRange(min = -2, max = 2) int nearTransition) {
        ZoneId zone = ZoneId.of(zoneId);
        long t = nanos;
        if (nearTransition != 0) {
            // right at (or 1 ns around) the zone's next transition, where the periods are irregular
            var next = zone.getRules().nextTransition(java.time.Instant.ofEpochSecond(Math.floorDiv(nanos, NS)));
            if (next != null && next.getInstant().getEpochSecond() < TO / NS) {
                t = next.getInstant().getEpochSecond() * NS + (nearTransition == 2 ? 0 : nearTransition);
            }
        }
        CalendarPeriods c = CalendarPeriods.of(period, zone, period == CalendarPeriod.WEEK ? weekStart : null,
                period == CalendarPeriod.MONTH ? anchor : null);
        long[] expected = CalendarModel.period(t, period, zone, weekStart, anchor);
        CalendarSpan span = c.spanAt(t);
        assertThat(new long[] {span.startNanos(), span.endNanos()}).as("%s at %s", c, t).containsExactly(expected);
        assertThat(c.span(t)).isEqualTo(span);
        // the period's name gives back its end, and the next period starts where it ends
        assertThat(c.endNanosOf(span.localStartSeconds())).isEqualTo(span.endNanos());
        assertThat(c.spanAt(span.endNanos()).startNanos()).isEqualTo(span.endNanos());
        assertThat(c.spanAt(span.endNanos()).localStartSeconds()).isGreaterThan(span.localStartSeconds());
    }
}
