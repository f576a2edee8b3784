package io.gridlimit.replay;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code --html} report opened in a real headless browser (Debian's {@code chromium} with
 * {@code chromium-driver}, driven by Selenium): every policy's chart renders with bars of non-zero size, and the
 * page is self-contained (no external asset). Skipped when {@code chromium} or {@code chromedriver} is not on the
 * PATH, except with {@code CI=true}, where their absence fails the test (so CI installs them).
 */
class HtmlReportBrowserTest {
    @Test
    void theChartsRenderInHeadlessChromium(@TempDir Path dir) throws Exception {
        Optional<Path> chromium = onPath("chromium").or(() -> onPath("chromium-browser"));
        Optional<Path> driver = onPath("chromedriver");
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        if (!ci) {
            Assumptions.assumeTrue(chromium.isPresent() && driver.isPresent(),
                    "chromium and chromedriver are not on the PATH (apt-get install chromium chromium-driver)");
        }
        assertThat(chromium).as("CI=true: chromium on the PATH").isPresent();
        assertThat(driver).as("CI=true: chromedriver on the PATH").isPresent();

        Path html = dir.resolve("report.html");
        Logs.Result r = Logs.run(Logs.seed003(), "--log", "-", "--format", "combined", "--config",
                Logs.resource("two-rules.yml").toString(), "--html", html.toString());
        assertThat(r.status()).as(r.err()).isZero();

        ChromeOptions options = new ChromeOptions().setBinary(chromium.get().toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
                .build();
        ChromeDriver browser = new ChromeDriver(service, options);
        try {
            browser.get(html.toUri().toString());
            assertThat(browser.getTitle()).isEqualTo("GridLimit replay");
            List<WebElement> charts = browser.findElements(By.cssSelector("section.policy svg.chart"));
            assertThat(charts).as("one chart per policy: burst, shared, agents").hasSize(3);
            for (WebElement chart : charts) {
                assertThat(chart.getSize().getWidth()).isEqualTo(900);
                assertThat(chart.getSize().getHeight()).isEqualTo(180);
            }
            // seed 003's log is all under /parking: no policy applies, so no bar; the totals say why
            assertThat(browser.findElement(By.id("totals")).getText()).startsWith("10 requests replayed: 0 admitted");
        } finally {
            browser.quit();
        }

        Path seedHtml = dir.resolve("seed.html");
        assertThat(Logs.run(Logs.seed003(), "--log", "-", "--format", "combined", "--config",
                Logs.resource("seed-003.yml").toString(), "--html", seedHtml.toString()).status()).isZero();
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
                .build(), options);
        try {
            browser.get(seedHtml.toUri().toString());
            List<WebElement> bars = browser.findElements(By.cssSelector("svg.chart rect"));
            // one minute bucket: a requests bar (10) and a denials bar (2), the latter a fifth as high
            assertThat(bars).hasSize(2);
            assertThat(bars.get(0).getSize().getHeight()).isEqualTo(160);
            assertThat(bars.get(1).getSize().getHeight()).isEqualTo(32);
        } finally {
            browser.quit();
        }
        assertThat(Files.readString(seedHtml)).doesNotContain("<script").doesNotContain("<link")
                .doesNotContain("src=");
    }

    private static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
