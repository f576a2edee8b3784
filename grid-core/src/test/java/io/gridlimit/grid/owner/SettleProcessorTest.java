package io.gridlimit.grid.owner;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.gridlimit.algorithm.ReservedState;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.Reservation;
import io.gridlimit.api.Settlement;
import io.gridlimit.grid.wire.SerializationIds;
import io.gridlimit.time.ManualTimeSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The reserving {@link DecideProcessor} and the {@link SettleProcessor} on a plain entry, without a cluster. */
class SettleProcessorTest {
    private static final long S = 1_000_000_000L;
    private final Policy policy = Policy.builder("api").tokenBucket(10, 1, Duration.ofSeconds(1)).build();

    @Test
    void reserveThenSettleWritesOnceEachWithItsTtlAndBackup() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RecordingEntry entry = new RecordingEntry("user:1", null);
        DecideProcessor reserve = new DecideProcessor(policy, 4).reserving().withTimeSource(clock);
        DecisionResult result = reserve.process(entry);
        Decision d = result.first();
        Reservation r = d.reservation();
        assertThat(r).isNotNull();
        assertThat(r.key()).isEqualTo("user:1");
        assertThat(r.policy()).isEqualTo("api");
        assertThat(r.expiresAtNanos()).isEqualTo(T0 + 10 * S);
        assertThat(result.getClassId()).isEqualTo(SerializationIds.RESERVE_RESULT);
        // the bucket is full again in 4 s, the reservation holds 10 s: TTL 10 s + the 1 s expiry margin
        assertThat(entry.lastTtl).isEqualTo(11_000);
        assertThat(entry.lastTtlUnit).isEqualTo(TimeUnit.MILLISECONDS);
        assertThat(reserve.getBackupProcessor().state()).isEqualTo(entry.getValue());

        clock.advance(Duration.ofSeconds(1));
        SettleProcessor settle = new SettleProcessor(policy, r, 1).withTimeSource(clock);
        SettleResult settled = settle.process(entry);
        assertThat(settled.settlement()).isEqualTo(new Settlement(Settlement.Status.SETTLED, 1, 0));
        assertThat(clock.reads()).isEqualTo(2);
        ReservedState state = (ReservedState) entry.getValue();
        // 6 tokens + 1 refilled + 3 back = 10: full
        assertThat(state.inner()).isEqualTo(new TokenBucketState(T0 + S, 10, 0, S));
        assertThat(state.settledIds()).containsExactly(r.id());
        // held until the reservation expires: 9 s from now, + 1 s margin
        assertThat(entry.lastTtl).isEqualTo(10_000);
        WriteStateProcessor backup = (WriteStateProcessor) (Object) settle.getBackupProcessor();
        assertThat(backup.state()).isEqualTo(state);
        assertThat(backup.ttlMillis()).isEqualTo(10_000);

        int writes = entry.writes;
        SettleProcessor retry = new SettleProcessor(policy, r, 0).withTimeSource(clock);
        assertThat(retry.process(entry).settlement())
                .isEqualTo(new Settlement(Settlement.Status.ALREADY_SETTLED, 1, 0));
        assertThat(entry.writes).as("a retry writes nothing").isEqualTo(writes);
        assertThat(retry.getBackupProcessor()).as("and sends no backup").isNull();
    }
}
