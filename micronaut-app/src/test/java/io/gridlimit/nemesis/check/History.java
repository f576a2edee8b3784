package io.gridlimit.nemesis.check;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A nemesis history (bench/README.md, "Nemesis"): JSON lines, the one home of their format, read here and written
 * by the load clients and the nemesis through the {@code *Line} methods.
 *
 * <ul>
 *   <li>First line: {@code {"policies": {"<name>": <the admin API's policy body>, ...}, "run": {...}}};
 *       {@code run} is optional, see {@link Run}.</li>
 *   <li>A decision: {@code {"policy", "key", "cost", "sentNanos", "answeredNanos", "admitted", "replica",
 *       "source"}} (and optionally {@code "door"}: {@code api} or {@code filter}). {@code admitted} is
 *       {@code true}, {@code false}, or {@code null} when no answer came (the outcome is unknown: it may have
 *       consumed, it is never counted as admitted). {@code source}: {@code grid}, {@code local} (the replica's
 *       share, SPEC §5), {@code open} (admitted without a limit), {@code closed} (answered 503: nothing
 *       admitted), or {@code none} with {@code admitted: null}. Optionally {@code "resetAfterMillis"}: the
 *       decision API's answer, from which the checker measures how far the owner's reading was from the
 *       decision's interval (a fixed window's resetAfter is its window's end less the reading, SPEC §3).</li>
 *   <li>A fault: {@code {"fault": "<kind>", "target": "<replica>", "startNanos", "endNanos"}}, kind one of
 *       {@link #FAULT_KINDS}; {@code endNanos} is when the cluster was whole again (every member up, seeing every
 *       other, ready). Optional: {@code healNanos} (when the nemesis thawed, reconnected or restarted), and for
 *       {@code clock} the required {@code stepNanos}, the size of the step (forward and back).</li>
 * </ul>
 * Times are nanoseconds on one clock for every client: the host's monotonic clock ({@code System.nanoTime()},
 * which on Linux is {@code CLOCK_MONOTONIC}, shared by every process of the host).
 *
 * @param run the run's settings
 * @param policies the policies by name
 * @param decisions every decision line, in file order
 * @param faults every fault line, in file order
 */
public record History(Run run, Map<String, PolicyModel> policies, List<Decision> decisions, List<Fault> faults) {
    /** The fault kinds the checker knows a bound for (docs/SPEC.md §15). */
    public static final Set<String> FAULT_KINDS = Set.of("kill", "pause", "partition", "clock", "slow", "split");
    /** The decision sources. */
    public static final Set<String> SOURCES = Set.of("grid", "local", "open", "closed", "none");

    /**
     * The settings of the run that the bounds depend on, from the first line's {@code run} member (each optional).
     *
     * @param expectedReplicas {@code expectedReplicas}: N of SPEC §5's share (default 3)
     * @param backups {@code backups}: the policy maps' backup count (default 1)
     * @param minClusterSize {@code minClusterSize}: {@code gridlimit.hazelcast.min-cluster-size} (default 0: off)
     * @param replicas {@code replicas}: the replicas' names (default: those the decisions name)
     * @param leaseReplicas {@code leaseReplicas}: the replicas with quota leases on (default none)
     * @param leaseCapacityShare {@code leaseCapacityShare}: {@code gridlimit.leases.capacity-share} (default 10)
     * @param maxNoHeartbeatNanos {@code maxNoHeartbeatNanos}: {@code hazelcast.max.no.heartbeat.seconds} (default
     *     60 s): how long a minority side decides before it notices the split
     * @param heartbeatNanos {@code heartbeatNanos}: {@code hazelcast.heartbeat.interval.seconds} (default 5 s)
     * @param readingBehindNanos {@code readingBehindNanos}: how far a grid decision's reading (cluster time) may lie
     *     before its sent time on the host's clock (default 500 ms, docs/SPEC.md §15: a member's cluster time lags
     *     the master's clock by the delivery time of the master's last heartbeat)
     * @param readingAheadNanos {@code readingAheadNanos}: how far after its answered time (default 2 ms)
     * @param clockStepLagNanos {@code clockStepLagNanos}: how long a clock fault's step takes to reach the member's
     *     JVM, and to be undone (default 2 s: libfaketime re-reads its offset once a second)
     * @param epochMinusNanoTime {@code epochMinusNanoTime}: epoch nanoseconds minus the history's clock, to align
     *     windows to epoch 0 (default 0)
     * @param info every member of {@code run}, as read (for the report)
     */
    public record Run(long expectedReplicas, int backups, int minClusterSize, List<String> replicas,
                      Set<String> leaseReplicas, long leaseCapacityShare, long maxNoHeartbeatNanos,
                      long heartbeatNanos, long readingBehindNanos, long readingAheadNanos,
                      long clockStepLagNanos, long epochMinusNanoTime,
                      Map<String, Object> info) {
        static Run of(Map<String, Object> m) {
            return new Run(longOr(m, "expectedReplicas", 3), (int) longOr(m, "backups", 1),
                    (int) longOr(m, "minClusterSize", 0), strings(m, "replicas"),
                    Set.copyOf(strings(m, "leaseReplicas")), longOr(m, "leaseCapacityShare", 10),
                    longOr(m, "maxNoHeartbeatNanos", 60_000_000_000L), longOr(m, "heartbeatNanos", 5_000_000_000L),
                    longOr(m, "readingBehindNanos", 500_000_000L), longOr(m, "readingAheadNanos", 2_000_000L),
                    longOr(m, "clockStepLagNanos", 2_000_000_000L), longOr(m, "epochMinusNanoTime", 0), m);
        }

        /** @return true when split-brain protection stops a minority side once it notices (a strict majority) */
        boolean protectsMinority() {
            int members = Math.max(replicas.size(), 1);
            return minClusterSize > members / 2;
        }
    }

    /**
     * One decision.
     *
     * @param line the line number in the file (from 1)
     * @param policy the policy name
     * @param key the grid key
     * @param cost the cost, >= 1
     * @param sentNanos when the request left the client
     * @param answeredNanos when its answer was read, >= sentNanos
     * @param admitted true, false, or null (no answer)
     * @param replica the replica asked
     * @param source grid, local, open, closed or none
     * @param door api or filter, or null
     * @param resetAfterMillis the decision API's {@code resetAfterMillis}, or null
     */
    public record Decision(int line, String policy, String key, long cost, long sentNanos, long answeredNanos,
                           Boolean admitted, String replica, String source, String door, Long resetAfterMillis) {
    }

    /**
     * One fault.
     *
     * @param line the line number in the file
     * @param kind one of {@link #FAULT_KINDS}
     * @param target the replica it was injected on
     * @param startNanos when it began
     * @param endNanos when the cluster was whole again
     * @param healNanos when the nemesis undid it (thaw, reconnect, restart), or {@code endNanos}
     * @param stepNanos for {@code clock}, the step's size, > 0; else 0
     */
    public record Fault(int line, String kind, String target, long startNanos, long endNanos, long healNanos,
                        long stepNanos) {
    }

    /**
     * Reads a history file.
     *
     * @param file the file
     * @return the history
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the line for a malformed or inconsistent line
     */
    public static History read(Path file) throws IOException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(r, file.toString());
        }
    }

    /**
     * Reads a history.
     *
     * @param reader its lines
     * @param name what to call it in errors
     * @return the history
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the line for a malformed or inconsistent line
     */
    @SuppressWarnings("unchecked")
    public static History read(BufferedReader reader, String name) throws IOException {
        Map<String, PolicyModel> policies = null;
        Run run = null;
        List<Decision> decisions = new ArrayList<>();
        List<Fault> faults = new ArrayList<>();
        String text;
        int n = 0;
        while ((text = reader.readLine()) != null) {
            n++;
            if (text.isBlank()) {
                continue;
            }
            String where = name + ":" + n;
            Map<String, Object> m;
            try {
                m = Json.object(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
            try {
                if (policies == null) {
                    if (!(m.get("policies") instanceof Map<?, ?> bodies)) {
                        throw new IllegalArgumentException("the first line must be {\"policies\": {...}}");
                    }
                    policies = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : bodies.entrySet()) {
                        if (!(e.getValue() instanceof Map)) {
                            throw new IllegalArgumentException("policy '" + e.getKey() + "' must be an object");
                        }
                        policies.put((String) e.getKey(),
                                PolicyModel.of((String) e.getKey(), (Map<String, Object>) e.getValue()));
                    }
                    run = Run.of(m.get("run") instanceof Map<?, ?> r ? (Map<String, Object>) r : Map.of());
                } else if (m.containsKey("fault")) {
                    faults.add(fault(n, m));
                } else if (m.containsKey("policy")) {
                    decisions.add(decision(n, m, policies));
                } else {
                    throw new IllegalArgumentException("neither a decision (\"policy\") nor a fault (\"fault\")");
                }
            } catch (IllegalArgumentException | ClassCastException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
        }
        if (policies == null) {
            throw new IllegalArgumentException(name + ": empty history (no policies line)");
        }
        return new History(run, policies, decisions, faults);
    }

    private static Decision decision(int n, Map<String, Object> m, Map<String, PolicyModel> policies) {
        String policy = string(m, "policy");
        if (!policies.containsKey(policy)) {
            throw new IllegalArgumentException("policy '" + policy + "' is not in the first line's policies");
        }
        long sent = number(m, "sentNanos");
        long answered = number(m, "answeredNanos");
        if (answered < sent) {
            throw new IllegalArgumentException("answeredNanos " + answered + " is before sentNanos " + sent);
        }
        long cost = number(m, "cost");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, got " + cost);
        }
        if (!m.containsKey("admitted")) {
            throw new IllegalArgumentException("admitted is missing (true, false or null)");
        }
        Object admitted = m.get("admitted");
        if (admitted != null && !(admitted instanceof Boolean)) {
            throw new IllegalArgumentException("admitted must be true, false or null");
        }
        String source = string(m, "source");
        if (!SOURCES.contains(source)) {
            throw new IllegalArgumentException("source '" + source + "' is none of " + SOURCES);
        }
        if ((admitted == null) != source.equals("none")) {
            throw new IllegalArgumentException("admitted null goes with source none, and only with it");
        }
        Long reset = m.containsKey("resetAfterMillis") ? number(m, "resetAfterMillis") : null;
        return new Decision(n, policy, string(m, "key"), cost, sent, answered, (Boolean) admitted,
                string(m, "replica"), source, m.get("door") instanceof String d ? d : null, reset);
    }

    private static Fault fault(int n, Map<String, Object> m) {
        String kind = string(m, "fault");
        if (!FAULT_KINDS.contains(kind)) {
            throw new IllegalArgumentException("fault '" + kind + "' is none of " + FAULT_KINDS
                    + ": the checker knows no bound for it");
        }
        long start = number(m, "startNanos");
        long end = number(m, "endNanos");
        if (end < start) {
            throw new IllegalArgumentException("endNanos is before startNanos");
        }
        long heal = m.containsKey("healNanos") ? number(m, "healNanos") : end;
        long step = m.containsKey("stepNanos") ? number(m, "stepNanos") : 0;
        if (kind.equals("clock") && step <= 0) {
            throw new IllegalArgumentException("a clock fault needs stepNanos > 0 (the size of the step)");
        }
        return new Fault(n, kind, string(m, "target"), start, end, heal, step);
    }

    /**
     * @return the first line: the policies' bodies and the run's settings
     */
    public static String headerLine(Map<String, Object> policyBodies, Map<String, Object> run) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policies", policyBodies);
        m.put("run", run);
        return Json.write(m);
    }

    /** @return a decision line (see the class comment); {@code admitted} null with source {@code none} */
    public static String decisionLine(String policy, String key, long cost, long sentNanos, long answeredNanos,
                                      Boolean admitted, String replica, String source, String door) {
        return decisionLine(policy, key, cost, sentNanos, answeredNanos, admitted, replica, source, door, null);
    }

    /** @return a decision line with the decision API's {@code resetAfterMillis} (left out when null) */
    public static String decisionLine(String policy, String key, long cost, long sentNanos, long answeredNanos,
                                      Boolean admitted, String replica, String source, String door,
                                      Long resetAfterMillis) {
        return "{\"policy\":" + Json.quote(policy) + ",\"key\":" + Json.quote(key) + ",\"cost\":" + cost
                + ",\"sentNanos\":" + sentNanos + ",\"answeredNanos\":" + answeredNanos + ",\"admitted\":" + admitted
                + ",\"replica\":" + Json.quote(replica) + ",\"source\":" + Json.quote(source) + ",\"door\":"
                + Json.quote(door) + (resetAfterMillis == null ? "" : ",\"resetAfterMillis\":" + resetAfterMillis)
                + "}";
    }

    /** @return a fault line; {@code stepNanos} only for clock faults (0 leaves it out) */
    public static String faultLine(String kind, String target, long startNanos, long healNanos, long endNanos,
                                   long stepNanos) {
        return "{\"fault\":" + Json.quote(kind) + ",\"target\":" + Json.quote(target) + ",\"startNanos\":"
                + startNanos + ",\"healNanos\":" + healNanos + ",\"endNanos\":" + endNanos
                + (stepNanos > 0 ? ",\"stepNanos\":" + stepNanos : "") + "}";
    }

    private static String string(Map<String, Object> m, String member) {
        if (!(m.get(member) instanceof String s)) {
            throw new IllegalArgumentException(member + " must be a string");
        }
        return s;
    }

    private static long number(Map<String, Object> m, String member) {
        if (!(m.get(member) instanceof Long v)) {
            throw new IllegalArgumentException(member + " must be an integer");
        }
        return v;
    }

    private static long longOr(Map<String, Object> m, String member, long otherwise) {
        Object v = m.get(member);
        if (v == null) {
            return otherwise;
        }
        if (!(v instanceof Long l)) {
            throw new IllegalArgumentException("run." + member + " must be an integer");
        }
        return l;
    }

    private static List<String> strings(Map<String, Object> m, String member) {
        Object v = m.get(member);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l) || !l.stream().allMatch(x -> x instanceof String)) {
            throw new IllegalArgumentException("run." + member + " must be an array of strings");
        }
        return l.stream().map(x -> (String) x).toList();
    }
}
