package io.gridlimit.replay;

import io.gridlimit.api.Policy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each policy alone decided on its own thread gives the counts of one thread deciding in order: a replay long
 * enough for the thread to start (several batches and a partial one), an error of the thread, and a close before
 * the end; the replay, whose end is the thread's, accepts no request after it.
 */
class AlternativesThreadTest {
    private static final Policy POLICY = Policy.builder("api").slidingWindowCounter(7, Duration.ofSeconds(10))
            .build();
    private static final long SECOND = 1_000_000_000L;

    @Test
    void theThreadDecidesAsOneThreadInOrder() {
        Alternatives threaded = new Alternatives(POLICY);
        Alternatives inOrder = new Alternatives(POLICY);
        int n = 3 * AlternativesThread.BATCH + 17;
        try (AlternativesThread beside = new AlternativesThread()) {
            for (int i = 0; i < n; i++) {
                String key = "client-" + (i * 31 % 53);
                long cost = 1 + i % 3;
                long now = 1_700_000_000L * SECOND + i * (SECOND / 40);
                beside.add(threaded, key, cost, now);
                inOrder.decide(key, cost, now);
            }
            beside.finish();
        }
        assertThat(counts(threaded.variants())).isEqualTo(counts(inOrder.variants()));
        assertThat(threaded.variants().get(0).requests()).isEqualTo(n);
        // the quota is tight enough for every algorithm to deny, and for the counter to disagree with the log
        assertThat(threaded.variants()).allSatisfy(v -> assertThat(v.denied()).isPositive());
        assertThat(threaded.variants().get(1).overAdmitted() + threaded.variants().get(1).overDenied()).isPositive();
    }

    @Test
    void anErrorOfTheThreadIsThrownByFinish() {
        Alternatives a = new Alternatives(POLICY);
        AlternativesThread beside = new AlternativesThread();
        for (int i = 0; i < AlternativesThread.BATCH; i++) {
            beside.add(a, "k", i == 5 ? 0 : 1, i * SECOND); // a cost of 0 is refused by the algorithms
        }
        assertThatThrownBy(beside::finish).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("deciding each policy alone failed: java.lang.IllegalArgumentException")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        beside.close();
    }

    @Test
    void closedBeforeTheEndTheCountsAreNeverReadAsFinal() {
        AlternativesThread beside = new AlternativesThread();
        beside.add(new Alternatives(POLICY), "k", 1, 0);
        beside.close();
        assertThatThrownBy(beside::finish).isInstanceOf(IllegalStateException.class)
                .hasMessage("the alternatives were closed before every request was decided");
        assertThatThrownBy(() -> beside.add(new Alternatives(POLICY), "k", 1, 0))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theReplayAcceptsNoRequestAfterItsEnd() throws Exception {
        ReplayConfig.Loaded loaded = ReplayConfig.load(Logs.resource("two-rules.yml"));
        try (Replayer replayer = new Replayer(loaded.config(), loaded.policies())) {
            assertThat(replayer.accept(record(0))).isEqualTo(Replayer.Outcome.ADMITTED);
            replayer.finish();
            assertThatThrownBy(() -> replayer.accept(record(1))).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the replay has finished: no request can be accepted");
            assertThat(replayer.requests()).isEqualTo(1);
            assertThat(replayer.alternatives("burst").variants().get(0).requests()).isEqualTo(1);
        }
    }

    private static LogRecord record(int i) {
        return new LogRecord(i + 1, i, 1_700_000_000L * SECOND + i * SECOND, "198.51.100.1", "GET", "/api/orders",
                200, null);
    }

    private static List<List<Long>> counts(List<Alternatives.Variant> variants) {
        return variants.stream().map(v -> List.of(v.requests(), v.admitted(), v.overAdmitted(), v.overDenied()))
                .toList();
    }
}
