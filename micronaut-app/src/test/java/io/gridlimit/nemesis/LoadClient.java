package io.gridlimit.nemesis;

import io.gridlimit.nemesis.check.History;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One load client process of the nemesis (issue 25): threads sending {@link Workload} requests to the replicas'
 * published ports on 127.0.0.1, each decision written as a history line ({@link History#decisionLine}) with its
 * sent and answered times on {@code System.nanoTime()}, the host's monotonic clock shared by every process. It stops
 * by itself: at its deadline, after its request bound, or when the stop file appears. Dependency-free: it runs on
 * the test classes alone.
 *
 * <p>Arguments: {@code --out FILE --seed S --threads T --rate R} (requests per second for the whole process, paced)
 * {@code --deadline-nanos D} (on {@code System.nanoTime()}) {@code --max-requests M --stop FILE --targets
 * m1=<internal port>:<public port>,...}. Answers: the decision API's 200 is a grid decision, its 503 admitted
 * nothing ({@code closed}); the filter's 429 is a denial, its 503 {@code closed}, any other answer an admission
 * ({@code 404}: the routes lead nowhere), from the grid or a local share as its {@code RateLimit-Policy} says
 * ({@link Workload#fromGrid}), {@code open} without it. No answer within 3 s, or another status, is recorded with
 * {@code admitted: null}: the outcome is unknown.
 */
public final class LoadClient {
    private static final Pattern ALLOWED = Pattern.compile("\"allowed\"\\s*:\\s*(true|false)");
    private static final Pattern RESET = Pattern.compile("\"resetAfterMillis\"\\s*:\\s*(\\d+)");
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, int[]> targets;
    private final List<String> aliases;
    private final BufferedWriter out;
    private final Path stop;
    private final long deadlineNanos;
    private final long maxRequests;
    private final long intervalNanos;
    private final AtomicLong sent = new AtomicLong();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

    private LoadClient(Map<String, int[]> targets, BufferedWriter out, Path stop, long deadlineNanos,
                       long maxRequests, long intervalNanos) {
        this.targets = targets;
        this.aliases = List.copyOf(targets.keySet());
        this.out = out;
        this.stop = stop;
        this.deadlineNanos = deadlineNanos;
        this.maxRequests = maxRequests;
        this.intervalNanos = intervalNanos;
    }

    /**
     * @param args see the class comment
     * @throws Exception if the output cannot be written or a thread is interrupted
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i], args[i + 1]);
        }
        Map<String, int[]> targets = new LinkedHashMap<>();
        for (String t : a.get("--targets").split(",")) {
            String[] aliasPorts = t.split("=");
            String[] ports = aliasPorts[1].split(":");
            targets.put(aliasPorts[0], new int[] {Integer.parseInt(ports[0]), Integer.parseInt(ports[1])});
        }
        int threads = Integer.parseInt(a.get("--threads"));
        long seed = Long.parseLong(a.get("--seed"));
        long interval = (long) (1e9 * threads / Double.parseDouble(a.get("--rate")));
        try (BufferedWriter w = Files.newBufferedWriter(Path.of(a.get("--out")), StandardCharsets.UTF_8)) {
            LoadClient c = new LoadClient(targets, w, Path.of(a.get("--stop")),
                    Long.parseLong(a.get("--deadline-nanos")), Long.parseLong(a.get("--max-requests")), interval);
            List<Thread> running = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                SplittableRandom random = new SplittableRandom(seed * 1_000 + i);
                Thread t = new Thread(() -> c.run(random), "load-" + i);
                t.start();
                running.add(t);
            }
            for (Thread t : running) {
                t.join();
            }
            System.out.println("load client " + seed + ": " + c.sent.get() + " requests, " + new TreeMap<>(
                    c.outcomes));
        }
    }

    private void run(SplittableRandom random) {
        long next = System.nanoTime();
        while (System.nanoTime() < deadlineNanos && sent.incrementAndGet() <= maxRequests && !Files.exists(stop)) {
            long now = System.nanoTime();
            if (next > now) {
                sleep(next - now);
            } else if (now - next > 1_000_000_000L) {
                next = now; // far behind (the machine stalled): no burst to catch up
            }
            next += intervalNanos;
            String alias = aliases.get(random.nextInt(aliases.size()));
            Workload.Request r = Workload.next(random);
            line(r.filter() ? filter(alias, r) : api(alias, r));
        }
    }

    private String api(String alias, Workload.Request r) {
        String key = Workload.gridKey(r.value());
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + targets.get(alias)[0]
                        + "/v1/ratelimit/check")).timeout(TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"policy\":\"" + r.policy() + "\",\"key\":\"" + key
                        + "\",\"cost\":" + r.cost() + "}")).build();
        long sentNanos = System.nanoTime();
        try {
            HttpResponse<String> a = http.send(request, HttpResponse.BodyHandlers.ofString());
            long answered = System.nanoTime();
            if (a.statusCode() == 200) {
                Matcher m = ALLOWED.matcher(a.body());
                Matcher reset = RESET.matcher(a.body());
                if (m.find()) {
                    return count("api 200", History.decisionLine(r.policy(), key, r.cost(), sentNanos, answered,
                            Boolean.parseBoolean(m.group(1)), alias, "grid", "api",
                            reset.find() ? Long.valueOf(reset.group(1)) : null));
                }
            } else if (a.statusCode() == 503) {
                return count("api 503", History.decisionLine(r.policy(), key, r.cost(), sentNanos, answered, false,
                        alias, "closed", "api"));
            }
            return unknown("api " + a.statusCode(), r, key, sentNanos, alias, "api");
        } catch (IOException e) {
            return unknown("api no answer", r, key, sentNanos, alias, "api");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unknown("api interrupted", r, key, sentNanos, alias, "api");
        }
    }

    private String filter(String alias, Workload.Request r) {
        String key = Workload.gridKey(r.value());
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + targets.get(alias)[1]
                + "/nemesis/" + r.policy())).timeout(TIMEOUT).header(Workload.KEY_HEADER, r.value()).GET().build();
        long sentNanos = System.nanoTime();
        try {
            HttpResponse<String> a = http.send(request, HttpResponse.BodyHandlers.ofString());
            long answered = System.nanoTime();
            int status = a.statusCode();
            if (status == 503) {
                return count("filter 503", History.decisionLine(r.policy(), key, r.cost(), sentNanos, answered,
                        false, alias, "closed", "filter"));
            }
            if (status >= 500 || status == 400) {
                return unknown("filter " + status, r, key, sentNanos, alias, "filter");
            }
            String policyHeader = a.headers().firstValue("RateLimit-Policy").orElse(null);
            String source = policyHeader == null ? "open" : Workload.fromGrid(policyHeader) ? "grid" : "local";
            if (status == 429 && source.equals("open")) {
                return unknown("filter 429 without RateLimit-Policy", r, key, sentNanos, alias, "filter");
            }
            return count("filter " + status + " " + source, History.decisionLine(r.policy(), key, r.cost(), sentNanos,
                    answered, status != 429, alias, source, "filter"));
        } catch (IOException e) {
            return unknown("filter no answer", r, key, sentNanos, alias, "filter");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unknown("filter interrupted", r, key, sentNanos, alias, "filter");
        }
    }

    private String unknown(String outcome, Workload.Request r, String key, long sentNanos, String alias,
                           String door) {
        return count(outcome, History.decisionLine(r.policy(), key, r.cost(), sentNanos, System.nanoTime(), null,
                alias, "none", door));
    }

    private String count(String outcome, String line) {
        outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
        return line;
    }

    private void line(String line) {
        synchronized (out) {
            try {
                out.write(line);
                out.write('\n');
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
