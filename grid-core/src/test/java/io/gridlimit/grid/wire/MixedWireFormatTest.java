package io.gridlimit.grid.wire;

import static io.gridlimit.grid.GridTestSupport.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import io.gridlimit.algorithm.TokenBucketState;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.GridLimitDataSerializableFactory;
import io.gridlimit.grid.GridTestSupport;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.grid.owner.DecideProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade across one version on a real loopback cluster: a new member and a client beside a member
 * acting as the GridLimit before wire versioning (no {@code gridlimit.wire} attribute, a factory that knows only
 * class ids 1 to 4, and token-bucket states written without the {@code format} field). Every writer keeps to
 * format 1 while it is there and decisions stay exact on keys of both owners, across backups and its leaving;
 * once it has left, writers switch to format 2.
 */
class MixedWireFormatTest {
    private static final Policy POLICY = Policy.builder("mixed-tb").tokenBucket(5, 1, Duration.ofHours(1)).build();

    private final GridTestSupport.Cluster cluster = new GridTestSupport.Cluster(2, 1);
    private final List<HazelcastRateLimiter> limiters = new ArrayList<>();

    @AfterEach
    void stop() {
        limiters.forEach(HazelcastRateLimiter::close);
        cluster.close();
    }

    @Test
    void writersKeepTheOldFormatWhileAnOldMemberIsThereAndSwitchOnceItLeaves() {
        CountingFactory newIds = new CountingFactory(false);
        CountingFactory oldIds = new CountingFactory(true);
        cluster.beforeStart = c -> c.getSerializationConfig().getDataSerializableFactories()
                .put(GridLimitDataSerializableFactory.FACTORY_ID, newIds);
        HazelcastInstance upgraded = cluster.startMember(T0);
        cluster.beforeStart = MixedWireFormatTest::actAsTheVersionBefore;
        cluster.beforeStart = cluster.beforeStart.andThen(c -> c.getSerializationConfig()
                .getDataSerializableFactories().put(GridLimitDataSerializableFactory.FACTORY_ID, oldIds));
        HazelcastInstance old = cluster.startMember(T0);
        cluster.awaitSafe();
        HazelcastInstance client = cluster.startClient();
        await().atMost(Duration.ofSeconds(30)).until(() -> client.getCluster().getMembers().size() == 2);

        assertThat(old.getCluster().getLocalMember().getAttribute(WireFormat.MEMBER_ATTRIBUTE)).isNull();
        assertThat(upgraded.getCluster().getLocalMember().getAttribute(WireFormat.MEMBER_ATTRIBUTE)).isEqualTo("2");
        assertThat(WireFormat.writeFormat()).isEqualTo(WireFormat.UNVERSIONED);

        String onUpgraded = cluster.keysOwnedBy(upgraded, "k-up-", 1).get(0);
        String onOld = cluster.keysOwnedBy(old, "k-old-", 1).get(0);
        HazelcastRateLimiter fromUpgraded = limiter(upgraded);
        HazelcastRateLimiter fromOld = limiter(old);
        HazelcastRateLimiter fromClient = limiter(client);
        // capacity 5, no refill within the test: each key admits exactly 5, whoever asks
        for (String key : List.of(onUpgraded, onOld)) {
            assertThat(fromUpgraded.tryAcquire(POLICY, key, 1).remaining()).isEqualTo(4);
            assertThat(fromOld.tryAcquire(POLICY, key, 1).remaining()).isEqualTo(3);
            assertThat(fromClient.tryAcquire(POLICY, key, 2).remaining()).isEqualTo(1);
        }
        assertThat(newIds.versioned()).as("no versioned form reached the upgraded member").isZero();
        assertThat(oldIds.versioned()).as("no versioned form reached the old member").isZero();
        assertThat(oldIds.created.get(SerializationIds.DECIDE_PROCESSOR)).isPositive();
        assertThat(oldIds.created.get(SerializationIds.WRITE_STATE_PROCESSOR)).as("backups of the upgraded owner")
                .isPositive();
        assertThat(newIds.created.get(SerializationIds.WRITE_STATE_PROCESSOR)).as("backups of the old owner")
                .isPositive();

        old.shutdown(); // graceful: its partitions, with the states it wrote in format 1, move to the upgraded one
        cluster.awaitClusterSize(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> WireFormat.writeFormat() == WireFormat.CURRENT);
        assertThat(new DecideProcessor(POLICY, 1).format()).isEqualTo(WireFormat.CURRENT);

        for (String key : List.of(onUpgraded, onOld)) {
            Decision last = fromClient.tryAcquire(POLICY, key, 1);
            assertThat(last.allowed()).isTrue();
            assertThat(last.remaining()).isZero();
            Decision over = fromUpgraded.tryAcquire(POLICY, key, 1);
            assertThat(over.allowed()).isFalse();
            assertThat(over.remaining()).isZero();
        }
        assertThat(newIds.created.get(SerializationIds.DECIDE_PROCESSOR_VERSIONED))
                .as("the client switched to format 2").isPositive();
    }

    private HazelcastRateLimiter limiter(HazelcastInstance instance) {
        HazelcastRateLimiter limiter = HazelcastRateLimiter.create(instance);
        limiters.add(limiter);
        return limiter;
    }

    /** No attribute, no wire-format listener, and token-bucket states without the format field. */
    private static void actAsTheVersionBefore(Config c) {
        c.getMemberAttributeConfig().removeAttribute(WireFormat.MEMBER_ATTRIBUTE);
        c.getMemberAttributeConfig().removeAttribute(WireFormat.RESERVATIONS_ATTRIBUTE);
        c.getListenerConfigs().removeIf(l -> WireFormatListener.class.getName().equals(l.getClassName()));
        List<CompactSerializer<?>> serializers = new ArrayList<>(StateSerializers.all());
        serializers.removeIf(s -> s instanceof StateSerializers.TokenBucket);
        serializers.add(new TokenBucketBeforeVersioning());
        c.getSerializationConfig().getCompactSerializationConfig()
                .setSerializers(serializers.toArray(CompactSerializer[]::new));
    }

    /** The factory, counting the class ids it creates; an old one knows only ids 1 to 4. */
    static final class CountingFactory implements DataSerializableFactory {
        final AtomicIntegerArray created = new AtomicIntegerArray(16);
        private final boolean oldIdsOnly;
        private final GridLimitDataSerializableFactory delegate = new GridLimitDataSerializableFactory();

        CountingFactory(boolean oldIdsOnly) {
            this.oldIdsOnly = oldIdsOnly;
        }

        @Override
        public IdentifiedDataSerializable create(int typeId) {
            created.incrementAndGet(typeId);
            return oldIdsOnly && typeId > SerializationIds.CONSERVATIVE_MERGE_POLICY ? null : delegate.create(typeId);
        }

        int versioned() {
            return created.get(SerializationIds.DECIDE_PROCESSOR_VERSIONED)
                    + created.get(SerializationIds.WRITE_STATE_PROCESSOR_VERSIONED)
                    + created.get(SerializationIds.DECISION_RESULT_VERSIONED);
        }
    }

    /** The token-bucket serializer as it was before wire versioning: no format field. */
    static final class TokenBucketBeforeVersioning implements CompactSerializer<TokenBucketState> {
        @Override
        public TokenBucketState read(CompactReader r) {
            return new TokenBucketState(r.readInt64("lastNanos"), r.readInt64("tokens"),
                    r.readInt64("tokenFraction"), r.readInt64("refillPeriodNanos"));
        }

        @Override
        public void write(CompactWriter w, TokenBucketState s) {
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
}
