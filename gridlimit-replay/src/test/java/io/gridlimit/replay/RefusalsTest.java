package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What stops a replay, each with a message naming the value: usage, configuration, too many bad lines. */
class RefusalsTest {
    private static final String BAD = "this is not a log line";

    @Test
    void moreUnparseableLinesThanAllowedStopTheReplay() {
        // 10 good lines and 1 bad one: 1 of 11 is 9.0909%, above the default 1%
        String log = Logs.seed003() + BAD + "\n";
        Logs.Result r = Logs.run(log, "--log", "-", "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("gridlimit-replay: 1 of 11 lines (9.0909%) are not combined lines, more than "
                + "--max-bad-lines 1%; the first at stdin:11. Is --format right?" + System.lineSeparator());

        Logs.Result allowed = Logs.run(log, "--log", "-", "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString(), "--max-bad-lines", "1");
        assertThat(allowed.status()).as(allowed.err()).isZero();
        assertThat(allowed.out()).contains("lines: 11 read, 1 unparseable (first: stdin:11), 0 later than the "
                + "reorder window");
    }

    @Test
    void aMisspeltPropertyStopsTheReplayWithTheLibrarysMessage() {
        Logs.Result r = Logs.run("", "--log", "-", "--format", "combined", "--config",
                Logs.resource("misspelt.yml").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("gridlimit-replay: Invalid GridLimit configuration: ")
                .contains("gridlimit.routes[0].on-mising-key");
    }

    @Test
    void usageErrorsNameTheOptionAndValue() {
        Logs.Result r = Logs.run("", "--log", "-", "--format", "w3c", "--config", "x.yml");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("gridlimit-replay: --format: 'w3c' is not one of combined, common, "
                + "json-lines");
        assertThat(Logs.run("", "--log", "-", "--format", "common", "--config", "x.yml", "--reorder-window", "-1s")
                .err()).startsWith("gridlimit-replay: --reorder-window: '-1s' is not a duration");
        assertThat(Logs.run("", "--log", "nowhere.log", "--format", "common", "--config",
                Logs.resource("seed-003.yml").toString()).err())
                .isEqualTo("gridlimit-replay: --log: 'nowhere.log' does not exist or is not a file"
                        + System.lineSeparator());
    }
}
