package io.gridlimit.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cluster.Cluster;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The three time sources: exact epoch-nanosecond readings, saturation at the bounds of a long. */
class TimeSourcesTest {

    @Test
    void systemTimeSourceReadsTheClocksInstantInEpochNanos() {
        Clock fixed = Clock.fixed(Instant.parse("2026-01-01T00:00:00.123456789Z"), ZoneId.of("Europe/Lisbon"));
        assertThat(SystemTimeSource.of(fixed).nowNanos()).isEqualTo(1_767_225_600_123_456_789L);
        assertThat(SystemTimeSource.of(Clock.fixed(Instant.ofEpochSecond(-1, 5), ZoneId.of("UTC"))).nowNanos())
                .isEqualTo(-999_999_995L);
    }

    @Test
    void systemTimeSourceSaturatesOutsideTheLongRange() {
        assertThat(SystemTimeSource.toEpochNanos(Instant.ofEpochSecond(9_223_372_036L, 854_775_807)))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(SystemTimeSource.toEpochNanos(Instant.ofEpochSecond(9_223_372_036L, 854_775_808)))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(SystemTimeSource.toEpochNanos(Instant.ofEpochSecond(9_223_372_037L, 0))).isEqualTo(Long.MAX_VALUE);
        assertThat(SystemTimeSource.toEpochNanos(Instant.MAX)).isEqualTo(Long.MAX_VALUE);
        assertThat(SystemTimeSource.toEpochNanos(Instant.ofEpochSecond(-9_223_372_036L, 0)))
                .isEqualTo(-9_223_372_036_000_000_000L);
        assertThat(SystemTimeSource.toEpochNanos(Instant.ofEpochSecond(-9_223_372_037L, 0)))
                .isEqualTo(Long.MIN_VALUE);
        assertThat(SystemTimeSource.toEpochNanos(Instant.MIN)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void systemUtcReadsTheWallClock() {
        long beforeMillis = System.currentTimeMillis();
        long nanos = SystemTimeSource.systemUtc().nowNanos();
        long afterMillis = System.currentTimeMillis();
        assertThat(nanos).isBetween(beforeMillis * 1_000_000L, (afterMillis + 1) * 1_000_000L);
        assertThatThrownBy(() -> SystemTimeSource.of(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void clusterTimeSourceScalesClusterMillisToNanosSaturating() {
        AtomicLong clusterMillis = new AtomicLong(1_767_225_600_123L);
        Cluster cluster = (Cluster) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Cluster.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getClusterTime")) {
                        return clusterMillis.get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ClusterTimeSource source = new ClusterTimeSource(cluster);
        assertThat(source.nowNanos()).isEqualTo(1_767_225_600_123_000_000L);
        clusterMillis.set(9_223_372_036_854L);
        assertThat(source.nowNanos()).isEqualTo(9_223_372_036_854_000_000L);
        clusterMillis.set(9_223_372_036_855L);
        assertThat(source.nowNanos()).isEqualTo(Long.MAX_VALUE);
        clusterMillis.set(-9_223_372_036_854L);
        assertThat(source.nowNanos()).isEqualTo(-9_223_372_036_854_000_000L);
        clusterMillis.set(-9_223_372_036_855L);
        assertThat(source.nowNanos()).isEqualTo(Long.MIN_VALUE);
        assertThatThrownBy(() -> new ClusterTimeSource(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void manualTimeSourceMovesOnlyWhenToldAndCountsReads() {
        ManualTimeSource clock = ManualTimeSource.startingAt(Instant.parse("2026-01-01T00:00:00Z"));
        long start = 1_767_225_600_000_000_000L;
        assertThat(clock.nowNanos()).isEqualTo(start);
        assertThat(clock.nowNanos()).isEqualTo(start);
        assertThat(clock.advance(Duration.ofMillis(1500))).isEqualTo(start + 1_500_000_000L);
        assertThat(clock.advanceNanos(-2_000_000_000L)).isEqualTo(start - 500_000_000L);
        clock.setNanos(7);
        assertThat(clock.peekNanos()).isEqualTo(7);
        assertThat(clock.reads()).as("peek is not a read").isEqualTo(2);
        assertThat(clock.resetReads()).isEqualTo(2);
        assertThat(clock.reads()).isZero();
        clock.setNanos(Long.MAX_VALUE - 1);
        assertThat(clock.advanceNanos(5)).isEqualTo(Long.MAX_VALUE);
        clock.setNanos(Long.MIN_VALUE + 1);
        assertThat(clock.advanceNanos(-5)).isEqualTo(Long.MIN_VALUE);
        assertThat(clock.advance(Duration.ofDays(365))).isEqualTo(Long.MIN_VALUE + 31_536_000_000_000_000L);
        clock.setNanos(0);
        assertThat(clock.advance(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(clock.advance(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo(-1);
    }

    @Test
    void manualTimeSourceIsThreadSafe() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(1_000);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    clock.advanceNanos(1);
                    clock.nowNanos();
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(clock.peekNanos()).isEqualTo(41_000);
        assertThat(clock.reads()).isEqualTo(40_000);
    }
}
