package io.gridlimit.replay;

import io.gridlimit.api.Algorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 003's tables replayed as a log (limit 5 per 30 s, one client), each number worked out by hand:
 * <ul>
 *   <li>sliding-window log (configured): 0 s, 5 s ×2, 15 s ×2 admitted (5 in the window); 25 s denied (5 already);
 *       35 s admitted (the window (5 s, 35 s] holds 4); 40 s: the window (10 s, 40 s] holds 15, 15, 35 = 3, so two
 *       admitted and the third denied: 8 admitted, 2 denied;</li>
 *   <li>sliding-window counter: the window [0, 30 s) admits 5 and denies 25 s; at 35 s the weighted count is
 *       5 × 25/30 + 0 + 1 = 5.17 > 5, denied; at 40 s 5 × 20/30 + 1 = 4.33 admitted, then 5.33 denied twice:
 *       6 admitted, 4 denied; against the log: 35 s and the second 40 s denied where the log admits (2), none the
 *       other way;</li>
 *   <li>fixed window [0, 30 s) admits 5 (25 s denied), [30 s, 60 s) admits all four: 9 admitted; the third 40 s is
 *       admitted where the log denies (1);</li>
 *   <li>token bucket and GCRA (capacity 5, 5 per 30 s, a token per 6 s): 4, 2 5/6, 2 1/2, 3 1/6, 3 5/6, 1 2/3
 *       tokens left after each second's requests: all 10 admitted, 2 where the log denies (25 s, the third 40 s).</li>
 * </ul>
 */
