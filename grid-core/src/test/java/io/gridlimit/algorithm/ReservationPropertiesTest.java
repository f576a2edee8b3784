package io.gridlimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.calendar.CalendarPeriods;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The settle property (docs/SPEC.md §10): reserving {@code c} and settling to {@code c'} leads to the same later
 * decisions as deciding {@code c'} directly (nothing when {@code c' = 0}), for {@code c' <= c}, and for
 * {@code c' > c} where {@code c'} would have been admitted at the reservation's reading, wherever the
 * reservation's window is still current (for a bucket: it has not filled up again since the reservation).
 */
class ReservationPropertiesTest {
    private static final long S = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z plus an odd offset, so windows do not line up with the start. */
    private static final long START = 1_767_225_600L * S + 123_456_789L;

    record Step(long deltaNanos, long cost) {
    }

    record Case(Policy policy, List<Step> before, long gapNanos, long reserved, long actual, long settleDelayNanos,
                List<Step> after) {
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Algorithm> algorithm = Arbitraries.of(Algorithm.values());
        Arbitrary<Long> quota = Arbitraries.longs().between(1, 12);
        Arbitrary<Long> refill = Arbitraries.longs().between(1, 4);
        Arbitrary<Long> periodSeconds = Arbitraries.of(1L, 3L, 7L, 60L);
        Arbitrary<Policy> policy = Combinators.combine(algorithm, quota, refill, periodSeconds).as((a, q, r, p) -> {
            Duration d = Duration.ofSeconds(p);
            Band band = switch (a) {
                case TOKEN_BUCKET -> Band.tokenBucket("p", q, r, d);
                case GCRA -> Band.gcra("p", q, r, d);
                case FIXED_WINDOW -> Band.fixedWindow("p", q, d);
                case SLIDING_WINDOW_LOG -> Band.slidingWindowLog("p", q, d);
                case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter("p", q, d);
                // hours in zones whose hours start at :00, :30 and :45 UTC; days in Lord Howe
                case CALENDAR -> Band.calendar("p", q, p == 1 ? CalendarPeriods.hourly(ZoneId.of("UTC"))
                        : p == 3 ? CalendarPeriods.hourly(ZoneId.of("America/St_Johns"))
                        : p == 7 ? CalendarPeriods.daily(ZoneId.of("Australia/Lord_Howe"))
                        : CalendarPeriods.hourly(ZoneId.of("Asia/Kathmandu")));
            };
            return Policy.builder("p").single(band).build();
        });
        Arbitrary<Step> step = Combinators.combine(Arbitraries.longs().between(0, 90 * S),
                Arbitraries.longs().between(1, 12)).as(Step::new);
        Arbitrary<List<Step>> steps = step.list().ofMaxSize(8);
        return Combinators.combine(policy, steps, Arbitraries.longs().between(0, 30 * S),
                Arbitraries.longs().between(1, 12), Arbitraries.longs().between(0, 24),
                Arbitraries.longs().between(0, 120 * S), steps)
                .as(Case::new);
    }

    private static Decision apply(LimiterState[] state, Policy policy, long cost, long now) {
        Outcome o = RateLimitAlgorithms.apply(state[0], policy, cost, now);
        if (o.write()) {
            state[0] = o.state();
        }
        return o.decision();
    }

    @Property(tries = 3000)
    void settlingToTheActualCostEqualsDecidingIt(@ForAll("cases") Case c) {
        Policy policy = c.policy();
        LimiterState[] reserved = {null};
        LimiterState[] direct = {null};
        long now = START;
        for (Step s : c.before()) {
            now += s.deltaNanos();
            assertThat(apply(reserved, policy, s.cost(), now)).isEqualTo(apply(direct, policy, s.cost(), now));
        }
        now += c.gapNanos();
        long t0 = now;
        Outcome reserve = RateLimitAlgorithms.reserve(reserved[0], policy, "k", c.reserved(), t0, new Random(7));
        Assume.that(reserve.decision().allowed());
        reserved[0] = reserve.state();
        Reservation r = reserve.decision().reservation();
        if (c.actual() > 0) {
            Decision d = apply(direct, policy, c.actual(), t0);
            Assume.that(d.allowed()); // for c' > c: c' would have been admitted at t0
        }
        long t1 = t0 + c.settleDelayNanos();
        Assume.that(t1 < r.expiresAtNanos());
        if (c.actual() > c.reserved() && policy.bands().get(0).algorithm().isBucket()) {
            Assume.that(c.settleDelayNanos() <= reserve.decision().resetAfterNanos()); // not full again since
        }
        SettleOutcome settle = RateLimitAlgorithms.settle(reserved[0], policy, "k", r, c.actual(), t1);
        assertThat(settle.settlement()).isEqualTo(new Settlement(Settlement.Status.SETTLED, c.actual(), 0));
        reserved[0] = settle.state();
        now = t1;
        for (Step s : c.after()) {
            now += s.deltaNanos();
            assertThat(apply(reserved, policy, s.cost(), now)).as("at %d ns after the settle", now - t1)
                    .isEqualTo(apply(direct, policy, s.cost(), now));
        }
    }
}
