package io.gridlimit.micronaut.netty;

import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.support.Ports;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;
import io.micronaut.json.JsonMapper;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Found by a hostile review: 300 connections trickling their header sections stayed open 70 s. With
 * {@code gridlimit.http.header-timeout: 300ms}, over raw sockets: a connection that trickles its header lines (a
 * byte every 40 ms: bytes keep arriving, so an idle timeout never fires) or sends nothing is answered 408 with a
 * problem body and {@code Connection: close}, closed, and counted, within the deadline and a margin; a request
 * whose headers arrived in time but whose body or handler is slower than the deadline is served, and so is the next
 * request of a connection that sat idle past the deadline. Time is the mechanism under test: the trickle runs on a
 * scheduler and the test waits with socket read timeouts, never with sleeps.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeaderDeadlineTest {
    private static final long DEADLINE_MS = 300;
    /** What a loaded 2-core machine may add to the deadline before the 408 is read. */
    private static final long MARGIN_MS = 5_000;
    /** The read timeout of exchanges whose duration is not under test. */
    private static final int PATIENCE_MS = 30_000;
    private static final int SLOW_MS = 700;

    private EmbeddedServer server;
    private JsonMapper json;
    private MeterRegistry meters;
    private final ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();

    @BeforeAll
    void start() {
        Map<String, Object> p = new HashMap<>(Ports.ownMember("gl-deadline"));
        p.put("micronaut.server.port", "-1");
        p.put("gridlimit.http.header-timeout", DEADLINE_MS + "ms");
        p.put("gridlimit-test.slow-routes", "true");
        server = ApplicationContext.run(EmbeddedServer.class, p);
        json = server.getApplicationContext().getBean(JsonMapper.class);
        meters = server.getApplicationContext().getBean(MeterRegistry.class);
        // one exchange first, so that the timed ones do not pay for loading the server's pipeline classes
        try (Socket socket = connect(PATIENCE_MS)) {
            socket.getOutputStream().write("GET /slow/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readUntilClosed(socket.getInputStream(), new AtomicBoolean())).startsWith("HTTP/1.1 200 OK");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    void stop() {
        trickler.shutdownNow();
        server.close();
    }

    /** Test routes: a quick one, one with a body, one whose handler answers after {@value #SLOW_MS} ms. */
    @Controller("/slow")
    @Requires(property = "gridlimit-test.slow-routes", value = "true")
    @Produces(MediaType.TEXT_PLAIN)
    static class SlowRoutes {
        @Get("/hello")
        String hello() {
            return "hello";
        }

        @Post(uri = "/body", consumes = MediaType.TEXT_PLAIN)
        String body(@Body String body) {
            return "got " + body;
        }

        @Get("/handler")
        CompletableFuture<String> handler() {
            return CompletableFuture.supplyAsync(() -> "late",
                    CompletableFuture.delayedExecutor(SLOW_MS, TimeUnit.MILLISECONDS));
        }
    }

    private double cutOff() {
        Counter c = meters.find(GridLimitMetrics.HEADER_TIMEOUTS).counter();
        return c == null ? 0 : c.count();
    }

    private Socket connect(int readTimeoutMs) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()), 10_000);
        s.setSoTimeout(readTimeoutMs);
        return s;
    }

    /** Reads until the server closes (EOF, or a reset after its data), or the read timeout. */
    private static String readUntilClosed(InputStream in, AtomicBoolean answered) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = in.read()) >= 0) {
                answered.set(true);
                all.write(b);
            }
        } catch (SocketException reset) {
            // the trickle's last byte may cross the server's close: the peer resets after its data was read
        }
        return all.toString(StandardCharsets.UTF_8);
    }

    private void assert408(String response, long elapsedMs) throws IOException {
        assertThat(response).startsWith("HTTP/1.1 408 Request Timeout\r\n");
        String head = response.substring(0, response.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT);
        assertThat(head).contains("\r\nconnection: close").contains("\r\ncontent-type: application/problem+json")
                .contains("\r\ndate: ");
        @SuppressWarnings("unchecked")
        Map<String, Object> problem = json.readValue(response.substring(response.indexOf("\r\n\r\n") + 4), Map.class);
        assertThat(problem).containsExactlyInAnyOrderEntriesOf(Map.of("type", "about:blank", "title",
                "Request Timeout", "status", 408, "detail", HeaderDeadline.DETAIL));
        assertThat(elapsedMs).as("answered after the deadline, within the margin")
                .isBetween(DEADLINE_MS, DEADLINE_MS + MARGIN_MS);
    }

    @Test
    void aClientTricklingItsHeaderSectionIsAnswered408AndClosedAtTheDeadline() throws Exception {
        double before = cutOff();
        AtomicBoolean answered = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        byte[] trickle = ("GET /slow/hello HTTP/1.1\r\nHost: x\r\n" + "X-Slow: a\r\n".repeat(200))
                .getBytes(StandardCharsets.US_ASCII);
        long start = System.nanoTime(); // before connecting: the server's deadline starts after this
        try (Socket socket = connect((int) (DEADLINE_MS + MARGIN_MS))) {
            OutputStream out = socket.getOutputStream();
            ScheduledFuture<?> writer = trickler.scheduleAtFixedRate(() -> {
                int i = sent.getAndIncrement();
                if (answered.get() || i >= trickle.length) {
                    throw new IllegalStateException("done"); // ends the schedule
                }
                try {
                    out.write(trickle[i]);
                    out.flush();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, 0, 40, TimeUnit.MILLISECONDS);
            String response = readUntilClosed(socket.getInputStream(), answered);
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            writer.cancel(false);
            assert408(response, elapsedMs);
            assertThat(sent.get()).as("bytes kept arriving until the deadline").isGreaterThan(5);
        }
        assertThat(cutOff() - before).isEqualTo(1.0);
    }

    @Test
    void aConnectionThatSendsNothingIsAnswered408AtTheDeadline() throws Exception {
        double before = cutOff();
        long start = System.nanoTime(); // before connecting: the server's deadline starts after this
        try (Socket socket = connect((int) (DEADLINE_MS + MARGIN_MS))) {
            String response = readUntilClosed(socket.getInputStream(), new AtomicBoolean());
            assert408(response, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        assertThat(cutOff() - before).isEqualTo(1.0);
    }

    @Test
    void aSlowBodyAfterTimelyHeadersIsNotCut() throws Exception {
        double before = cutOff();
        try (Socket socket = connect(PATIENCE_MS)) {
            long start = System.nanoTime();
            OutputStream out = socket.getOutputStream();
            out.write(("POST /slow/body HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            AtomicInteger sent = new AtomicInteger();
            ScheduledFuture<?> writer = trickler.scheduleAtFixedRate(() -> {
                int i = sent.getAndIncrement();
                if (i >= 10) {
                    throw new IllegalStateException("done");
                }
                try {
                    out.write('0' + i);
                    out.flush();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, SLOW_MS / 10, SLOW_MS / 10, TimeUnit.MILLISECONDS);
            String response = readUntilClosed(socket.getInputStream(), new AtomicBoolean());
            writer.cancel(false);
            assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\ngot 0123456789");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("the body took longer than the "
                    + "deadline").isGreaterThanOrEqualTo(SLOW_MS);
        }
        assertThat(cutOff() - before).isZero();
    }

    @Test
    void aSlowHandlerIsNotCutAndAnIdleKeptAliveConnectionServesItsNextRequest() throws Exception {
        double before = cutOff();
        try (Socket socket = connect(PATIENCE_MS)) {
            long start = System.nanoTime();
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write("GET /slow/handler HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readOne(in)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nlate");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(SLOW_MS);
            // idle past the deadline: the idle timeout's business, so nothing arrives
            socket.setSoTimeout((int) (2 * DEADLINE_MS));
            assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
            socket.setSoTimeout(PATIENCE_MS);
            out.write("GET /slow/hello HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readOne(in)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nhello");
        }
        assertThat(cutOff() - before).isZero();
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "0s   | gridlimit.http.header-timeout: '0s' is out of range [1ms, 1h]",
        "0ms  | gridlimit.http.header-timeout: '0ms' is out of range [1ms, 1h]",
        "61m  | gridlimit.http.header-timeout: '61m' is out of range [1ms, 1h]",
        "soon | gridlimit.http.header-timeout: 'soon' is not"})
    void anImpossibleDeadlineStopsTheBootNamingThePropertyAndTheValue(String value, String message) {
        assertThatThrownBy(() -> ApplicationContext.builder().properties(Map.of("micronaut.application.name",
                "gl-bad", "gridlimit-test.limiter", "never", "gridlimit.http.header-timeout", value)).start().close())
                .satisfies(e -> assertThat(io.gridlimit.micronaut.config.BootFailure.reason(e)).hasValueSatisfying(
                        r -> assertThat(r).startsWith("Invalid GridLimit configuration: " + message)));
    }

    /** Reads one response with a {@code Content-Length} from a kept-alive connection. */
    private static String readOne(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.write(b);
        }
        String h = head.toString(StandardCharsets.US_ASCII);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)\r\ncontent-length: *(\\d+)").matcher(h);
        assertThat(m.find()).as("content-length in " + h).isTrue();
        return h + new String(in.readNBytes(Integer.parseInt(m.group(1))), StandardCharsets.UTF_8);
    }
}
