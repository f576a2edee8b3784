package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several rules per request, all-or-nothing, normalisation, exemptions, costs and missing keys (two-rules.yml:
 * {@code burst} 2 a minute per client then {@code shared} 3 a minute for everyone on {@code /api/**};
 * {@code agents}, a bucket of 4 refilled 1 a minute, cost 2, keyed by user agent on {@code /ua/**}).
 * All lines fall in the first minute, in this order:
 * <ol>
 *   <li>A /api/orders: burst(A) 1/2, shared 1/3: admitted;</li>
 *   <li>A /%61pi//orders/ (normalised to /api/orders): burst(A) 2/2, shared 2/3: admitted;</li>
 *   <li>A /api/orders: burst(A) denies; shared is not asked: denied;</li>
 *   <li>B: burst(B) 1/2, shared 3/3: admitted;</li>
 *   <li>B: burst(B) 2/2, shared denies: denied, and burst(B)'s unit is given back (1/2);</li>
 *   <li>B, B: the same again twice, each admitted by burst(B) only thanks to the give-back, denied by shared;</li>
 *   <li>/health/live: exempt (the default exempt list): not limited;</li>
 *   <li>/ua/x with user agent curl/8 three times: 4 tokens, 2 per request: admitted, admitted, denied;</li>
 *   <li>/ua/x with user agent "-": no key under on-missing-key reject: answered 400.</li>
 * </ol>
 * burst: 7 decisions, 6 admitted, 1 denied, 2 keys; shared: 6 decisions, 3 admitted, 3 denied, 1 key; agents: 3
 * decisions, 2 admitted, 1 denied, 1 key, 1 rejected. Requests: 12; admitted 1, 2, 4 and two /ua = 5; denied 3, 5,
 * 6, 7 and one /ua = 5; rejected 1; not limited 1 (the exempt one).
 */
class RulesReplayTest {
    @Test
    void rulesAskedInOrderWithAllOrNothing() throws Exception {
        StringBuilder log = new StringBuilder();
        String a = "198.51.100.1";
        String b = "198.51.100.2";
        for (String[] line : new String[][] {{a, "/api/orders"}, {a, "/%61pi//orders/"}, {a, "/api/orders"},
                {b, "/api/orders"}, {b, "/api/orders"}, {b, "/api/orders"}, {b, "/api/orders"}, {a, "/health/live"}}) {
            log.append(Logs.combined(line[0], 1, "GET", line[1], "curl/8")).append('\n');
        }
        for (int i = 0; i < 3; i++) {
            log.append(Logs.combined(a, 2, "POST", "/ua/x", "curl/8")).append('\n');
        }
        log.append(Logs.combined(a, 2, "POST", "/ua/x", "-")).append('\n');

        Options options = Options.parse(new String[] {"--log", "-", "--format", "combined", "--config",
                Logs.resource("two-rules.yml").toString()});
        ReplayRun run = ReplayMain.replay(options, new ByteArrayInputStream(log.toString()
                .getBytes(StandardCharsets.ISO_8859_1)), new PrintStream(OutputStream.nullOutputStream()));
        Replayer r = run.replayer();
        assertThat(List.of(r.requests(), r.admitted(), r.denied(), r.rejected(), r.unlimited()))
                .containsExactly(12L, 5L, 5L, 1L, 1L);
        assertThat(r.policies()).extracting(p -> List.of(p.name(), p.requests(), p.admitted(), p.denied(),
                (long) p.keys(), p.missingKeyRejected())).containsExactly(
                List.of("burst", 7L, 6L, 1L, 2L, 0L),
                List.of("shared", 6L, 3L, 3L, 1L, 0L),
                List.of("agents", 3L, 2L, 1L, 1L, 1L));
        // burst alone (no give-back, no shared rule): A 2 of 3, B 2 of 4 admitted as a fixed window
        Alternatives.Variant burstAlone = r.alternatives("burst").variants().stream()
                .filter(Alternatives.Variant::configured).findFirst().orElseThrow();
        assertThat(List.of(burstAlone.requests(), burstAlone.admitted())).containsExactly(7L, 4L);
    }
}
