package io.gridlimit.nemesis;

import io.gridlimit.cluster.ServiceCluster;
import io.gridlimit.nemesis.check.History;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Injects faults into a {@link ServiceCluster} one at a time and records each as a history line
 * ({@link History#faultLine}): it waits until the cluster is whole (every member up, seeing every other, ready) before
 * the next, so that no state loses every copy (one backup, docs/SPEC.md §8) unless a fault itself allows it.
 *
 * <ul>
 *   <li>{@code kill}: SIGKILL a member, start a new one under its alias (its published ports kept).</li>
 *   <li>{@code pause}: freeze a member (cgroup freezer) for longer than {@code hazelcast.max.no.heartbeat.seconds}
 *       (3 to 6 s more), so the others drop it, then thaw it.</li>
 *   <li>{@code partition}: cut a member's member-to-member network (it keeps its published ports, so clients reach
 *       both sides) for 3 to 7 s past the heartbeat timeout, then reconnect it; the sides merge.</li>
 *   <li>{@code clock}: step a member's wall clock (libfaketime) by 1 s to just under half the heartbeat timeout,
 *       forward or back, for 3 to 6 s, then back to the host's.</li>
 * </ul>
 * While no fault is being injected, an observer polls every member's view once a second: a member that sees fewer
 * members than are up (an accidental split, e.g. a JVM stalled past the heartbeat timeout on a loaded machine) is
 * recorded as a fault of kind {@code split}, from the heartbeat timeout before it was first seen until the cluster
 * was whole again, so that the checker applies the split-brain bound there (SPEC §15). Faults' start, heal and end
 * are on {@code System.nanoTime()}. The schedule is drawn from the seed. Not thread-safe, except that the observer
 * runs beside it.
 */
final class Nemesis implements AutoCloseable {
    /** The fault kinds this nemesis injects. */
    static final List<String> KINDS = List.of("kill", "pause", "partition", "clock");
    private static final long WHOLE_TIMEOUT_NANOS = 240_000_000_000L;

    private final ServiceCluster cluster;
    private final List<String> aliases;
    private final Random random;
    private final int maxNoHeartbeatSeconds;
    private final List<String> lines = new ArrayList<>();
    private final Object lock = new Object();
    private final Thread observer;
    private volatile boolean closed;
    private boolean busy;
    private long lastWholeNanos = System.nanoTime();
    private long splitSinceNanos = -1;
    private final TreeSet<String> splitTargets = new TreeSet<>();

    /**
     * @param cluster the running cluster, every alias up
     * @param aliases its aliases
     * @param seed the schedule's seed
     * @param maxNoHeartbeatSeconds the members' {@code hazelcast.max.no.heartbeat.seconds}
     */
    Nemesis(ServiceCluster cluster, List<String> aliases, long seed, int maxNoHeartbeatSeconds) {
        this.cluster = cluster;
        this.aliases = List.copyOf(aliases);
        this.random = new Random(seed);
        this.maxNoHeartbeatSeconds = maxNoHeartbeatSeconds;
        this.observer = new Thread(this::observe, "nemesis-observer");
        observer.setDaemon(true);
        observer.start();
    }

    /** @return the fault lines so far (injected and observed) */
    List<String> lines() {
        synchronized (lock) {
            return List.copyOf(lines);
        }
    }

    /**
     * Injects one fault and waits until the cluster is whole again.
     *
     * @param kind one of {@link #KINDS}
     * @return the fault's line
     * @throws IllegalStateException if the cluster is not whole again within 4 minutes
     */
    String inject(String kind) throws InterruptedException {
        synchronized (lock) {
            busy = true;
        }
        awaitWhole();
        closeObservedSplit();
        String target = aliases.get(random.nextInt(aliases.size()));
        ServiceCluster.Member m = member(target);
        long start = System.nanoTime();
        long heal;
        long step = 0;
        switch (kind) {
            case "kill" -> {
                cluster.kill(m);
                heal = System.nanoTime();
                cluster.start(target);
            }
            case "pause" -> {
                cluster.pause(m);
                Thread.sleep((maxNoHeartbeatSeconds + 3 + random.nextInt(4)) * 1000L);
                cluster.unpause(m);
                heal = System.nanoTime();
            }
            case "partition" -> {
                cluster.disconnect(m);
                Thread.sleep((maxNoHeartbeatSeconds + 3 + random.nextInt(5)) * 1000L);
                cluster.reconnect(m);
                heal = System.nanoTime();
            }
            case "clock" -> {
                long seconds = 1 + random.nextInt(Math.max(1, (maxNoHeartbeatSeconds - 1) / 2 - 1));
                step = seconds * 1_000_000_000L;
                cluster.stepClock(m, random.nextBoolean() ? seconds : -seconds);
                Thread.sleep((3 + random.nextInt(4)) * 1000L);
                cluster.stepClock(m, 0);
                heal = System.nanoTime();
                Thread.sleep(2_000); // libfaketime re-reads its file within a second
            }
            default -> throw new IllegalArgumentException("unknown fault kind '" + kind + "': one of " + KINDS);
        }
        awaitWhole();
        String line = History.faultLine(kind, target, start, heal, System.nanoTime(), step);
        synchronized (lock) {
            lines.add(line);
            busy = false;
            lastWholeNanos = System.nanoTime();
        }
        return line;
    }

    private ServiceCluster.Member member(String alias) {
        return cluster.members.stream().filter(x -> x.alias.equals(alias)).findFirst()
                .orElseThrow(() -> new IllegalStateException(alias + " is not running"));
    }

    /** Waits until every alias is up, sees every other and is ready. */
    void awaitWhole() throws InterruptedException {
        long deadline = System.nanoTime() + WHOLE_TIMEOUT_NANOS;
        while (!whole()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster was not whole again within 4 minutes: "
                        + cluster.describe());
            }
            Thread.sleep(500);
        }
    }

    private boolean whole() {
        if (cluster.members.size() != aliases.size()) {
            return false;
        }
        for (ServiceCluster.Member m : cluster.members) {
            if (cluster.membersSeenBy(m) != aliases.size() || !cluster.ready(m)) {
                return false;
            }
        }
        return true;
    }

    private void observe() {
        while (!closed) {
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
            synchronized (lock) {
                if (busy || closed) {
                    continue;
                }
                long now = System.nanoTime();
                List<String> fewer = new ArrayList<>();
                for (ServiceCluster.Member m : cluster.members) {
                    int seen = cluster.membersSeenBy(m);
                    if (seen >= 0 && seen < cluster.members.size()) {
                        fewer.add(m.alias);
                    }
                }
                if (!fewer.isEmpty()) {
                    if (splitSinceNanos < 0) {
                        splitSinceNanos = lastWholeNanos - maxNoHeartbeatSeconds * 1_000_000_000L;
                        System.out.println("nemesis: accidental split seen by " + fewer + ": " + cluster.describe());
                    }
                    splitTargets.addAll(fewer);
                } else {
                    closeObservedSplit();
                    lastWholeNanos = now;
                }
            }
        }
    }

    /** Records the accidental split seen so far, if any, as ended now. Caller holds the lock or is the nemesis. */
    private void closeObservedSplit() {
        synchronized (lock) {
            if (splitSinceNanos >= 0) {
                long now = System.nanoTime();
                lines.add(History.faultLine("split", String.join("+", splitTargets), splitSinceNanos, now, now, 0));
                splitSinceNanos = -1;
                splitTargets.clear();
            }
        }
    }

    /** Stops the observer, recording an accidental split still open. */
    @Override
    public void close() {
        closed = true;
        observer.interrupt();
        try {
            observer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeObservedSplit();
    }
}
