package io.gridlimit.nemesis;

import io.gridlimit.cluster.ServiceCluster;
import io.gridlimit.nemesis.check.Checker;
import io.gridlimit.nemesis.check.History;
import io.gridlimit.nemesis.check.Report;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One nemesis run (issue 25; bench/README.md, "Nemesis"): three service replicas in containers
 * ({@link ServiceCluster}), load from several {@link LoadClient} processes, a {@link Nemesis} injecting a seeded
 * random schedule of faults meanwhile, every decision and fault in one history file, and the {@link Checker}'s
 * {@link Report} on it. Replica {@code m1} has quota leases on (capacity share 2, 4 units per window to lease), the
 * others not; every replica runs the service's defaults otherwise ({@code failure-mode: local},
 * {@code grid-timeout: 100ms}, three expected replicas, one synchronous backup). Not thread-safe.
 *
 * @param minutes at least this many minutes of load; faults are injected until 30 s before its end, and in any case
 *     until every kind has been injected once
 * @param seed the seed of the fault schedule and the load
 * @param kinds the fault kinds to inject, each of {@link Nemesis#KINDS}
 * @param history the history file to write
 * @param clients load client processes
 * @param threadsPerClient threads per client process
 * @param rate requests per second of all clients together
 * @param maxNoHeartbeatSeconds the members' {@code hazelcast.max.no.heartbeat.seconds}
 * @param minClusterSize {@code gridlimit.hazelcast.min-cluster-size} (0: off)
 * @param faketime the host's {@code libfaketime.so.1} (needed for {@code clock}), or null
 */
record NemesisRun(double minutes, long seed, List<String> kinds, Path history, int clients, int threadsPerClient,
                  int rate, int maxNoHeartbeatSeconds, int minClusterSize, Path faketime) {
    static final List<String> ALIASES = List.of("m1", "m2", "m3");

    /**
     * Runs it: starts the cluster, the clients and the nemesis, writes the history and checks it.
     *
     * @return the report (also printed, and written to {@code <history>.report.txt})
     * @throws Exception if the cluster cannot be started or healed, a client fails, or the history cannot be written
     */
    Report run() throws Exception {
        if (kinds.contains("clock") && faketime == null) {
            throw new IllegalStateException("clock faults need libfaketime: install Debian's libfaketime and set "
                    + "nemesis.faketime to its libfaketime.so.1");
        }
        Path work = Files.createDirectories(history.toAbsolutePath().getParent().resolve(
                history.getFileName() + ".work"));
        Map<String, Map<String, String>> env = new LinkedHashMap<>();
        for (String alias : ALIASES) {
            Map<String, String> e = new LinkedHashMap<>();
            if (minClusterSize > 0) {
                e.put("GRIDLIMIT_HAZELCAST_MIN_CLUSTER_SIZE", Integer.toString(minClusterSize));
            }
            if (alias.equals("m1")) {
                e.put("GRIDLIMIT_LEASES_ENABLED", "true");
                e.put("GRIDLIMIT_LEASES_CAPACITY_SHARE", "2");
                e.put("GRIDLIMIT_LEASES_MIN_UNITS", "4");
            }
            env.put(alias, e);
        }
        ServiceCluster.Options options = new ServiceCluster.Options(true, kinds.contains("clock") ? faketime : null,
                env, work);
        long started = System.nanoTime();
        try (ServiceCluster cluster = new ServiceCluster(Workload.serviceConfig(), ALIASES,
                ServiceCluster.hazelcastTiming(maxNoHeartbeatSeconds), options)) {
            for (String alias : ALIASES) {
                cluster.start(alias);
            }
            try (Nemesis nemesis = new Nemesis(cluster, ALIASES, seed, maxNoHeartbeatSeconds)) {
                nemesis.awaitWhole();
                System.out.printf("nemesis: cluster up after %d s%n", seconds(System.nanoTime() - started));
                long epochMinusNanoTime = epochMinusNanoTime();
                List<Process> load = startClients(cluster, work);
                long loadStart = System.nanoTime();
                long loadEnd = loadStart + (long) (minutes * 60e9);
                try {
                    schedule(nemesis, loadEnd);
                    while (System.nanoTime() < loadEnd) {
                        Thread.sleep(200);
                    }
                } catch (Exception | AssertionError e) {
                    System.out.println("nemesis failed: " + e + "; members: " + cluster.describe());
                    cluster.dumpLogs();
                    throw e;
                } finally {
                    stopClients(load, work);
                }
                nemesis.close();
                writeHistory(work, nemesis.lines(), epochMinusNanoTime);
            }
        }
        Report report = new Report().add(history.toString(), Checker.check(History.read(history)));
        String text = report.toString();
        System.out.print(text);
        Files.writeString(Path.of(history + ".report.txt"), text, StandardCharsets.UTF_8);
        return report;
    }

    /** Faults in a seeded order, each kind in turn, until 30 s before the load's end and every kind was injected. */
    private void schedule(Nemesis nemesis, long loadEnd) throws InterruptedException {
        Random r = new Random(seed);
        List<String> order = new ArrayList<>();
        Thread.sleep(5_000); // a few seconds of load before the first fault
        int injected = 0;
        while (injected < kinds.size() || System.nanoTime() < loadEnd - 30_000_000_000L) {
            if (order.isEmpty()) {
                order.addAll(kinds);
                java.util.Collections.shuffle(order, r);
            }
            String kind = order.remove(0);
            long t = System.nanoTime();
            String line = nemesis.inject(kind);
            injected++;
            System.out.printf("nemesis: %s in %d s: %s%n", kind, seconds(System.nanoTime() - t), line);
            Thread.sleep(1_000 + r.nextInt(3_000));
        }
    }

    private List<Process> startClients(ServiceCluster cluster, Path work) throws IOException {
        StringBuilder targets = new StringBuilder();
        for (String alias : ALIASES) {
            int[] ports = cluster.hostPorts(alias);
            targets.append(targets.length() == 0 ? "" : ",").append(alias).append('=').append(ports[0]).append(':')
                    .append(ports[1]);
        }
        Path classes;
        try {
            classes = Path.of(LoadClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Files.deleteIfExists(work.resolve("stop"));
        long capSeconds = (long) (minutes * 60) + 600; // faults may outlast the minutes: bounded all the same
        long deadline = System.nanoTime() + capSeconds * 1_000_000_000L;
        List<Process> out = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classes.toString(),
                    LoadClient.class.getName(), "--out", work.resolve("client-" + i + ".jsonl").toString(),
                    "--seed", Long.toString(seed * 100 + i), "--threads", Integer.toString(threadsPerClient),
                    "--rate", Double.toString((double) rate / clients), "--deadline-nanos", Long.toString(deadline),
                    "--max-requests", Long.toString(rate * capSeconds), "--stop", work.resolve("stop").toString(),
                    "--targets", targets.toString())
                    .redirectOutput(work.resolve("client-" + i + ".out").toFile())
                    .redirectError(work.resolve("client-" + i + ".err").toFile());
            out.add(pb.start());
        }
        return out;
    }

    private static void stopClients(List<Process> load, Path work) throws IOException, InterruptedException {
        Files.writeString(work.resolve("stop"), "stop\n");
        for (Process p : load) {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("a load client did not stop within 60 s of the stop file");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("a load client failed (exit " + p.exitValue() + "): see " + work);
            }
        }
    }

    private void writeHistory(Path work, List<String> faults, long epochMinusNanoTime) throws IOException {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("seed", seed);
        run.put("minutes", Double.toString(minutes));
        run.put("kinds", List.copyOf(kinds));
        run.put("expectedReplicas", 3L);
        run.put("backups", 1L);
        run.put("minClusterSize", (long) minClusterSize);
        run.put("replicas", ALIASES);
        run.put("leaseReplicas", List.of("m1"));
        run.put("leaseCapacityShare", 2L);
        run.put("maxNoHeartbeatNanos", maxNoHeartbeatSeconds * 1_000_000_000L);
        run.put("heartbeatNanos", 1_000_000_000L);
        run.put("readingBehindNanos", 500_000_000L);
        run.put("readingAheadNanos", 2_000_000L);
        run.put("clockStepLagNanos", 2_000_000_000L);
        run.put("epochMinusNanoTime", epochMinusNanoTime);
        try (var w = Files.newBufferedWriter(history, StandardCharsets.UTF_8)) {
            w.write(History.headerLine(Workload.policyBodies(), run));
            w.write('\n');
            for (int i = 0; i < clients; i++) {
                for (String line : Files.readAllLines(work.resolve("client-" + i + ".jsonl"))) {
                    w.write(line);
                    w.write('\n');
                }
            }
            for (String line : faults) {
                w.write(line);
                w.write('\n');
            }
        }
    }

    /** Epoch nanoseconds minus {@code System.nanoTime()}, read back to back. */
    private static long epochMinusNanoTime() {
        Instant now = Instant.now();
        long nano = System.nanoTime();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano() - nano;
    }

    private static long seconds(long nanos) {
        return TimeUnit.NANOSECONDS.toSeconds(nanos);
    }
}
