package io.gridlimit.grid.owner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridTestSupport;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The EntryProcessor on a plain entry, without a cluster: one time read, exact writes, TTLs and backups. */
class DecideProcessorTest {
    private static final long T0 = GridTestSupport.T0;

    static Iterable<Policy> policies() {
        return GridTestSupport.policies("p-", 3);
    }

    @ParameterizedTest
    @MethodSource("policies")
    void admitWritesTheAlgorithmsStateWithItsTtlAndReadsTimeOnce(Policy policy) {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("k", null);
        DecideProcessor processor = new DecideProcessor(policy, 2).withTimeSource(clock);

        DecisionResult result = processor.process(entry);

        Outcome expected = RateLimitAlgorithms.apply(null, policy, 2, T0);
        assertThat(clock.reads()).isEqualTo(1);
        assertThat(result.decisions()).containsExactly(expected.decision());
        assertThat(expected.write()).isTrue();
        assertThat(entry.writes).isEqualTo(1);
        assertThat(entry.getValue()).isEqualTo(expected.state());
        assertThat(entry.lastTtlUnit).isEqualTo(TimeUnit.MILLISECONDS);
        assertThat(entry.lastTtl).isEqualTo(DecideProcessor.storedTtlMillis(expected.ttlNanos()));
        WriteStateProcessor backup = processor.getBackupProcessor();
        assertThat(backup).isNotNull();
        assertThat(backup.state()).isEqualTo(expected.state());
        assertThat(backup.ttlMillis()).isEqualTo(entry.lastTtl);
    }

    @Test
    void aDeniedHitIsWrittenAndBackedUpAsThePrimaryComputedIt() {
        Policy policy = Policy.builder("rls").fixedWindow(3, java.time.Duration.ofSeconds(10)).build();
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("k", null);
        new DecideProcessor(policy, 3).hitting().withTimeSource(clock).process(entry);
        LimiterState full = entry.getValue();

        DecideProcessor over = new DecideProcessor(policy, 2).hitting().withTimeSource(clock);
        DecisionResult result = over.process(entry);

        Outcome expected = RateLimitAlgorithms.hit(full, policy, 2, T0);
        assertThat(result.first()).isEqualTo(expected.decision());
        assertThat(result.first().allowed()).isFalse();
        assertThat(entry.getValue()).isEqualTo(expected.state());
        assertThat(entry.lastTtl).isEqualTo(DecideProcessor.storedTtlMillis(expected.ttlNanos()));
        WriteStateProcessor backup = over.getBackupProcessor();
        assertThat(backup).isNotNull();
        assertThat(backup.state()).isEqualTo(expected.state());
        // a peek writes nothing and sends no backup
        DecideProcessor peek = new DecideProcessor(policy, 0).hitting().withTimeSource(clock);
        assertThat(peek.process(entry).first().allowed()).isFalse();
        assertThat(peek.getBackupProcessor()).isNull();
        assertThat(clock.reads()).isEqualTo(3);
    }

    @ParameterizedTest
    @MethodSource("policies")
    void plainDenialWritesNothingAndHasNoBackup(Policy policy) {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("k", null);
        new DecideProcessor(policy, 3).withTimeSource(clock).process(entry);
        LimiterState exhausted = entry.getValue();
        int writes = entry.writes;

        DecideProcessor denied = new DecideProcessor(policy, 1).withTimeSource(clock);
        DecisionResult result = denied.process(entry);

        assertThat(result.first().allowed()).isFalse();
        assertThat(result.first()).isEqualTo(RateLimitAlgorithms.apply(exhausted, policy, 1, T0).decision());
        assertThat(entry.writes).isEqualTo(writes);
        assertThat(entry.getValue()).isSameAs(exhausted);
        assertThat(denied.getBackupProcessor()).isNull();
        assertThat(clock.reads()).isEqualTo(2);
    }

    @ParameterizedTest
    @MethodSource("policies")
    void deniedRebaseAfterAClockStepBackIsWrittenWithItsTtl(Policy policy) {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("k", null);
        new DecideProcessor(policy, 3).withTimeSource(clock).process(entry);
        LimiterState exhausted = entry.getValue();
        clock.setNanos(T0 - 1_000_000L);

        DecideProcessor processor = new DecideProcessor(policy, 1).withTimeSource(clock);
        DecisionResult result = processor.process(entry);

        Outcome expected = RateLimitAlgorithms.apply(exhausted, policy, 1, T0 - 1_000_000L);
        assertThat(expected.decision().allowed()).isFalse();
        assertThat(expected.write()).as("SPEC §2: a rebase is always written").isTrue();
        assertThat(result.first()).isEqualTo(expected.decision());
        assertThat(entry.getValue()).isEqualTo(expected.state());
        assertThat(entry.lastTtl).isEqualTo(DecideProcessor.storedTtlMillis(expected.ttlNanos()));
        assertThat(processor.getBackupProcessor().state()).isEqualTo(expected.state());
        assertThat(processor.getBackupProcessor().ttlMillis()).isEqualTo(entry.lastTtl);
    }

