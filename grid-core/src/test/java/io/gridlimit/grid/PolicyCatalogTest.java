package io.gridlimit.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import com.hazelcast.map.IMap;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.CatalogSupport;
import io.gridlimit.grid.catalog.CatalogUpdateProcessor;
import io.gridlimit.grid.catalog.CatalogWriteProcessor;
import io.gridlimit.grid.owner.DecideProcessor;
import io.gridlimit.grid.owner.DecisionResult;
import io.gridlimit.grid.wire.WireFormat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.grid.owner.SeenPolicies;

/**
 * The grid's policy catalog on two embedded members, each a replica with its own catalog copy and limiter
 * (docs/SPEC.md §11): versions and compare-and-set, configuration's seed rule, propagation (Awaitility, never a
 * timed assertion), and requests alternating between the replicas while a policy changes, for every algorithm, with
 * exact decisions on a frozen clock: the owner decides with the newest version it knows whichever version the asker
 * sent, carries the key over (SPEC §4), never resets it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PolicyCatalogTest {
    private static final Duration PROPAGATION = Duration.ofSeconds(10);

    private GridTestSupport.Cluster cluster;
    private HazelcastInstance a;
    private HazelcastInstance b;
    private PolicyCatalog catalogA;
    private PolicyCatalog catalogB;
    private HazelcastRateLimiter limiterA;
    private HazelcastRateLimiter limiterB;

    @BeforeAll
    void start() {
        cluster = new GridTestSupport.Cluster(2, 1);
        a = cluster.startMember(GridTestSupport.T0);
        b = cluster.startMember(GridTestSupport.T0);
        catalogA = PolicyCatalog.start(a);
        catalogB = PolicyCatalog.start(b);
        limiterA = HazelcastRateLimiter.builder(a).coalesceHotKeys(false).build().useCatalog(catalogA);
        limiterB = HazelcastRateLimiter.builder(b).coalesceHotKeys(false).build().useCatalog(catalogB);
    }

    @AfterAll
    void stop() {
        limiterA.close();
        limiterB.close();
        catalogA.close();
        catalogB.close();
        cluster.close();
    }

    private static Policy policy(String name, Algorithm algorithm, long quota, Duration period) {
        Band band = switch (algorithm) {
            case TOKEN_BUCKET -> Band.tokenBucket(name, quota, quota, period);
            case GCRA -> Band.gcra(name, quota, quota, period);
            case FIXED_WINDOW -> Band.fixedWindow(name, quota, period);
            case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(name, quota, period);
            case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(name, quota, period);
            case CALENDAR -> Band.calendar(name, quota, io.gridlimit.calendar.CalendarPeriods.hourly(
                    java.time.ZoneId.of("Europe/Berlin")));
        };
        return Policy.builder(name).single(band).build();
    }

    /** Waits until both copies and both members' seen policies know {@code version} of the policy. */
    private void awaitEverywhere(Policy policy, long version) {
        await().atMost(PROPAGATION).until(() -> catalogA.versionOf(policy) == version
                && catalogB.versionOf(policy) == version
                && SeenPolicies.of(a).newest(policy.name()).version() == version
                && SeenPolicies.of(b).newest(policy.name()).version() == version);
    }

    /** What a replica whose copy still holds {@code version} sends: that version's policy and number. */
    private static Decision askAs(HazelcastInstance replica, Policy policy, long version, String key) {
        IMap<String, LimiterState> map = replica.getMap(GridLimitHazelcast.mapName(policy.name()));
        DecisionResult r = map.executeOnKey(key, new DecideProcessor(policy, 1).withPolicyVersion(version));
        return r.first();
    }

    @Test
    void versionsCompareAndSetAndTheSeedRule() {
        Policy v1 = policy("cas", Algorithm.FIXED_WINDOW, 10, Duration.ofHours(1));
        Policy seeded2 = policy("cas", Algorithm.FIXED_WINDOW, 20, Duration.ofHours(1));
        Policy api3 = policy("cas", Algorithm.TOKEN_BUCKET, 5, Duration.ofMinutes(1));

        PolicyCatalog.Change created = catalogA.seed(v1, 0, "replica-a");
        assertThat(created.status()).isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(created.before()).isNull();
        assertThat(created.after().version()).isEqualTo(1);
        assertThat(created.after().origin()).isEqualTo(PolicyRecord.Origin.CONFIGURATION);
        await().atMost(PROPAGATION).until(() -> catalogB.versionOf(v1) == 1);

        assertThat(catalogB.seed(v1, 0, "replica-b").status()).isEqualTo(PolicyCatalog.Status.UNCHANGED);
        PolicyCatalog.Change reseeded = catalogB.seed(seeded2, 1, "replica-b");
        assertThat(reseeded.status()).as("a higher generation changes what configuration seeded")
                .isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(reseeded.after().version()).isEqualTo(2);

        PolicyCatalog.Change stale = catalogA.put(api3, 1, "alice");
        assertThat(stale.status()).isEqualTo(PolicyCatalog.Status.CONFLICT);
        assertThat(stale.after().version()).isEqualTo(2);
        assertThat(catalogA.put(api3, PolicyCatalog.NO_VERSION, "alice").status())
                .as("create-only on a live policy").isEqualTo(PolicyCatalog.Status.CONFLICT);
        PolicyCatalog.Change changed = catalogA.put(api3, 2, "alice");
        assertThat(changed.status()).isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(changed.after().version()).isEqualTo(3);
        assertThat(changed.after().origin()).isEqualTo(PolicyRecord.Origin.API);
        assertThat(changed.after().changedBy()).isEqualTo("alice");
        assertThat(changed.after().earlier()).extracting(SeenPolicies.Versioned::version).containsExactly(2L, 1L);
        assertThat(catalogA.put(api3, PolicyCatalog.ANY_VERSION, "bob").status())
                .as("the same policy again").isEqualTo(PolicyCatalog.Status.UNCHANGED);

        PolicyCatalog.Change kept = catalogB.seed(v1, 9, "replica-b");
        assertThat(kept.status()).as("the API owns it now, whatever the generation")
                .isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(kept.after().policy()).isEqualTo(api3);

        assertThat(catalogB.delete("cas", 2, "bob").status()).isEqualTo(PolicyCatalog.Status.CONFLICT);
        PolicyCatalog.Change deleted = catalogB.delete("cas", 3, "bob");
        assertThat(deleted.status()).isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(deleted.after().version()).isEqualTo(4);
        assertThat(deleted.after().live()).isFalse();
        await().atMost(PROPAGATION).until(() -> catalogA.record("cas").isEmpty());
        assertThat(catalogA.anyRecord("cas")).hasValueSatisfying(r -> assertThat(r.version()).isEqualTo(4));
        assertThat(catalogA.delete("cas", PolicyCatalog.ANY_VERSION, null).status())
                .isEqualTo(PolicyCatalog.Status.NOT_FOUND);
        PolicyCatalog.Change again = catalogA.put(v1, PolicyCatalog.NO_VERSION, "alice");
        assertThat(again.after().version()).as("a policy created again continues the versions").isEqualTo(5);
    }

    /** Fixed windows of {@code limit} per hour under one name. */
    private static Policy hourly(String name, long limit) {
        return policy(name, Algorithm.FIXED_WINDOW, limit, Duration.ofHours(1));
    }

    @Test
    void aSeedIsDecidedByGenerationSoAnOlderReplicaNeverRollsTheClusterBack() {
        Policy five = hourly("gen", 5);
        Policy ten = hourly("gen", 10);

        PolicyCatalog.Change created = catalogA.seed(five, 1, "replica-a");
        assertThat(created.status()).as("missing: created").isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(created.after()).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::origin,
                PolicyRecord::policy).containsExactly(1L, 1L, PolicyRecord.Origin.CONFIGURATION, five);

        PolicyCatalog.Change same = catalogB.seed(five, 1, "replica-b");
        assertThat(same.status()).as("same generation, same parameters").isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(same.after().version()).isEqualTo(1);

        PolicyCatalog.Change rival = catalogB.seed(ten, 1, "replica-b");
        assertThat(rival.status()).as("same generation, other parameters: the first stands")
                .isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(rival.after()).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(1L, 1L, five);

        PolicyCatalog.Change rolled = catalogB.seed(ten, 2, "replica-c");
        assertThat(rolled.status()).as("a higher generation changes it").isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(rolled.before().version()).isEqualTo(1);
        assertThat(rolled.after()).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy,
                PolicyRecord::changedBy).containsExactly(2L, 2L, ten, "replica-c");
        await().atMost(PROPAGATION).until(() -> catalogA.versionOf(ten) == 2);

        PolicyCatalog.Change old = catalogA.seed(five, 1, "replica-a-restarted");
        assertThat(old.status()).as("an older generation never rolls it back")
                .isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(old.after()).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(2L, 2L, ten);
        assertThat(catalogA.seed(ten, 1, "replica-a-restarted").status())
                .as("an older generation with the same parameters").isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(catalogA.seed(five, 0, "replica-a-restarted").after().policy()).isEqualTo(ten);

        PolicyCatalog.Change raised = catalogA.seed(ten, 3, "replica-d");
        assertThat(raised.status()).as("a higher generation with the same parameters records the generation")
                .isEqualTo(PolicyCatalog.Status.APPLIED);
        assertThat(raised.after()).extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(3L, 3L, ten);
        assertThat(raised.after().earlier()).extracting(SeenPolicies.Versioned::version).containsExactly(2L, 1L);

        PolicyCatalog.Change rollback = catalogB.seed(five, 4, "replica-e");
        assertThat(rollback.after()).as("a rollback: the old parameters under a yet higher generation")
                .extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                .containsExactly(4L, 4L, five);
        await().atMost(PROPAGATION).until(() -> catalogA.versionOf(five) == 4 && catalogB.versionOf(five) == 4);
        assertThat(catalogA.record("gen").orElseThrow().generation()).isEqualTo(4);
    }

    @Test
    void aSeedNeverChangesWhatTheAdminApiChangedOrDeletedWhateverItsGeneration() {
        Policy five = hourly("gen-api", 5);
        Policy ten = hourly("gen-api", 10);
        catalogA.seed(five, 1, "replica-a");
        PolicyCatalog.Change put = catalogA.put(hourly("gen-api", 7), 1, "alice");
        assertThat(put.after()).extracting(PolicyRecord::origin, PolicyRecord::generation)
                .containsExactly(PolicyRecord.Origin.API, 0L);

        PolicyCatalog.Change seeded = catalogB.seed(ten, 100, "replica-b");
        assertThat(seeded.status()).isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(seeded.after()).extracting(PolicyRecord::version, PolicyRecord::policy)
                .containsExactly(2L, hourly("gen-api", 7));

        assertThat(catalogA.delete("gen-api", 2, "alice").status()).isEqualTo(PolicyCatalog.Status.APPLIED);
        PolicyCatalog.Change afterDelete = catalogB.seed(ten, 101, "replica-b");
        assertThat(afterDelete.status()).as("a deletion through the API stands")
                .isEqualTo(PolicyCatalog.Status.UNCHANGED);
        assertThat(afterDelete.after()).extracting(PolicyRecord::version, PolicyRecord::live)
                .containsExactly(3L, false);
    }

    @Test
    void aSeedWithoutAGenerationKeepsTheRuleOfAGridLimitBeforeGenerations() {
        Policy five = hourly("gen-legacy", 5);
        Policy ten = hourly("gen-legacy", 10);
        IMap<String, PolicyRecord> records = a.getMap(PolicyCatalog.POLICIES_MAP);
        // what a replica of a GridLimit before generations sends (class id 33): last seed wins among generation 0
        CatalogUpdateProcessor.Result created = records.executeOnKey("gen-legacy", legacySeed(five));
        assertThat(created.after()).extracting(PolicyRecord::version, PolicyRecord::generation)
                .containsExactly(1L, 0L);
        CatalogUpdateProcessor.Result changed = records.executeOnKey("gen-legacy", legacySeed(ten));
        assertThat(changed.status()).isEqualTo(CatalogUpdateProcessor.Status.APPLIED);
        assertThat(changed.after()).extracting(PolicyRecord::version, PolicyRecord::policy).containsExactly(2L, ten);
        assertThat(records.executeOnKey("gen-legacy", legacySeed(ten)).status())
                .isEqualTo(CatalogUpdateProcessor.Status.UNCHANGED);

        // a seed of generation 0 with a generation (class id 37) does not replace a record of generation 0
        assertThat(catalogB.seed(five, 0, "replica-b").after().policy()).isEqualTo(ten);
        assertThat(catalogB.seed(five, 1, "replica-b").after()).extracting(PolicyRecord::version,
                PolicyRecord::generation).containsExactly(3L, 1L);
        CatalogUpdateProcessor.Result old = records.executeOnKey("gen-legacy", legacySeed(ten));
        assertThat(old.status()).as("never over a record of a higher generation")
                .isEqualTo(CatalogUpdateProcessor.Status.UNCHANGED);
        assertThat(old.after().policy()).isEqualTo(five);
    }

    private static CatalogUpdateProcessor legacySeed(Policy p) {
        return new CatalogUpdateProcessor(p.name(), CatalogUpdateProcessor.Op.SEED, CatalogUpdateProcessor.ANY,
                "replica-old", p);
    }

    @Test
    void whileAMemberDoesNotReadGenerationsSeedsCarryNoneAndFollowTheRuleBeforeThem() {
        Policy five = hourly("upgrade", 5);
        Policy ten = hourly("upgrade", 10);
        Policy twenty = hourly("upgrade", 20);
        try (GridTestSupport.Cluster mixed = new GridTestSupport.Cluster(2, 1)) {
            HazelcastInstance upgraded = mixed.startMember(GridTestSupport.T0);
            mixed.beforeStart = c -> c.getMemberAttributeConfig().removeAttribute(
                    CatalogSupport.GENERATIONS_ATTRIBUTE);
            HazelcastInstance old = mixed.startMember(GridTestSupport.T0);
            try (PolicyCatalog catalog = PolicyCatalog.start(upgraded)) {
                await().atMost(PROPAGATION).until(() -> upgraded.getCluster().getMembers().size() == 2);
                assertThat(catalog.readsGenerations()).isFalse();
                assertThat(catalog.seed(five, 3, "new-1").after()).as("created without its generation")
                        .extracting(PolicyRecord::version, PolicyRecord::generation).containsExactly(1L, 0L);
                assertThat(catalog.seed(ten, 3, "new-2").after()).as("the last seed wins, as before generations")
                        .extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                        .containsExactly(2L, 0L, ten);

                old.getLifecycleService().terminate();
                await().atMost(PROPAGATION).until(catalog::readsGenerations);
                assertThat(catalog.seed(twenty, 3, "new-3").after()).as("generation 3 over the record's 0")
                        .extracting(PolicyRecord::version, PolicyRecord::generation, PolicyRecord::policy)
                        .containsExactly(3L, 3L, twenty);
                assertThat(catalog.seed(ten, 3, "new-2").status()).as("now the first of generation 3 stands")
                        .isEqualTo(PolicyCatalog.Status.UNCHANGED);
            }
        }
    }

    @Test
    void concurrentSeedsOfOneGenerationLeaveExactlyOneWinner() throws Exception {
        int replicas = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(replicas);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<PolicyCatalog.Change>> changes = new java.util.ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                PolicyCatalog catalog = i % 2 == 0 ? catalogA : catalogB;
                Policy own = hourly("gen-race", 10 + i);
                changes.add(pool.submit(() -> {
                    go.await();
                    return catalog.seed(own, 5, "replica-" + own.bands().get(0).limit());
                }));
            }
            go.countDown();
            List<PolicyCatalog.Change> done = new java.util.ArrayList<>();
            for (java.util.concurrent.Future<PolicyCatalog.Change> f : changes) {
                done.add(f.get());
            }
            assertThat(done).filteredOn(c -> c.status() == PolicyCatalog.Status.APPLIED).hasSize(1);
            PolicyRecord winner = done.stream().filter(c -> c.status() == PolicyCatalog.Status.APPLIED)
                    .findFirst().orElseThrow().after();
            assertThat(winner.version()).isEqualTo(1);
            assertThat(done).allSatisfy(c -> assertThat(c.after()).isEqualTo(winner));
            await().atMost(PROPAGATION).until(() -> catalogA.versionOf(winner.policy()) == 1
                    && catalogB.versionOf(winner.policy()) == 1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aNegativeGenerationIsRefused() {
        assertThatThrownBy(() -> catalogA.seed(hourly("gen-neg", 5), -1, "replica-a"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("generation must be >= 0, got -1");
        assertThat(catalogA.anyRecord("gen-neg")).isEmpty();
    }

    /** Quota 10 per 20 s, then 5 per 10 s; the composite's binding band "burst" changes so, "daily" only grows. */
    private static Policy alternating(String kind, boolean first) {
        String name = "alt-" + kind;
        if (kind.equals("composite")) {
            return Policy.builder(name)
                    .band(first ? Band.tokenBucket("burst", 10, 10, Duration.ofSeconds(20))
                            : Band.fixedWindow("burst", 5, Duration.ofSeconds(10)))
                    .band(Band.fixedWindow("daily", first ? 100 : 200, Duration.ofDays(1)))
                    .build();
        }
        Algorithm a = Algorithm.fromConfigName(kind);
        return first ? policy(name, a, 10, Duration.ofSeconds(20)) : policy(name, a, 5, Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"token-bucket", "gcra", "fixed-window", "sliding-window-log", "sliding-window-counter",
        "composite"})
    void replicasAlternatingDuringAChangeNeverResetAKey(String kind) {
        String key = "k";
        cluster.setNanos(GridTestSupport.T0);
        Policy v1 = alternating(kind, true);
        Policy v2 = alternating(kind, false);
        // a bucket (the composite's burst band is one under version 1) refills in the last step below
        boolean bucketFirst = kind.equals("composite") || Algorithm.fromConfigName(kind).isBucket();
        assertThat(catalogA.put(v1, PolicyCatalog.NO_VERSION, "alice").after().version()).isEqualTo(1);
        awaitEverywhere(v1, 1);
        assertThat(limiterA.tryAcquire(v1, key, 1)).extracting(Decision::remaining, Decision::policyVersion)
                .containsExactly(9L, 1L);
        assertThat(limiterB.tryAcquire(v1, key, 1).remaining()).isEqualTo(8);
        assertThat(limiterA.tryAcquire(v1, key, 1).remaining()).isEqualTo(7);

        assertThat(catalogA.put(v2, 1, "alice").after().version()).isEqualTo(2);
        awaitEverywhere(v2, 2);
        // B's copy still holding version 1 (what a lagging replica sends) is decided with version 2: 7 of 10 left
        // carry over to floor(7·5/10) = 3 of 5; then A and B alternate down to 0, every decision by version 2
        Decision first = askAs(b, v1, 1, key);
        assertThat(first).extracting(Decision::allowed, Decision::limit, Decision::remaining, Decision::policyVersion)
                .containsExactly(true, 5L, 2L, 2L);
        assertThat(limiterA.tryAcquire(v2, key, 1)).extracting(Decision::remaining, Decision::policyVersion)
                .containsExactly(1L, 2L);
        assertThat(askAs(b, v1, 1, key)).extracting(Decision::remaining, Decision::policyVersion)
                .containsExactly(0L, 2L);
        assertThat(limiterA.tryAcquire(v2, key, 1)).extracting(Decision::allowed, Decision::remaining)
                .containsExactly(false, 0L);
        assertThat(askAs(b, v1, 1, key)).extracting(Decision::allowed, Decision::limit)
                .as("version 1's limit of 10 never comes back").containsExactly(false, 5L);

        // a rollback is a new, higher version: nothing left of 5 is nothing left of 10
        assertThat(catalogB.put(v1, 2, "bob").after().version()).isEqualTo(3);
        awaitEverywhere(v1, 3);
        assertThat(askAs(a, v2, 2, key)).extracting(Decision::allowed, Decision::limit, Decision::remaining,
                Decision::policyVersion).containsExactly(false, 10L, 0L, 3L);
        assertThat(limiterB.tryAcquire(v1, key, 1)).extracting(Decision::allowed, Decision::policyVersion)
                .containsExactly(false, 3L);
        // 2 s later a bucket has refilled one token (10 per 20 s); the windows still count 10 of 10
        cluster.advance(Duration.ofSeconds(2));
        assertThat(limiterA.tryAcquire(v1, key, 1).allowed()).isEqualTo(bucketFirst);
    }

    @Test
    void aReservationOfTheCatalogsPolicyStatesItsVersionOnEveryPath() throws Exception {
        cluster.setNanos(GridTestSupport.T0);
        Policy v1 = policy("reserved", Algorithm.FIXED_WINDOW, 10, Duration.ofHours(1));
        assertThat(catalogA.put(v1, PolicyCatalog.NO_VERSION, "alice").after().version()).isEqualTo(1);
        awaitEverywhere(v1, 1);
        // blocking, asynchronous, and with an executor: each sent with the version the owner then applies
        assertThat(limiterA.reserve(v1, "k", 1)).extracting(Decision::remaining, Decision::policyVersion)
                .containsExactly(9L, 1L);
        assertThat(limiterA.reserveAsync(v1, "k", 1).toCompletableFuture().get())
                .extracting(Decision::remaining, Decision::policyVersion).containsExactly(8L, 1L);
        assertThat(limiterB.reserveAsync(v1, "k", 1, Runnable::run).toCompletableFuture().get())
                .extracting(Decision::remaining, Decision::policyVersion).containsExactly(7L, 1L);
    }

    @Test
    void aPolicyThatIsNotTheCatalogsIsDecidedAsGivenWithoutAVersion() {
        Policy own = policy("not-in-catalog", Algorithm.FIXED_WINDOW, 3, Duration.ofHours(1));
        Decision d = limiterA.tryAcquire(own, "k", 1);
        assertThat(d.remaining()).isEqualTo(2);
        assertThat(d.policyVersion()).isZero();
    }

    @Test
    void overridesReachEveryCopyAndCompareTheirTarget() {
        assertThat(catalogA.putOverride("plan-free", "user:ann", "plan-gold", "")).isEqualTo(
                PolicyCatalog.OverrideStatus.APPLIED);
        await().atMost(PROPAGATION).until(() -> "plan-gold".equals(catalogB.overrideFor("plan-free", "user:ann")));
        assertThat(catalogB.putOverride("plan-free", "user:ann", "plan-silver", ""))
                .isEqualTo(PolicyCatalog.OverrideStatus.CONFLICT);
        assertThat(catalogB.putOverride("plan-free", "user:ann", "plan-silver", "plan-bronze"))
                .isEqualTo(PolicyCatalog.OverrideStatus.CONFLICT);
        assertThat(catalogB.putOverride("plan-free", "user:ann", "plan-silver", "plan-gold"))
                .isEqualTo(PolicyCatalog.OverrideStatus.APPLIED);
        await().atMost(PROPAGATION).until(() -> "plan-silver".equals(catalogA.overrideFor("plan-free", "user:ann")));
        assertThat(catalogA.overridesOf("plan-free")).isEqualTo(Map.of("user:ann", "plan-silver"));
        assertThat(catalogA.overridesTargeting("plan-silver")).containsExactly("plan-free|user:ann");
        assertThat(catalogA.removeOverride("plan-free", "user:ann", "plan-gold"))
                .isEqualTo(PolicyCatalog.OverrideStatus.CONFLICT);
        assertThat(catalogA.removeOverride("plan-free", "user:ann", null)).isEqualTo(
                PolicyCatalog.OverrideStatus.APPLIED);
        await().atMost(PROPAGATION).until(() -> catalogB.overrideFor("plan-free", "user:ann") == null);
        assertThat(catalogB.removeOverride("plan-free", "user:ann", null))
                .isEqualTo(PolicyCatalog.OverrideStatus.NOT_FOUND);
    }

    @Test
    void referencesOfLiveReplicasAreListed() {
        catalogA.registerReferences(Map.of("ref-policy", List.of("gridlimit.routes[0]", "gridlimit.routes[2]")));
        catalogB.registerReferences(Map.of("other", List.of("gridlimit.routes[1]")));
        assertThat(catalogB.referencesTo("ref-policy")).containsExactly(
                "gridlimit.routes[0] on replica " + catalogA.replicaId(),
                "gridlimit.routes[2] on replica " + catalogA.replicaId());
        assertThat(catalogA.referencesTo("nobody")).isEmpty();
    }

    @Test
    void catalogTypesRoundTripThroughAMembersSerialization() {
        InternalSerializationService ss =
                (InternalSerializationService) ((SerializationServiceSupport) a).getSerializationService();
        Policy p = policy("rt", Algorithm.GCRA, 7, Duration.ofSeconds(3));
        Policy earlier = policy("rt", Algorithm.FIXED_WINDOW, 9, Duration.ofMinutes(3));
        PolicyRecord record = new PolicyRecord("rt", 4, PolicyRecord.Origin.API, 0, "alice", 1_767_225_601_000L, p,
                List.of(new SeenPolicies.Versioned(3, earlier)));
        PolicyRecord read = ss.toObject(ss.toData(record));
        assertThat(read).isEqualTo(record);
        assertThat(read.getClassId()).isEqualTo(32);
        PolicyRecord tombstone = record.next(null, PolicyRecord.Origin.API, 0, null, 5);
        assertThat((PolicyRecord) ss.toObject(ss.toData(tombstone))).isEqualTo(tombstone);

        DecideProcessor processor = new DecideProcessor(p, 3).withPolicyVersion(4);
        assertThat(processor.getClassId()).isEqualTo(30);
        DecideProcessor readProcessor = ss.toObject(ss.toData(processor));
        assertThat(readProcessor.policy()).isEqualTo(p);
        assertThat(readProcessor.cost()).isEqualTo(3);
        assertThat(readProcessor.policyVersion()).isEqualTo(4);

        Decision d = new Decision(true, 7, 6, 1, Decision.NO_RETRY, null).withPolicyVersion(4);
        DecisionResult result = DecisionResult.catalog(new Decision[] {d}, WireFormat.CURRENT);
        assertThat(result.getClassId()).isEqualTo(31);
        DecisionResult readResult = ss.toObject(ss.toData(result));
        assertThat(readResult.first()).isEqualTo(d);
        assertThat(readResult.first().policyVersion()).isEqualTo(4);

        CatalogUpdateProcessor update = new CatalogUpdateProcessor("rt", CatalogUpdateProcessor.Op.PUT, 4, "alice", p);
        assertThat(update.getClassId()).isEqualTo(33);
        CatalogUpdateProcessor readUpdate = ss.toObject(ss.toData(update));
        assertThat(readUpdate.name()).isEqualTo("rt");
        CatalogUpdateProcessor seed = new CatalogUpdateProcessor("rt", CatalogUpdateProcessor.Op.SEED,
                CatalogUpdateProcessor.ANY, "replica", p).withGeneration(12);
        assertThat(seed.getClassId()).isEqualTo(37);
        CatalogUpdateProcessor readSeed = ss.toObject(ss.toData(seed));
        assertThat(readSeed).extracting(CatalogUpdateProcessor::op, CatalogUpdateProcessor::generation,
                CatalogUpdateProcessor::getClassId).containsExactly(CatalogUpdateProcessor.Op.SEED, 12L, 37);
        assertThatThrownBy(() -> update.withGeneration(1)).isInstanceOf(IllegalArgumentException.class);
        PolicyRecord seeded = new PolicyRecord("rt", 5, PolicyRecord.Origin.CONFIGURATION, 12, "replica", 9, p,
                List.of());
        assertThat(seeded.getClassId()).isEqualTo(36);
        PolicyRecord readSeeded = ss.toObject(ss.toData(seeded));
        assertThat(readSeeded).isEqualTo(seeded);
        assertThat(readSeeded.generation()).isEqualTo(12);
        assertThatThrownBy(() -> new PolicyRecord("rt", 5, PolicyRecord.Origin.API, 1, null, 9, p, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        CatalogWriteProcessor write = ss.toObject(ss.toData(new CatalogWriteProcessor(record)));
        assertThat(write.record()).isEqualTo(record);
        assertThat(write.getClassId()).isEqualTo(34);
        CatalogUpdateProcessor.Result r = ss.toObject(ss.toData(
                new CatalogUpdateProcessor.Result(CatalogUpdateProcessor.Status.CONFLICT, record, tombstone)));
        assertThat(r.status()).isEqualTo(CatalogUpdateProcessor.Status.CONFLICT);
        assertThat(r.before()).isEqualTo(record);
        assertThat(r.after()).isEqualTo(tombstone);
        assertThat(r.getClassId()).isEqualTo(35);
        assertThatThrownBy(() -> new CatalogUpdateProcessor("x", CatalogUpdateProcessor.Op.PUT, 1, null, p))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'rt' stored under 'x'");
    }
}