class SeedReplayTest {
    @Test
    void seedTableReplaysToTheWorkedOutCounts() throws Exception {
        Options options = Options.parse(new String[] {"--log", "-", "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString(), "--show-keys"});
        ReplayRun run = ReplayMain.replay(options, new ByteArrayInputStream(Logs.seed003()
                .getBytes(StandardCharsets.ISO_8859_1)), new PrintStream(OutputStream.nullOutputStream()));
        Replayer r = run.replayer();
        assertThat(r.requests()).isEqualTo(10);
        assertThat(r.admitted()).isEqualTo(8);
        assertThat(r.denied()).isEqualTo(2);
        PolicyStats seed = r.policies().get(0);
        assertThat(List.of(seed.requests(), seed.admitted(), seed.denied(), (long) seed.keys()))
                .containsExactly(10L, 8L, 2L, 1L);
        assertThat(seed.topDenied(10)).containsExactly(new PolicyStats.KeyCount("ip:203.0.113.7", 10, 2));

        List<Alternatives.Variant> v = r.alternatives("seed").variants();
        assertThat(v).extracting(Alternatives.Variant::algorithm).containsExactlyElementsOf(Alternatives.ALGORITHMS);
        // algorithm, admitted, denied, over-admitted, over-denied
        assertThat(v).extracting(x -> List.of(x.algorithm(), x.admitted(), x.denied(), x.overAdmitted(),
                x.overDenied())).containsExactly(
                List.of(Algorithm.SLIDING_WINDOW_LOG, 8L, 2L, 0L, 0L),
                List.of(Algorithm.SLIDING_WINDOW_COUNTER, 6L, 4L, 0L, 2L),
                List.of(Algorithm.FIXED_WINDOW, 9L, 1L, 1L, 0L),
                List.of(Algorithm.TOKEN_BUCKET, 10L, 0L, 2L, 0L),
                List.of(Algorithm.GCRA, 10L, 0L, 2L, 0L));
        assertThat(Comparison.sentence(seed, r.alternatives("seed"))).isEqualTo("Of the 10 requests of policy 'seed', the "
                + "sliding-window counter decided 2 (20%) differently from the exact sliding-window log (0 admitted "
                + "that it denies, 2 denied that it admits): above the 0.003% Cloudflare published.");
    }

    @Test
    void theCommandLinePrintsTheTableAndWritesTheJsonFromAGzipFile(@TempDir Path dir) throws Exception {
        Path gz = dir.resolve("access.log.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(Logs.seed003().getBytes(StandardCharsets.ISO_8859_1));
        }
        Path json = dir.resolve("report.json");
        Logs.Result result = Logs.run("", "--log", gz.toString(), "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString(), "--json", json.toString());
        assertThat(result.status()).as(result.err()).isZero();
        assertThat(result.out()).contains(String.format("%-32s %12d %12d %12d %10d%n", "seed", 10, 8, 2, 1))
                .contains("requests: 10 replayed, 8 admitted, 2 denied (429), 0 rejected for a missing key (400), "
                        + "0 not limited");
        String report = Files.readString(json);
        assertThat(report).startsWith("{\"schema\":\"gridlimit-replay/1\",\"requests\":10,"
                        + "\"outcomes\":{\"admitted\":8,\"denied\":2,\"rejected\":0,\"unlimited\":0},")
                .contains("\"span\":{\"from\":\"2026-01-01T00:00:00Z\",\"to\":\"2026-01-01T00:00:40Z\","
                        + "\"bucketSeconds\":60}")
                .contains("\"keysShown\":\"hashed\"")
                .contains("{\"name\":\"seed\",\"shadow\":false,\"requests\":10,\"admitted\":8,\"denied\":2,"
                        + "\"keys\":1,")
                .contains("\"overTime\":[{\"start\":\"2026-01-01T00:00:00Z\",\"requests\":10,\"denied\":2}]")
                .contains("{\"algorithm\":\"sliding-window-counter\",\"configured\":false,\"requests\":10,"
                        + "\"admitted\":6,\"denied\":4,\"overAdmitted\":0,\"overDenied\":2,"
                        + "\"overAdmittedPercent\":0,\"overDeniedPercent\":20,\"problem\":null}")
                .doesNotContain("203.0.113.7");
    }

    /**
     * Seed 003's lines written out of order (as servers write them, when each request completes): 5, 0, 15, 5, 25,
     * 15, 40, 35, 40, 40 s. Within a 30 s window they are put back in order and give the seed's 8 and 2. With a
     * window of 0 the four lines earlier than one before them are late and replayed at the edge (0 at 5, 5 at 15,
     * 15 at 25, 35 at 40): times 5, 5, 15, 15, 25, 25, 40 ×4; the log admits 5, 5, 15, 15, 25 and denies the second
     * 25 (5 in (-5 s, 25 s]); at 40 the window (10 s, 40 s] holds 15, 15, 25, so two more are admitted and two
     * denied: 7 admitted, 3 denied.
     */
    @Test
    void outOfOrderLinesAreReorderedWithinTheWindowAndLateOnesReplayedAtItsEdge() {
        StringBuilder log = new StringBuilder();
        for (long t : new long[] {5, 0, 15, 5, 25, 15, 40, 35, 40, 40}) {
            log.append(Logs.combined("203.0.113.7", t, "GET", "/parking/spaces", "curl/8.5")).append('\n');
        }
        String config = Logs.resource("seed-003.yml").toString();
        Logs.Result within = Logs.run(log.toString(), "--log", "-", "--format", "combined", "--config", config,
                "--reorder-window", "30s");
        assertThat(within.out()).contains(String.format("%-32s %12d %12d %12d %10d%n", "seed", 10, 8, 2, 1))
                .contains("lines: 10 read, 0 unparseable, 0 later than the reorder window");
        Logs.Result none = Logs.run(log.toString(), "--log", "-", "--format", "combined", "--config", config,
                "--reorder-window", "0s");
        assertThat(none.out()).contains(String.format("%-32s %12d %12d %12d %10d%n", "seed", 10, 7, 3, 1))
                .contains("lines: 10 read, 0 unparseable, 4 later than the reorder window (first: stdin:2, "
                        + "stdin:4, stdin:6, stdin:8)");
    }

    @Test
    void standardInputAndAPropertiesFileWork() {
        Logs.Result result = Logs.run(Logs.seed003(), "--log", "-", "--format", "common", "--config",
                Logs.resource("fixed.properties").toString());
        assertThat(result.status()).as(result.err()).isZero();
        // fixed window 5 per 30 s: 25 s denied, the four from 35 s admitted
        assertThat(result.out()).contains(String.format("%-32s %12d %12d %12d %10d%n", "seed", 10, 9, 1, 1));
    }
}