    @ParameterizedTest
    @MethodSource("policies")
    void batchDecidesInSequenceAtOneReadingAndStoresTheLastWrittenState(Policy policy) {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("k", null);
        long[] costs = {1, 5, 2, 1};

        DecideProcessor processor = new DecideProcessor(policy, costs).withTimeSource(clock);
        DecisionResult result = processor.process(entry);

        Outcome[] expected = RateLimitAlgorithms.applyAll(null, policy, costs, T0);
        assertThat(clock.reads()).isEqualTo(1);
        assertThat(result.decisions()).extracting(Decision::allowed).containsExactly(true, false, true, false);
        for (int i = 0; i < costs.length; i++) {
            assertThat(result.decisions()[i]).isEqualTo(expected[i].decision());
        }
        assertThat(entry.writes).isEqualTo(1);
        assertThat(entry.getValue()).isEqualTo(expected[2].state());
        assertThat(entry.lastTtl).isEqualTo(DecideProcessor.storedTtlMillis(expected[2].ttlNanos()));
        assertThat(processor.getBackupProcessor().state()).isEqualTo(expected[2].state());
    }

    @Test
    void backupProcessorWritesExactlyThePrimarysStateAndTtlAndAnswersNothing() {
        Policy policy = Policy.builder("b").tokenBucket(10, 1, Duration.ofSeconds(1)).build();
        ManualTimeSource clock = new ManualTimeSource(T0);
        DecideProcessor primary = new DecideProcessor(policy, 4).withTimeSource(clock);
        primary.process(new RecordingEntry("k", null));
        WriteStateProcessor backup = primary.getBackupProcessor();
        RecordingEntry replica = new RecordingEntry("k", null);

        Object answer = backup.process(replica);

        assertThat(answer).isNull();
        assertThat(replica.getValue()).isEqualTo(backup.state());
        assertThat(replica.lastTtl).isEqualTo(backup.ttlMillis());
        assertThat(replica.lastTtlUnit).isEqualTo(TimeUnit.MILLISECONDS);
        assertThat(backup.getBackupProcessor()).isNull();
        assertThat(clock.reads()).as("only the primary reads time").isEqualTo(1);
        // bucket of 10 at 1 token/s, 4 taken: full again after 4 s; stored TTL adds Hazelcast's 1 s granularity
        assertThat(backup.ttlMillis()).isEqualTo(4_000 + DecideProcessor.EXPIRY_GRANULARITY_MILLIS);
    }

    @Test
    void ttlIsRoundedUpToWholeMillisecondsAndAtLeastOne() {
        assertThat(DecideProcessor.ttlMillis(0)).isEqualTo(1);
        assertThat(DecideProcessor.ttlMillis(1)).isEqualTo(1);
        assertThat(DecideProcessor.ttlMillis(999_999)).isEqualTo(1);
        assertThat(DecideProcessor.ttlMillis(1_000_000)).isEqualTo(1);
        assertThat(DecideProcessor.ttlMillis(1_000_001)).isEqualTo(2);
        assertThat(DecideProcessor.ttlMillis(2_500_000_000L)).isEqualTo(2_500);
        assertThat(DecideProcessor.ttlMillis(Long.MAX_VALUE)).isEqualTo(9_223_372_036_855L);
        assertThat(DecideProcessor.storedTtlMillis(0)).isEqualTo(1_001);
        assertThat(DecideProcessor.storedTtlMillis(1_000_001)).isEqualTo(1_002);
        assertThat(DecideProcessor.storedTtlMillis(Long.MAX_VALUE)).isEqualTo(9_223_372_036_855L + 1_000);
    }

    @Test
    void withoutAnInjectedMemberTheProcessorRefusesToGuessATime() {
        Policy policy = Policy.builder("b").fixedWindow(1, Duration.ofSeconds(1)).build();
        RecordingEntry entry = new RecordingEntry("k", null);
        assertThatThrownBy(() -> new DecideProcessor(policy, 1).process(entry))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("HazelcastInstance");
        assertThat(entry.writes).isZero();
    }

    @Test
    void anEntryThatCannotCarryATtlIsRefused() {
        Policy policy = Policy.builder("b").fixedWindow(1, Duration.ofSeconds(1)).build();
        AbstractMap.SimpleEntry<String, LimiterState> plain = new AbstractMap.SimpleEntry<>("k", null);
        assertThatThrownBy(() -> new DecideProcessor(policy, 1).withTimeSource(new ManualTimeSource(T0))
                .process(plain)).isInstanceOf(IllegalStateException.class).hasMessageContaining("ExtendedMapEntry");
        assertThat(plain.getValue()).isNull();
    }

    @Test
    void batchSizeIsBounded() {
        Policy policy = Policy.builder("b").fixedWindow(1, Duration.ofSeconds(1)).build();
        assertThatThrownBy(() -> new DecideProcessor(policy, new long[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 0");
        assertThatThrownBy(() -> new DecideProcessor(policy, new long[DecideProcessor.MAX_BATCH + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got 1025");
    }
}
