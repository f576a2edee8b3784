package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans in a json-lines log (plans.yml: route policy {@code free}, 1 a minute; {@code X-Plan: gold} from a trusted
 * proxy selects {@code gold}, 3 a minute). User a sends 4 requests through the proxy 10.0.0.5 with gold: gold
 * admits 3 and denies the 4th. User b sends 2 with gold but straight from 198.51.100.9, not a trusted proxy: the
 * header is not believed, free admits 1 and denies 1. The key's state lives under the route's policy either way.
 */
class PlansReplayTest {
    @Test
    void thePlanHeaderIsBelievedOnlyFromATrustedProxy() throws Exception {
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            log.append(line("10.0.0.5", "a", i)).append('\n');
        }
        for (int i = 0; i < 2; i++) {
            log.append(line("198.51.100.9", "b", i)).append('\n');
        }
        Options options = Options.parse(new String[] {"--log", "-", "--format", "json-lines", "--config",
                Logs.resource("plans.yml").toString()});
        ReplayRun run = ReplayMain.replay(options, new ByteArrayInputStream(log.toString()
                .getBytes(StandardCharsets.ISO_8859_1)), new PrintStream(OutputStream.nullOutputStream()));
        assertThat(run.replayer().policies()).extracting(p -> List.of(p.name(), p.requests(), p.admitted(),
                p.denied())).containsExactly(List.of("free", 2L, 1L, 1L), List.of("gold", 4L, 3L, 1L));
        assertThat(List.of(run.replayer().admitted(), run.replayer().denied())).containsExactly(4L, 2L);
    }

    private static String line(String remote, String user, int second) {
        return "{\"time\":\"2026-01-01T00:00:0" + second + ".5Z\",\"remote_addr\":\"" + remote + "\",\"method\":"
                + "\"GET\",\"path\":\"/api/x\",\"status\":200,\"headers\":{\"X-User\":\"" + user + "\",\"X-Plan\":"
                + "\"gold\"}}";
    }
}
