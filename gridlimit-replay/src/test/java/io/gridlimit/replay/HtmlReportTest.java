package io.gridlimit.replay;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code --html} page as text: self-contained, one chart per policy with its bars, tables, the sentence. */
class HtmlReportTest {
    @Test
    void seedPageHasTheBarsTablesAndSentence(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("r.html");
        Logs.Result r = Logs.run(Logs.seed003(), "--log", "-", "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString(), "--html", html.toString(), "--show-keys");
        assertThat(r.status()).as(r.err()).isZero();
        String page = Files.readString(html);
        assertThat(page).startsWith("<!DOCTYPE html>").doesNotContain("<script").doesNotContain("<link")
                .doesNotContain("src=").contains("<svg class=\"chart\"")
                // 10 requests (the maximum: full height 160) and 2 denials (a fifth: 32) in the one minute bucket
                .contains("<rect class=\"req\" x=\"0.00\" y=\"0.00\" width=\"900.00\" height=\"160.00\">")
                .contains("<rect class=\"den\" x=\"0.00\" y=\"128.00\" width=\"900.00\" height=\"32.00\">")
                .contains("<tr><td>ip:203.0.113.7</td><td>10</td><td>2</td></tr>")
                .contains("<tr><td>sliding-window-counter</td><td>10</td><td>6</td><td>4</td><td>0 (0%)</td>"
                        + "<td>2 (20%)</td></tr>")
                .contains("above the 0.003% Cloudflare published.");
    }
}
