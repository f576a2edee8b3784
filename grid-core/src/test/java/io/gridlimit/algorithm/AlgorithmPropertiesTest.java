package io.gridlimit.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarPeriod;
import io.gridlimit.calendar.CalendarPeriods;
import io.gridlimit.internal.Saturating;

import java.math.BigInteger;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Properties over wide parameter ranges (SPEC §1-4): capacities and limits up to 10^15, periods from 1 ms to
 * 365 days, gaps up to 100 years, clock steps back and policy changes. Time is a plain {@code long}.
 */
class AlgorithmPropertiesTest {
    private static final long MAX_Q = Band.MAX_QUANTITY;
    private static final long YEAR = Band.MAX_PERIOD_NANOS;
    /** Readings stay in [0, 8·10^18] ns (year 2223) so that {@code t + retryAfter} checks rarely overflow. */
    private static final long MAX_TIME = 8_000_000_000_000_000_000L;

    record Step(long deltaNanos, long cost, Optional<Policy> change) {
    }

    record Scenario(Policy policy, long startNanos, List<Step> steps) {
    }

    // ---------------------------------------------------------------------------------------------- generators

    static Arbitrary<Long> quantity() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.longs().between(1, 10)),
                Tuple.of(2, Arbitraries.longs().between(1, 1000)),
                Tuple.of(1, Arbitraries.longs().between(1, MAX_Q)),
                Tuple.of(1, Arbitraries.just(MAX_Q)));
    }

    static Arbitrary<Long> logLimit() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.longs().between(1, 20)),
                Tuple.of(1, Arbitraries.longs().between(1, Band.MAX_LOG_LIMIT)));
    }

    static Arbitrary<Long> periodNanos() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.longs().between(1, 10_000).map(ms -> ms * 1_000_000L)),
                Tuple.of(2, Arbitraries.longs().between(Band.MIN_PERIOD_NANOS, Band.MAX_PERIOD_NANOS)),
                Tuple.of(1, Arbitraries.just(Band.MAX_PERIOD_NANOS)),
                Tuple.of(1, Arbitraries.just(Band.MIN_PERIOD_NANOS)));
    }

    static Band bandOf(String name, Algorithm algorithm, long quantity, long refillTokens, long periodNanos) {
        Duration d = Duration.ofNanos(periodNanos);
        return switch (algorithm) {
            case TOKEN_BUCKET -> Band.tokenBucket(name, quantity, refillTokens, d);
            case GCRA -> Band.gcra(name, quantity, refillTokens, d);
            case FIXED_WINDOW -> Band.fixedWindow(name, quantity, d);
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(name, Math.min(quantity, Band.MAX_LOG_LIMIT), d);
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(name, quantity, d);
            case CALENDAR -> Band.calendar(name, quantity, calendarFor(periodNanos));
        };
    }

    /** Zones with DST, half-hour offsets and DST, a skipped day, a midnight gap, and none. */
    static final String[] ZONES = {"UTC", "Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe",
        "Pacific/Apia", "Asia/Beirut", "America/Santiago", "Asia/Kolkata"};

    /** A calendar chosen by a seed: every period kind, several zones, week starts and month anchors. */
    static CalendarPeriods calendarFor(long seed) {
        long s = Math.abs(seed / 1_000_000L);
        CalendarPeriod period = CalendarPeriod.values()[(int) (s % CalendarPeriod.values().length)];
        ZoneId zone = ZoneId.of(ZONES[(int) (s / 7 % ZONES.length)]);
        return CalendarPeriods.of(period, zone, period == CalendarPeriod.WEEK ? DayOfWeek.of((int) (s % 7) + 1) : null,
                period == CalendarPeriod.MONTH ? (int) (s % 31) + 1 : null);
    }

    /** A band's period or window; for a calendar band the nominal length of its period. */
    static long periodOf(Band b) {
        if (b.calendar() == null) {
            return b.algorithm().isBucket() ? b.refillPeriodNanos() : b.windowNanos();
        }
        long hour = 3_600_000_000_000L;
        return switch (b.calendar().period()) {
            case HOUR -> hour;
            case DAY -> 24 * hour;
            case WEEK -> 7 * 24 * hour;
            case MONTH -> 30 * 24 * hour;
            case QUARTER -> 91 * 24 * hour;
            case YEAR -> 365 * 24 * hour;
        };
    }

    static Arbitrary<Band> band(String name, Algorithm algorithm) {
        Arbitrary<Long> q = algorithm == Algorithm.SLIDING_WINDOW_LOG ? logLimit() : quantity();
        return Combinators.combine(q, quantity(), periodNanos()).as((c, r, p) -> bandOf(name, algorithm, c, r, p));
    }

    static Arbitrary<Band> band(String name) {
        return Arbitraries.of(Algorithm.class).flatMap(a -> band(name, a));
    }

    /** The same algorithm and period or window, new quantities. */
    static Arbitrary<Band> sameShape(Band b) {
        if (b.calendar() != null) {
            return quantity().map(q -> Band.calendar(b.name(), q, b.calendar()));
        }
        long period = b.algorithm().isBucket() ? b.refillPeriodNanos() : b.windowNanos();
        Arbitrary<Long> q = b.algorithm() == Algorithm.SLIDING_WINDOW_LOG ? logLimit() : quantity();
        return Combinators.combine(q, quantity()).as((c, r) -> bandOf(b.name(), b.algorithm(), c, r, period));
    }

    static Policy single(Band b) {
        return Policy.builder("p").single(b).build();
    }

    static Arbitrary<Policy> composite() {
        return Combinators.combine(band("b0"), band("b1"), band("b2"), Arbitraries.integers().between(2, 3))
                .as((a, b, c, n) -> {
                    Policy.Builder builder = Policy.builder("p").band(a).band(b);
                    return (n == 3 ? builder.band(c) : builder).build();
                });
    }

    static Arbitrary<Policy> anyPolicy() {
        return Arbitraries.frequencyOf(Tuple.of(3, band("p").map(AlgorithmPropertiesTest::single)),
                Tuple.of(1, composite()));
    }

    /** A policy of the same name with some bands re-parameterised, replaced, dropped or added. */
    static Arbitrary<Policy> changed(Policy p) {
        if (!p.isComposite()) {
            Band b = p.bands().get(0);
            return Arbitraries.oneOf(sameShape(b), band("p")).map(AlgorithmPropertiesTest::single);
        }
        List<Arbitrary<Band>> bands = new ArrayList<>();
        for (Band b : p.bands()) {
            bands.add(Arbitraries.oneOf(Arbitraries.just(b), sameShape(b), band(b.name())));
        }
        bands.add(band("b9"));
        return Combinators.combine(bands).as(list -> list).flatMap(list -> Arbitraries.integers()
                .between(1, list.size()).map(n -> {
                    Policy.Builder builder = Policy.builder("p");
                    list.subList(0, n).forEach(builder::band);
                    return builder.build();
                }));
    }

    static Arbitrary<Policy> changedBucket(Policy p) {
        Band b = p.bands().get(0);
        return Arbitraries.oneOf(sameShape(b), band("p", b.algorithm())).map(AlgorithmPropertiesTest::single);
    }

    static long scale(Policy p) {
        return p.bands().stream().mapToLong(AlgorithmPropertiesTest::periodOf).min().orElseThrow();
    }

    static long quota(Policy p) {
        return p.bands().stream().mapToLong(Band::quota).min().orElseThrow();
    }

    static Arbitrary<Long> deltas(long scale, boolean back, boolean huge) {
        List<Tuple.Tuple2<Integer, Arbitrary<Long>>> f = new ArrayList<>();
        f.add(Tuple.of(3, Arbitraries.just(0L)));
        f.add(Tuple.of(6, Arbitraries.longs().between(0, 2 * scale)));
        f.add(Tuple.of(2, Arbitraries.longs().between(1, Math.max(1, scale / 1000))));
        if (back) {
            f.add(Tuple.of(1, Arbitraries.longs().between(-2 * scale, -1)));
        }
        if (huge) {
            f.add(Tuple.of(1, Arbitraries.longs().between(0, 100 * YEAR)));
        }
        return Arbitraries.frequencyOf(f);
    }

    static Arbitrary<Long> costs(long quota) {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.longs().between(1, Math.min(quota, 5))),
                Tuple.of(2, Arbitraries.longs().between(1, quota)),
                Tuple.of(1, Arbitraries.longs().between(1, MAX_Q)),
                Tuple.of(1, Arbitraries.just(Math.min(quota + 1, MAX_Q))));
    }

    static Arbitrary<Scenario> scenarios(Arbitrary<Policy> policies, boolean back, boolean huge,
                                         Function<Policy, Arbitrary<Policy>> changes, int maxSteps) {
        return policies.flatMap(p -> {
            Arbitrary<Optional<Policy>> change = changes == null ? Arbitraries.just(Optional.empty())
                    : changes.apply(p).optional(0.05);
            Arbitrary<Step> step = Combinators.combine(deltas(scale(p), back, huge), costs(quota(p)), change)
                    .as(Step::new);
            return Combinators.combine(Arbitraries.longs().between(0, 2_000_000_000_000_000_000L),
                    step.list().ofMinSize(1).ofMaxSize(maxSteps)).as((s, l) -> new Scenario(p, s, l));
        });
    }

    static long advance(long t, long deltaNanos) {
        return Math.max(0, Math.min(MAX_TIME, Saturating.add(t, deltaNanos)));
    }

    static Policy toGcra(Policy p) {
        Band b = p.bands().get(0);
        return single(Band.gcra("p", b.capacity(), b.refillTokens(), Duration.ofNanos(b.refillPeriodNanos())));
    }

    // ---------------------------------------------------------------------------------------------- providers

    @Provide
    Arbitrary<Scenario> bucketScenarios() {
        Arbitrary<Policy> buckets = band("p", Algorithm.TOKEN_BUCKET).map(AlgorithmPropertiesTest::single);
        return scenarios(buckets, true, true, AlgorithmPropertiesTest::changedBucket, 40);
    }

    @Provide
    Arbitrary<Scenario> forwardBucketScenarios() {
        Arbitrary<Policy> buckets = Arbitraries.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA)
                .flatMap(a -> band("p", a)).map(AlgorithmPropertiesTest::single);
        return scenarios(buckets, false, true, null, 40);
    }

    @Provide
    Arbitrary<Scenario> forwardLogScenarios() {
        return scenarios(band("p", Algorithm.SLIDING_WINDOW_LOG).map(AlgorithmPropertiesTest::single), false, false,
                null, 50);
    }

    @Provide
    Arbitrary<Scenario> forwardCompositeScenarios() {
        return scenarios(composite(), false, true, null, 30);
    }

    @Provide
    Arbitrary<Scenario> anyScenarios() {
        return scenarios(anyPolicy(), true, true, AlgorithmPropertiesTest::changed, 30);
    }

    @Provide
    Arbitrary<Scenario> shiftableScenarios() {
        Arbitrary<Policy> policies = Arbitraries.of(Algorithm.TOKEN_BUCKET, Algorithm.GCRA,
                Algorithm.SLIDING_WINDOW_LOG).flatMap(a -> band("p", a)).map(AlgorithmPropertiesTest::single);
        return scenarios(policies, false, false, null, 30);
    }

    // ---------------------------------------------------------------------------------------------- properties

    @Property(tries = 300)
    void gcraAndTokenBucketDecideIdentically(@ForAll("bucketScenarios") Scenario sc) {
        Key tb = new Key(sc.policy);
        Key gcra = new Key(toGcra(sc.policy));
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            if (step.change.isPresent()) {
                tb.policy = step.change.get();
                gcra.policy = toGcra(step.change.get());
            }
            Decision expected = tb.take(step.cost, t);
            assertThat(gcra.take(step.cost, t)).as("at %d cost %d", t, step.cost).isEqualTo(expected);
            assertThat(gcra.last.write()).isEqualTo(tb.last.write());
            assertThat(gcra.last.ttlNanos()).isEqualTo(tb.last.ttlNanos());
            assertThat(gcra.fresh(t)).isEqualTo(tb.fresh(t));
        }
    }

    @Property(tries = 300)
    void aBucketAdmitsAtMostCapacityPlusRefillOverAnyInterval(@ForAll("forwardBucketScenarios") Scenario sc) {
        Band b = sc.policy.bands().get(0);
        Key key = new Key(sc.policy);
        List<long[]> admitted = new ArrayList<>();
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            if (key.take(step.cost, t).allowed()) {
                admitted.add(new long[] {t, step.cost});
            }
        }
        for (int i = 0; i < admitted.size(); i++) {
            BigInteger sum = BigInteger.ZERO;
            for (int j = i; j < admitted.size(); j++) {
                sum = sum.add(BigInteger.valueOf(admitted.get(j)[1]));
                long span = admitted.get(j)[0] - admitted.get(i)[0];
                BigInteger bound = BigInteger.valueOf(b.capacity()).add(BigInteger.valueOf(span)
                        .multiply(BigInteger.valueOf(b.refillTokens())).divide(BigInteger.valueOf(b.refillPeriodNanos())));
                assertThat(sum).as("admitted over [%d, %d]", admitted.get(i)[0], admitted.get(j)[0])
                        .isLessThanOrEqualTo(bound);
            }
        }
    }

    @Property(tries = 300)
    void theLogNeverAdmitsMoreThanItsLimitInAnyClosedWindow(@ForAll("forwardLogScenarios") Scenario sc) {
        Band b = sc.policy.bands().get(0);
        Key key = new Key(sc.policy);
        List<long[]> admitted = new ArrayList<>();
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            if (key.take(step.cost, t).allowed()) {
                admitted.add(new long[] {t, step.cost});
            }
        }
        // the heaviest closed interval [a, a + W] can be slid right until a is an admitted time
        for (long[] start : admitted) {
            long sum = admitted.stream().filter(e -> e[0] >= start[0] && e[0] - start[0] <= b.windowNanos())
                    .mapToLong(e -> e[1]).sum();
            assertThat(sum).as("from %d", start[0]).isLessThanOrEqualTo(b.limit());
        }
    }

    @Property(tries = 250)
    void aCompositeAdmitsExactlyWhenEveryBandAdmitsAndConsumesAllOrNothing(
            @ForAll("forwardCompositeScenarios") Scenario sc) {
        List<Band> bands = sc.policy.bands();
        Key composite = new Key(sc.policy);
        List<Key> singles = new ArrayList<>();
        bands.forEach(b -> singles.add(new Key(Policy.builder(b.name()).single(b).build())));
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            Decision[] ds = new Decision[bands.size()];
            Outcome[] os = new Outcome[bands.size()];
            boolean all = true;
            for (int i = 0; i < ds.length; i++) {
                os[i] = RateLimitAlgorithms.apply(singles.get(i).state, singles.get(i).policy, step.cost, t);
                ds[i] = os[i].decision();
                all &= ds[i].allowed();
            }
            int bind = all ? bindingAdmitted(ds) : bindingDenied(ds);
            Decision expected = new Decision(all, ds[bind].limit(), ds[bind].remaining(), ds[bind].resetAfterNanos(),
                    ds[bind].retryAfterNanos(), bands.get(bind).name());
            assertThat(composite.take(step.cost, t)).isEqualTo(expected);
            assertThat(composite.last.write()).isEqualTo(all);
            if (all) {
                for (int i = 0; i < ds.length; i++) {
                    singles.get(i).state = os[i].state();
                }
                long ttl = 0;
                for (Outcome o : os) {
                    ttl = Math.max(ttl, o.ttlNanos());
                }
                assertThat(composite.last.ttlNanos()).isEqualTo(ttl);
            }
            CompositeState s = (CompositeState) composite.state;
            for (int i = 0; i < ds.length; i++) {
                assertThat(s == null ? null : s.bandState(bands.get(i).name())).isEqualTo(singles.get(i).state);
            }
        }
    }

    private static int bindingAdmitted(Decision[] ds) {
        int best = 0;
        for (int i = 1; i < ds.length; i++) {
            if (ds[i].remaining() < ds[best].remaining() || (ds[i].remaining() == ds[best].remaining()
                    && ds[i].resetAfterNanos() < ds[best].resetAfterNanos())) {
                best = i;
            }
        }
        return best;
    }

    private static int bindingDenied(Decision[] ds) {
        for (int i = 0; i < ds.length; i++) {
            if (ds[i].isUnsatisfiable()) {
                return i;
            }
        }
        int best = -1;
        for (int i = 0; i < ds.length; i++) {
            if (!ds[i].allowed() && (best < 0 || ds[i].retryAfterNanos() > ds[best].retryAfterNanos())) {
                best = i;
            }
        }
        return best;
    }

    @Property(tries = 400)
    void remainingStaysInRangeAndADenialWritesOnlyARebase(@ForAll("anyScenarios") Scenario sc) {
        Key key = new Key(sc.policy);
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            step.change.ifPresent(p -> key.policy = p);
            LimiterState before = key.state;
            Decision d = key.take(step.cost, t);
            Outcome o = key.last;
            assertThat(d.remaining()).isBetween(0L, d.limit());
            assertThat(d.limit()).isEqualTo(d.band() == null ? key.policy.bands().get(0).quota()
                    : key.policy.bands().stream().filter(b -> b.name().equals(d.band())).findFirst().orElseThrow()
                            .quota());
            assertThat(o.ttlNanos()).isNotNegative();
            if (d.allowed()) {
                assertThat(o.write()).isTrue();
            } else if (!o.write()) {
                assertThat(o.state()).isSameAs(before);
                assertThat(o.ttlNanos()).isZero();
            } else {
                // a rebase: only after a step back, and it changes nothing visible at this reading
                assertThat(before.lastNanos()).isGreaterThan(t);
                Outcome again = RateLimitAlgorithms.apply(o.state(), key.policy, step.cost, t);
                assertThat(again.decision()).isEqualTo(d);
                assertThat(again.write()).isFalse();
            }
            if (o.write()) {
                assertThat(o.state().lastNanos()).isEqualTo(t);
            }
        }
    }

    @Property(tries = 400)
    void retryAfterAndResetAfterAreExact(@ForAll("anyScenarios") Scenario sc) {
        Key key = new Key(sc.policy);
        long t = sc.startNanos;
        for (Step step : sc.steps) {
            t = advance(t, step.deltaNanos);
            step.change.ifPresent(p -> key.policy = p);
            Decision d = key.take(step.cost, t);
            Outcome o = key.last;
            LimiterState s = o.state();
            long retry = d.retryAfterNanos();
            if (!d.allowed() && retry != Decision.NO_RETRY && retry <= MAX_TIME - t) {
                assertThat(RateLimitAlgorithms.apply(s, key.policy, step.cost, t + retry).decision().allowed())
                        .as("admitted %d ns after %s at %d", retry, d, t).isTrue();
                assertThat(RateLimitAlgorithms.apply(s, key.policy, step.cost, t + retry - 1).decision().allowed())
                        .as("denied %d ns after %s at %d", retry - 1, d, t).isFalse();
            }
            if (o.write() && o.ttlNanos() <= MAX_TIME - t) {
                assertThat(RateLimitAlgorithms.isFresh(s, key.policy, t + o.ttlNanos())).isTrue();
                if (o.ttlNanos() > 0) {
                    assertThat(RateLimitAlgorithms.isFresh(s, key.policy, t + o.ttlNanos() - 1)).isFalse();
                }
            }
            if (!key.policy.isComposite() && d.resetAfterNanos() <= MAX_TIME - t) {
                if (o.write()) {
                    assertThat(o.ttlNanos()).isEqualTo(d.resetAfterNanos());
                }
                assertThat(RateLimitAlgorithms.isFresh(s, key.policy, t + d.resetAfterNanos())).isTrue();
                if (d.resetAfterNanos() > 0) {
                    assertThat(RateLimitAlgorithms.isFresh(s, key.policy, t + d.resetAfterNanos() - 1)).isFalse();
                }
            }
        }
    }

    @Property(tries = 300)
    void applyAllEqualsSequentialApply(@ForAll("anyScenarios") Scenario sc, @ForAll("costLists") long[] costs) {
        Key key = new Key(sc.policy);
        long t = sc.startNanos;
        List<Step> steps = sc.steps;
        for (int i = 0; i < steps.size() - 1; i++) {
            t = advance(t, steps.get(i).deltaNanos);
            key.take(Math.min(steps.get(i).cost, 3), t);
        }
        long now = advance(t, steps.get(steps.size() - 1).deltaNanos);
        Outcome[] all = RateLimitAlgorithms.applyAll(key.state, sc.policy, costs, now);
        LimiterState state = key.state;
        for (int i = 0; i < costs.length; i++) {
            Outcome one = RateLimitAlgorithms.apply(state, sc.policy, costs[i], now);
            assertThat(all[i].decision()).isEqualTo(one.decision());
            assertThat(all[i].write()).isEqualTo(one.write());
            assertThat(all[i].state()).isEqualTo(one.state());
            assertThat(all[i].ttlNanos()).isEqualTo(one.ttlNanos());
            state = one.state();
        }
    }

    @Provide
    Arbitrary<long[]> costLists() {
        return Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.longs().between(1, 3)),
                Tuple.of(1, Arbitraries.longs().between(1, MAX_Q))).array(long[].class).ofMinSize(1).ofMaxSize(8);
    }

    @Property(tries = 300)
    void aClockStepBackIsATimeShiftForBucketsAndTheLog(@ForAll("shiftableScenarios") Scenario sc,
                                                       @ForAll("stepsBack") long backFraction) {
        Key key = new Key(sc.policy);
        List<Step> steps = sc.steps;
        int split = steps.size() / 2;
        long t = sc.startNanos;
        for (int i = 0; i < split; i++) {
            t = advance(t, steps.get(i).deltaNanos);
            key.take(steps.get(i).cost, t);
        }
        if (key.state == null) {
            return;
        }
        long last = key.state.lastNanos();
        long back = Math.max(1, Math.min(last, scale(sc.policy) * backFraction / 1000));
        Key shifted = new Key(sc.policy);
        shifted.state = key.state;
        long a = last - back;
        long b = last;
        for (int i = split; i < steps.size(); i++) {
            long delta = i == split ? 0 : steps.get(i).deltaNanos;
            a += delta;
            b += delta;
            Decision expected = key.take(steps.get(i).cost, b);
            assertThat(shifted.take(steps.get(i).cost, a)).isEqualTo(expected);
        }
    }

    @Provide
    Arbitrary<Long> stepsBack() {
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(1, 3000)),
                Tuple.of(1, Arbitraries.longs().between(1, 1_000_000)));
    }
}
