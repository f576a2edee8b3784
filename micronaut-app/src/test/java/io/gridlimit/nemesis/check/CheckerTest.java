package io.gridlimit.nemesis.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The nemesis checker can fail (issue 25, item 6): histories with known violations (one extra admission in a
 * window or interval, for every algorithm and a composite; a reset key; a local share exceeded; a split without
 * its fault line; one key's admitted line copied 5 000 times) are reported, each with its window, and the same
 * histories within their bounds are not. Times are in milliseconds from 0 unless said; every decision's interval is
 * 1 ms long; readings are taken to lie within it (no clock tolerance).
 */
class CheckerTest {
    private static final long MS = 1_000_000L;

    /** Builds a history line by line. */
    private static final class H {
        private final Map<String, Object> policies = new LinkedHashMap<>();
        private final Map<String, Object> run = new LinkedHashMap<>(Map.of("readingBehindNanos", 0L,
                "readingAheadNanos", 0L));
        private final List<String> lines = new ArrayList<>();

        H policy(String name, String body) {
            policies.put(name, Json.parse(body));
            return this;
        }

        H run(String member, Object value) {
            run.put(member, value);
            return this;
        }

        /** An answered decision of cost {@code cost} sent at {@code ms}, answered 1 ms later. */
        H decide(String policy, String key, long ms, long cost, boolean admitted) {
            return decide(policy, key, ms, cost, admitted, "grid", "m1");
        }

        H decide(String policy, String key, long ms, long cost, boolean admitted, String source, String replica) {
            lines.add(History.decisionLine(policy, key, cost, ms * MS, ms * MS + MS, admitted, replica, source,
                    "api"));
            return this;
        }

        /** {@code n} admissions of cost 1 at {@code ms}. */
        H admit(String policy, String key, long ms, int n) {
            for (int i = 0; i < n; i++) {
                decide(policy, key, ms, 1, true);
            }
            return this;
        }

        H fault(String kind, String target, long fromMs, long toMs, long stepMs) {
            lines.add(History.faultLine(kind, target, fromMs * MS, toMs * MS, toMs * MS, stepMs * MS));
            return this;
        }

        String text() {
            StringBuilder b = new StringBuilder(History.headerLine(policies, run)).append('\n');
            lines.forEach(l -> b.append(l).append('\n'));
            return b.toString();
        }

        Checker.Result check() {
            try {
                return Checker.check(History.read(new BufferedReader(new StringReader(text())), "test"));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static final String TB = "{\"algorithm\":\"token-bucket\",\"capacity\":5,\"refill-tokens\":1,"
            + "\"refill-period\":\"1s\"}";
    private static final String FW = "{\"algorithm\":\"fixed-window\",\"limit\":3,\"window\":\"1s\"}";
    private static final String SWL = "{\"algorithm\":\"sliding-window-log\",\"limit\":2,\"window\":\"1s\"}";
    private static final String SWC = "{\"algorithm\":\"sliding-window-counter\",\"limit\":10,\"window\":\"1s\"}";

    @Test
    void aBucketAtItsRateIsExactAndOneMoreIsAViolation() {
        // C = 5, 1 token/s: 5 at once, then one a second for 4 s fits exactly (ratio 1.000)
        H ok = new H().policy("tb", TB).admit("tb", "k", 0, 5);
        for (int s = 1; s <= 4; s++) {
            ok.admit("tb", "k", s * 1000, 1);
        }
        Checker.Result clean = ok.check();
        assertThat(clean.violations()).isEmpty();
        assertThat(clean.rows().get("none").maxRatio()).isGreaterThan(0.999).isLessThan(1.0);

        // one more at 2.5 s: 5 + 3 in [0, 2.501 s] where the bucket allows 5 + 2.501
        Checker.Result r = ok.admit("tb", "k", 2500, 1).check();
        assertThat(r.violations()).hasSize(1);
        Checker.Finding v = r.violations().get(0);
        assertThat(v.key()).isEqualTo("k");
        assertThat(v.stream()).isEqualTo("grid");
        assertThat(v.fromNanos()).isEqualTo(0);
        assertThat(v.admitted()).isGreaterThan(Long.parseLong(v.allowed().split("\\.")[0]));
    }

    @Test
    void gcraIsTheBucketsBound() {
        String gcra = TB.replace("token-bucket", "gcra");
        assertThat(new H().policy("g", gcra).admit("g", "k", 0, 5).check().violations()).isEmpty();
        assertThat(new H().policy("g", gcra).admit("g", "k", 0, 6).check().violations()).hasSize(1);
    }

    @Test
    void fixedWindowCountsWhatLiesWhollyInsideAWindow() {
        // 3 per 1 s window: 3 inside window 0, a fourth across the boundary (999..1000 ms) cannot be placed
        H h = new H().policy("fw", FW).admit("fw", "origin", 0, 1).admit("fw", "k", 100, 3).admit("fw", "k", 999, 1);
        assertThat(h.check().violations()).isEmpty();
        Checker.Result r = h.admit("fw", "k", 500, 1).check();
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).fromNanos()).isEqualTo(0);
        assertThat(r.violations().get(0).toNanos()).isEqualTo(1000 * MS - 1);
        assertThat(r.violations().get(0).admitted()).isEqualTo(4);
        assertThat(r.violations().get(0).inside()).isEqualTo(4);
    }

    @Test
    void slidingLogHoldsOverEveryClosedWindowOfItsLength() {
        // 2 per 1 s: 100, 500, 1200 ms fit ([100, 1100] holds two); 100, 500, 1050 do not
        assertThat(new H().policy("l", SWL).admit("l", "k", 100, 1).admit("l", "k", 500, 1)
                .admit("l", "k", 1200, 1).check().violations()).isEmpty();
        Checker.Result r = new H().policy("l", SWL).admit("l", "k", 100, 1).admit("l", "k", 500, 1)
                .admit("l", "k", 1050, 1).check();
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).admitted()).isEqualTo(3);
    }

    @Test
    void slidingCounterWeighsThePreviousWindow() {
        // 10 per 1 s: 10 in window 0; answered 101 ms into window 1, the previous count weighs at least
        // 0.899·10, so one fits (W·1 + 0.899·W·10 <= 10·W) and two do not
        H h = new H().policy("c", SWC).admit("c", "k", 50, 10).admit("c", "k", 1100, 1);
        assertThat(h.check().violations()).isEmpty();
        Checker.Result r = h.admit("c", "k", 1100, 1).check();
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).admitted()).isEqualTo(2);
    }

    @Test
    void aCompositeIsCheckedBandByBand() {
        String combo = "{\"bands\":{\"burst\":" + TB + ",\"window\":" + FW.replace("\"limit\":3", "\"limit\":4")
                + "}}";
        // 4 at 100 ms: the bucket allows 5, the window 4: fine; a fifth exceeds only the window band
        H h = new H().policy("combo", combo).admit("combo", "k", 100, 4);
        assertThat(h.check().violations()).isEmpty();
        Checker.Result r = h.admit("combo", "k", 200, 1).check();
        assertThat(r.violations()).extracting(Checker.Finding::band).containsExactly("window");
    }

    @Test
    void aResetKeyIsLostState() {
        // C = 10, 1 token per 100 s: 10 admitted, a denial at 1 s (0.1 token left), then 6 more admitted
        String slow = "{\"algorithm\":\"token-bucket\",\"capacity\":10,\"refill-tokens\":1,\"refill-period\":\"100s\"}";
        H h = new H().policy("tb", slow).admit("tb", "k", 0, 10).decide("tb", "k", 1000, 1, false);
        assertThat(h.check().lost()).isEmpty();
        Checker.Result r = h.admit("tb", "k", 1500, 6).check();
        assertThat(r.lost()).hasSize(1);
        assertThat(r.lost().get(0).fromNanos()).isEqualTo(1000 * MS);
        assertThat(r.lost().get(0).admitted()).isEqualTo(6);
        assertThat(r.violations()).hasSize(1);

        // a fixed window: a denial, then the key admits again in the same window
        Checker.Result w = new H().policy("fw", FW).admit("fw", "k", 100, 3).decide("fw", "k", 200, 1, false)
                .admit("fw", "k", 600, 1).check();
        assertThat(w.lost()).hasSize(1);
    }

    @Test
    void aDenialBeforeAGiveBackIsNoEvidenceOfLoss() {
        // the decision API answered 503 (its reservation given back): after the denial one token may come back
        String slow = "{\"algorithm\":\"token-bucket\",\"capacity\":10,\"refill-tokens\":1,\"refill-period\":\"100s\"}";
        Checker.Result r = new H().policy("tb", slow).admit("tb", "k", 0, 9).decide("tb", "k", 10, 1, false,
                "closed", "m2").decide("tb", "k", 1000, 1, false).admit("tb", "k", 1500, 1).check();
        assertThat(r.lost()).isEmpty();
        assertThat(r.violations()).isEmpty();
    }

    @Test
    void aSplitAllowsOneMoreSideAndOnlyWhileItHolds() {
        // both sides spend the bucket during a partition: 10 where the exact bound is 5 + 0.2
        H split = new H().policy("tb", TB).admit("tb", "k", 100, 5).decide("tb", "k", 150, 1, true, "grid", "m3");
        for (int i = 0; i < 4; i++) {
            split.decide("tb", "k", 160, 1, true, "grid", "m3");
        }
        assertThat(split.check().violations()).hasSize(1);
        assertThat(split.fault("partition", "m3", 50, 300, 0).check().violations()).isEmpty();
        // the same fault line long before does not cover it
        H early = new H().policy("tb", TB).fault("partition", "m3", 0, 10, 0).admit("tb", "k", 100, 5);
        for (int i = 0; i < 5; i++) {
            early.decide("tb", "k", 160, 1, true, "grid", "m3");
        }
        assertThat(early.check().violations()).hasSize(1);
    }

    @Test
    void aClockStepAllowsItsRefill() {
        // 5 at 0, 4 more at 2 s: 2 tokens refilled, 4 admitted: over by 2 unless a clock step of >= 1 s
        // (two jumps of cluster time, SPEC §15) gave them
        H h = new H().policy("tb", TB).run("heartbeatNanos", 1_000_000_000L).admit("tb", "k", 0, 5)
                .admit("tb", "k", 2000, 4);
        assertThat(h.check().violations()).hasSize(1);
        assertThat(h.fault("clock", "m2", 1000, 1500, 1000).check().violations()).isEmpty();
    }

    @Test
    void localDecisionsAreHeldToTheirShare() {
        // N = 3: the share of a fixed window of 3 per second is 1; two local admissions of m2 in a window exceed it
        H ok = new H().policy("fw", FW).admit("fw", "k", 100, 3).decide("fw", "k", 200, 1, true, "local", "m2")
                .decide("fw", "k", 300, 1, true, "local", "m3");
        assertThat(ok.check().violations()).isEmpty();
        Checker.Result r = ok.decide("fw", "k", 400, 1, true, "local", "m2").check();
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).stream()).isEqualTo("local m2#0");
        // a restarted replica is a new share: its first admission after the kill is its own
        Checker.Result restarted = new H().policy("fw", FW).decide("fw", "k", 200, 1, true, "local", "m2")
                .fault("kill", "m2", 250, 260, 0).decide("fw", "k", 400, 1, true, "local", "m2").check();
        assertThat(restarted.violations()).isEmpty();
    }

    @Test
    void oneAdmittedLineCopied5000TimesIsReported(@TempDir Path dir) throws IOException {
        H h = new H().policy("tb", TB).policy("fw", FW).admit("tb", "k1", 0, 1).admit("fw", "k2", 100, 1);
        Path file = dir.resolve("history.jsonl");
        List<String> lines = new ArrayList<>(List.of(h.text().split("\n")));
        String admitted = lines.get(1);
        for (int i = 0; i < 5000; i++) {
            lines.add(admitted);
        }
        Files.write(file, lines);
        long started = System.nanoTime();
        Checker.Result r = Checker.check(History.read(file));
        assertThat(System.nanoTime() - started).as("checked in seconds").isLessThan(10_000_000_000L);
        assertThat(r.decisions()).isEqualTo(5002);
        assertThat(r.violations()).hasSize(1);
        assertThat(r.violations().get(0).key()).isEqualTo("k1");
        assertThat(r.violations().get(0).admitted()).isEqualTo(5001);
        Report report = new Report().add(file.toString(), r);
        assertThat(report.lastLine()).isEqualTo("nemesis: runs=1 faults=0 kinds= decisions=5002 violations=1 lost=0");
        assertThat(report.toString()).contains("VIOLATION policy tb band tb key k1 (grid)");
    }

    @Test
    void theTableCountsFaultsDecisionsRatiosAndViolationsPerKind() {
        Checker.Result r = new H().policy("fw", FW).fault("pause", "m2", 0, 2000, 0).admit("fw", "k", 100, 3)
                .admit("fw", "k", 3100, 3).admit("fw", "k", 3200, 1).check();
        Report report = new Report().add("t", r);
        assertThat(report.table()).contains("| pause | 1 | 3 | 0.500 | 0 |").contains("| none | – | 4 | 1.333 | 1 |");
        assertThat(report.lastLine()).isEqualTo("nemesis: runs=1 faults=1 kinds=pause decisions=7 violations=1 lost=0");
    }

    @Test
    void malformedLinesAreRefusedNamingTheLine() {
        String header = History.headerLine(Map.of("fw", Json.parse(FW)), Map.of());
        assertThatThrownBy(() -> History.read(new BufferedReader(new StringReader(header + "\n{\"policy\":\"nope\"}")),
                "h")).hasMessageContaining("h:2").hasMessageContaining("'nope' is not in the first line's policies");
        assertThatThrownBy(() -> History.read(new BufferedReader(new StringReader(header
                + "\n{\"fault\":\"meteor\",\"target\":\"m1\",\"startNanos\":0,\"endNanos\":1}")), "h"))
                .hasMessageContaining("h:2").hasMessageContaining("the checker knows no bound for it");
        assertThatThrownBy(() -> History.read(new BufferedReader(new StringReader(header
                + "\n{\"fault\":\"clock\",\"target\":\"m1\",\"startNanos\":0,\"endNanos\":1}")), "h"))
                .hasMessageContaining("stepNanos");
        assertThatThrownBy(() -> PolicyModel.of("p", Json.object("{\"algorithm\":\"fixed-window\",\"limit\":0,"
                + "\"window\":\"1s\"}"))).hasMessage("policy 'p': limit must be in [1, 10^15], got 0");
    }
}
