package io.gridlimit.grid.owner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import com.hazelcast.internal.serialization.impl.SerializationConstants;
import com.hazelcast.internal.serialization.impl.compact.CompactGenericRecord;
import com.hazelcast.internal.serialization.impl.compact.Schema;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.gridlimit.algorithm.CalendarState;
import io.gridlimit.algorithm.CompositeState;
import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.algorithm.FixedWindowState;
import io.gridlimit.algorithm.GcraState;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.SlidingWindowCounterState;
import io.gridlimit.algorithm.SlidingWindowLogState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.ConservativeMergePolicy;
import io.gridlimit.grid.GridLimitDataSerializableFactory;
import io.gridlimit.grid.GridTestSupport;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.grid.owner.SeenPolicies;
import io.gridlimit.grid.catalog.CatalogUpdateProcessor;
import io.gridlimit.grid.catalog.CatalogWriteProcessor;
import io.gridlimit.grid.wire.StateSerializers;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every wire id and every Compact state through a real member's serialization service: exact round trips, the
 * stable ids and type names, and proof that neither Java serialization nor reflective Compact is used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SerializationRoundTripTest {
    private GridTestSupport.Cluster cluster;
    private InternalSerializationService ss;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(1, 0);
        HazelcastInstance member = cluster.startMember(GridTestSupport.T0);
        ss = (InternalSerializationService) ((SerializationServiceSupport) member).getSerializationService();
    }

    @AfterAll
    void stop() {
        cluster.close();
    }

    static Stream<LimiterState> states() {
        long t = GridTestSupport.T0;
        SlidingWindowLogState log = new SlidingWindowLogState(t, 60_000_000_000L,
                new long[] {t - 3_000, t - 2_000, t}, new int[] {1, 7, 1_000_000});
        return Stream.of(
                new TokenBucketState(t, 42, 123_456, 1_000_000_000L),
                new TokenBucketState(Long.MIN_VALUE, 0, 0, 1),
                new GcraState(t, 5, -7L, 1_000_000_000_000_000L, 3, 365L * 86_400_000_000_000L),
                new FixedWindowState(t, 999_999_999_999_999L, 1_000_000L),
                log,
                new SlidingWindowLogState(t, 1_000_000L, new long[0], new int[0]),
                new SlidingWindowCounterState(t, 17, 4, 3_600_000_000_000L),
                // docs/SPEC.md §14: a period whose members disagreed on its end, with a part for the next period
                new CalendarState(t, 1_767_225_600L, t - 1_000, t + 5_000, t + 9_000, 7, 2,
                        "period=month;zone=Europe/Berlin;anchor=31"),
                new CompositeState(t, new String[] {"burst", "hourly", "daily"},
                        new LimiterState[] {new TokenBucketState(t, 3, 1, 1_000_000_000L), log,
                                new SlidingWindowCounterState(t, 1, 2, 86_400_000_000_000L)}),
                new CompositeState(t, new String[] {"burst", "monthly"}, new LimiterState[] {
                    new TokenBucketState(t, 3, 1, 1_000_000_000L),
                    new CalendarState(t, 0, Long.MIN_VALUE, 0, Long.MAX_VALUE, 0, 0, "period=hour;zone=UTC")}),
                new TokenBucketState(t, -1_000_000_000_000_000L, 5, 1_000_000_000L),
                new ReservedState(new TokenBucketState(t, -3, 0, 1_000_000_000L), -42L, 0x0123456789abcdefL, -1L,
                        12, t + 10_000_000_000L, 3, new long[] {3, 7}, new long[] {t + 1, t + 2}, new long[] {0, 9}),
                new ReservedState(new CompositeState(t, new String[] {"burst"},
                        new LimiterState[] {new FixedWindowState(t, 4, 1_000_000_000L)}), 1, 2, 3, 1, t, 1,
                        new long[0], new long[0], new long[0]),
                // with open leases (docs/SPEC.md §13)
                new ReservedState(new TokenBucketState(t, 800, 0, 1_000_000_000L), 5, 6, 7, 4, t + 1_000_000_000L, 1,
                        new long[0], new long[0], new long[0], new long[] {2, 3}, new long[] {100, 100},
                        new long[] {t + 500_000_000L, t + 1_000_000_000L}, new long[] {-1L, 11L},
                        new long[] {0x7fffffffffffffffL, 12L}, t - 7, t - 9));
    }

    @Test
    void leaseProcessorsAndResultsCarryTheirFields() {
        Policy policy = Policy.builder("api").single(Band.tokenBucket("api", 1000, 1000, Duration.ofSeconds(1)))
                .build();
        LeaseProcessor p = roundTrip(new LeaseProcessor(policy, 2, 64, 1_000_000_000L, -5L, 6L, true, 3));
        assertThat(p.getClassId()).isEqualTo(24);
        assertThat(p.toString()).isEqualTo("LeaseProcessor{api cost=2 units=64}");
        Reservation used = new Reservation("api", "user:1", 7, 2, GridTestSupport.T0, GridTestSupport.T0 + 5, 10,
                List.of(Reservation.BandShape.of(policy.bands().get(0))), new byte[Reservation.MAC_BYTES]);
        assertThat(roundTrip(new LeaseProcessor(policy, 1, 8, 1_000_000_000L, 1, 2, false, 0)
                .closing(new Reservation[] {used}, new long[] {10})).toString())
                .isEqualTo("LeaseProcessor{api cost=1 units=8 closes=1}");
        Reservation r = new Reservation("api", "user:1", 7, 3, GridTestSupport.T0, GridTestSupport.T0 + 5, 64,
                List.of(Reservation.BandShape.of(policy.bands().get(0))), new byte[Reservation.MAC_BYTES]);
        Decision granted = new Decision(true, 1000, 936, 64_000_000L, Decision.NO_RETRY, null, r).withPolicyVersion(3);
        LeaseResult back = roundTrip(new LeaseResult(granted, 64, GridTestSupport.T0 + 5, GridTestSupport.T0));
        assertThat(back.getClassId()).isEqualTo(25);
        assertThat(back.decision()).isEqualTo(granted);
        assertThat(back.decision().reservation()).isEqualTo(r);
        assertThat(back.decision().policyVersion()).isEqualTo(3);
        assertThat(back.grantedUnits()).isEqualTo(64);
        assertThat(back.leaseEndNanos()).isEqualTo(GridTestSupport.T0 + 5);
        assertThat(back.ownerNanos()).isEqualTo(GridTestSupport.T0);
        Decision denied = new Decision(false, 1000, 0, 9, 8, null);
        assertThat(roundTrip(new LeaseResult(denied, 0, 0, GridTestSupport.T0)).decision()).isEqualTo(denied);
    }

    @Test
    void reservingProcessorsAndResultsCarryTheirFields() {
        Policy policy = Policy.builder("api").band(Band.tokenBucket("burst", 10, 1, Duration.ofSeconds(1))
                .withMaxDebt(0)).band(Band.slidingWindowLog("hourly", 100, Duration.ofHours(1)).withMaxDebt(7))
                .build();
        DecideProcessor reserve = roundTrip(new DecideProcessor(policy, new long[] {4, 5}).reserving());
        assertThat(reserve.reserves()).isTrue();
        assertThat(reserve.getClassId()).isEqualTo(20);
        assertThat(reserve.costs()).containsExactly(4, 5);
        Reservation r = new Reservation("api", "user:\u00e9", 7, 3, GridTestSupport.T0, GridTestSupport.T0 + 5,
                4, List.of(Reservation.BandShape.of(policy.bands().get(0)),
                        Reservation.BandShape.of(policy.bands().get(1))), new byte[Reservation.MAC_BYTES]);
        Decision[] decisions = {new Decision(true, 10, 6, 4_000_000_000L, Decision.NO_RETRY, "burst", r),
            new Decision(false, 10, 0, 9, 8, "burst")};
        DecisionResult back = roundTrip(new DecisionResult(decisions).reserving());
        assertThat(back.getClassId()).isEqualTo(21);
        assertThat(back.decisions()).containsExactly(decisions);
        assertThat(back.decisions()[0].reservation()).isEqualTo(r);

        // a reservation of a catalog policy carries the version both ways (docs/SPEC.md §10, §11)
        DecideProcessor versioned = roundTrip(new DecideProcessor(policy, 4).withPolicyVersion(9).reserving());
        assertThat(versioned.getClassId()).isEqualTo(20);
        assertThat(versioned.policyVersion()).isEqualTo(9);
        assertThat(roundTrip(new DecideProcessor(policy, 4).reserving()).policyVersion()).isZero();
        Decision[] stated = {decisions[0].withPolicyVersion(9), decisions[1].withPolicyVersion(9)};
        DecisionResult statedBack = roundTrip(new DecisionResult(stated).reserving());
        assertThat(statedBack.decisions()).containsExactly(stated);
        assertThat(statedBack.decisions()[0].policyVersion()).isEqualTo(9);
        assertThat(statedBack.decisions()[0].reservation()).isEqualTo(r);

        // a catalog record and update keep each band's maximum debt (docs/SPEC.md §10, §11)
        PolicyRecord record = new PolicyRecord("api", 2, PolicyRecord.Origin.API, 0, "alice", 1_767_225_601_000L,
                policy, List.of(new SeenPolicies.Versioned(1, policy)));
        PolicyRecord recordBack = roundTrip(record);
        assertThat(recordBack).isEqualTo(record);
        assertThat(recordBack.policy().bands()).extracting(Band::maxDebt).containsExactly(0L, 7L);
        assertThat(recordBack.earlier().get(0).policy().bands()).extracting(Band::maxDebt).containsExactly(0L, 7L);

        SettleProcessor settle = roundTrip(new SettleProcessor(policy, r, 1_000_000_000_000_000L));
        assertThat(settle.policy()).isEqualTo(policy);
        assertThat(settle.policy().bands()).extracting(Band::maxDebt).containsExactly(0L, 7L);
        assertThat(settle.reservation()).isEqualTo(r);
        assertThat(settle.actual()).isEqualTo(1_000_000_000_000_000L);
        for (Settlement.Status status : Settlement.Status.values()) {
            Settlement settlement = new Settlement(status, 3, 2);
            assertThat(roundTrip(new SettleResult(settlement)).settlement()).isEqualTo(settlement);
        }
    }

    @ParameterizedTest
    @MethodSource("states")
    void compactStatesRoundTripUnderTheirStableTypeName(LimiterState state) throws Exception {
        Data data = ss.toData(state);

        assertThat(data.getType()).isEqualTo(SerializationConstants.TYPE_COMPACT);
        Schema schema = ((CompactGenericRecord) ss.readAsInternalGenericRecord(data)).getSchema();
        assertThat(schema.getTypeName()).isEqualTo("gridlimit." + state.getClass().getSimpleName());
        Object back = ss.toObject(data);
        assertThat(back).isEqualTo(state).isNotSameAs(state);
    }

    @Test
    void compositeBandsKeepTheirOwnTypesAndOrder() {
        CompositeState composite = (CompositeState) states().filter(s -> s instanceof CompositeState)
                .findFirst().orElseThrow();
        CompositeState back = ss.toObject(ss.toData(composite));
        assertThat(back.bandNames()).containsExactly("burst", "hourly", "daily");
        assertThat(back.bandStates()).extracting(s -> s.getClass().getSimpleName())
                .containsExactly("TokenBucketState", "SlidingWindowLogState", "SlidingWindowCounterState");
        SlidingWindowLogState log = (SlidingWindowLogState) back.bandState("hourly");
        assertThat(log.entryNanos()).containsExactly(GridTestSupport.T0 - 3_000, GridTestSupport.T0 - 2_000,
                GridTestSupport.T0);
        assertThat(log.entryCosts()).containsExactly(1, 7, 1_000_000);
    }

    @Test
    void hitProcessorsCarryThePolicyTheCostAndTheVersion() {
        Policy policy = Policy.builder("rls").fixedWindow(5, Duration.ofMinutes(1)).build();
        DecideProcessor hit = roundTrip(new DecideProcessor(policy, 0).hitting());
        assertThat(hit.getClassId()).isEqualTo(38);
        assertThat(hit.policy()).isEqualTo(policy);
        assertThat(hit.cost()).isZero();
        assertThat(hit.costs()).isNull();
        assertThat(hit.policyVersion()).isZero();
        DecideProcessor versioned = roundTrip(new DecideProcessor(policy, 7).withPolicyVersion(4).hitting());
        assertThat(versioned.getClassId()).isEqualTo(38);
        assertThat(versioned.cost()).isEqualTo(7);
        assertThat(versioned.policyVersion()).isEqualTo(4);
        assertThatThrownBy(() -> new DecideProcessor(policy, new long[] {1, 2}).hitting())
                .isInstanceOf(IllegalStateException.class).hasMessage("a hit is one cost, never a batch or a reservation");
        assertThatThrownBy(() -> new DecideProcessor(policy, 1).reserving().hitting())
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void idsAndTypeNamesNeverChange() {
        assertThat(GridLimitDataSerializableFactory.FACTORY_ID).isEqualTo(0x474C);
        assertThat(new DecideProcessor(false).getClassId()).isEqualTo(1);
        assertThat(new WriteStateProcessor(false).getClassId()).isEqualTo(2);
        assertThat(new DecisionResult(false).getClassId()).isEqualTo(3);
        assertThat(new DecideProcessor(true).getClassId()).isEqualTo(5);
        assertThat(new WriteStateProcessor(true).getClassId()).isEqualTo(6);
        assertThat(new DecisionResult(true).getClassId()).isEqualTo(7);
        assertThat(StateSerializers.all()).extracting(s -> s.getTypeName()).containsExactly(
                "gridlimit.TokenBucketState", "gridlimit.GcraState", "gridlimit.FixedWindowState",
                "gridlimit.SlidingWindowLogState", "gridlimit.SlidingWindowCounterState", "gridlimit.CalendarState",
                "gridlimit.CompositeState", "gridlimit.ReservedState");
        assertThat(new DecideProcessor(true).reserving().getClassId()).isEqualTo(20);
        assertThat(new DecisionResult(true).reserving().getClassId()).isEqualTo(21);
        assertThat(new SettleProcessor().getClassId()).isEqualTo(22);
        assertThat(new SettleResult().getClassId()).isEqualTo(23);
        GridLimitDataSerializableFactory factory = new GridLimitDataSerializableFactory();
        assertThat(factory.create(1)).isInstanceOf(DecideProcessor.class);
        assertThat(factory.create(2)).isInstanceOf(WriteStateProcessor.class);
        assertThat(factory.create(3)).isInstanceOf(DecisionResult.class);
        assertThat(new ConservativeMergePolicy<>().getClassId()).isEqualTo(4);
        assertThat(factory.create(4)).isInstanceOf(ConservativeMergePolicy.class);
        assertThat(factory.create(5)).isInstanceOf(DecideProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(5);
        assertThat(factory.create(6)).isInstanceOf(WriteStateProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(6);
        assertThat(factory.create(7)).isInstanceOf(DecisionResult.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(7);
        assertThat(factory.create(0)).isNull();
        assertThat(factory.create(-1)).isNull();
        assertThat(factory.create(8).getClassId()).as("a newer GridLimit's type: refused on reading").isEqualTo(8);
        assertThat(factory.create(20)).isInstanceOf(DecideProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(20);
        assertThat(factory.create(21)).isInstanceOf(DecisionResult.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(21);
        assertThat(factory.create(22)).isInstanceOf(SettleProcessor.class);
        assertThat(factory.create(23)).isInstanceOf(SettleResult.class);
        assertThat(factory.create(24).getClassId()).as("an id of the range not taken yet").isEqualTo(24);
        // the policy catalog's ids (docs/SPEC.md §11)
        assertThat(factory.create(30)).isInstanceOf(DecideProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(30);
        assertThat(factory.create(31)).isInstanceOf(DecisionResult.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(31);
        assertThat(factory.create(32)).isInstanceOf(PolicyRecord.class);
        assertThat(factory.create(33)).isInstanceOf(CatalogUpdateProcessor.class);
        assertThat(factory.create(34)).isInstanceOf(CatalogWriteProcessor.class);
        assertThat(factory.create(35)).isInstanceOf(CatalogUpdateProcessor.Result.class);
        // configuration generations (docs/SPEC.md §11)
        assertThat(factory.create(36)).isInstanceOf(PolicyRecord.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(36);
        assertThat(factory.create(37)).isInstanceOf(CatalogUpdateProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(37);
        // counting every hit (docs/SPEC.md §3)
        assertThat(factory.create(38)).isInstanceOf(DecideProcessor.class)
                .extracting(IdentifiedDataSerializable::getClassId).isEqualTo(38);
        assertThat(factory.create(39).getClassId()).as("an id of the range not taken yet").isEqualTo(39);
    }

    @Test
    void mergePolicyRoundTripsWithoutFields() {
        assertThat(roundTrip(new ConservativeMergePolicy<>())).isInstanceOf(ConservativeMergePolicy.class);
    }

    static Stream<Policy> wirePolicies() {
        Policy.Builder sixteen = Policy.builder("sixteen");
        for (int i = 0; i < Policy.Builder.MAX_BANDS; i++) {
            sixteen.band(i % 2 == 0 ? Band.fixedWindow("w" + i, i + 1, Duration.ofMillis(i + 1))
                    : Band.gcra("g" + i, 1_000_000_000_000_000L, i, Duration.ofDays(365)));
        }
        return Stream.concat(GridTestSupport.policies("wire-", 100_000).stream(), Stream.of(
                Policy.builder("odd").gcra(7, 3, Duration.ofNanos(1_234_567_891L)).build(),
                sixteen.build()));
    }

    @ParameterizedTest
    @MethodSource("wirePolicies")
    void decideProcessorCarriesThePolicyAndTheCost(Policy policy) {
        DecideProcessor single = roundTrip(new DecideProcessor(policy, 1_000_000_000_000_000L));
        assertThat(single.policy()).isEqualTo(policy);
        assertThat(single.policy().isComposite()).isEqualTo(policy.isComposite());
        assertThat(single.cost()).isEqualTo(1_000_000_000_000_000L);
        assertThat(single.costs()).isNull();

        DecideProcessor batch = roundTrip(new DecideProcessor(policy, new long[] {1, 2, 3}));
        assertThat(batch.policy()).isEqualTo(policy);
        assertThat(batch.costs()).containsExactly(1, 2, 3);
    }

    @ParameterizedTest
    @MethodSource("states")
    void writeStateProcessorCarriesTheStateAndTheTtl(LimiterState state) {
        WriteStateProcessor back = roundTrip(new WriteStateProcessor(state, 3_601_000));
        assertThat(back.state()).isEqualTo(state);
        assertThat(back.ttlMillis()).isEqualTo(3_601_000);
    }

    @Test
    void decisionResultCarriesEveryField() {
        Decision[] decisions = {
            new Decision(true, 10, 9, 1_000_000_000L, Decision.NO_RETRY, null),
            new Decision(false, 1_000_000_000_000_000L, 0, Long.MAX_VALUE, 5_000_000_001L, "hourly"),
            new Decision(false, 3, 2, 7, Decision.NO_RETRY, "burst")};
        DecisionResult back = roundTrip(new DecisionResult(decisions));
        assertThat(back.decisions()).containsExactly(decisions);
        assertThat(back.decisions()[0].band()).isNull();
    }

    @Test
    void aBatchCarriesEachBandNameOnceAndKeepsEveryDecisionsOwn() {
        String[] bands = {"hourly", null, "burst", "hourly", "hourly", null, "burst"};
        Decision[] batch = new Decision[DecideProcessor.MAX_BATCH];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new Decision(i % 3 != 0, 100, 100 - i % 100, i, i % 3 == 0 ? i + 1 : Decision.NO_RETRY,
                    bands[i % bands.length]);
        }
        DecisionResult back = roundTrip(new DecisionResult(batch));
        assertThat(back.decisions()).containsExactly(batch);
        Decision[] alone = {new Decision(true, 1, 0, 1, Decision.NO_RETRY, "only")};
        int oneName = ss.toData(new DecisionResult(alone)).totalSize();
        Decision[] twice = {alone[0], alone[0]};
        // the second decision adds its fields and a 2-byte name index, not the name again
        assertThat(ss.toData(new DecisionResult(twice)).totalSize() - oneName).isEqualTo(1 + 4 * 8 + 2);
    }

    private <T> T roundTrip(T object) {
        Data data = ss.toData(object);
        assertThat(data.getType()).as("IdentifiedDataSerializable, never Java serialization")
                .isEqualTo(SerializationConstants.CONSTANT_TYPE_DATA_SERIALIZABLE);
        T back = ss.toObject(data);
        assertThat(back).isNotSameAs(object).isInstanceOf(object.getClass());
        return back;
    }

    @Test
    void everyStateClassHasAnExplicitSerializer() {
        List<Class<?>> serialized = StateSerializers.all().stream().<Class<?>>map(s -> s.getCompactClass()).toList();
        assertThat(serialized).containsExactlyInAnyOrder(LimiterState.class.getPermittedSubclasses());
    }
}
