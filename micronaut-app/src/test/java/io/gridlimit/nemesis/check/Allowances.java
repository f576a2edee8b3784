package io.gridlimit.nemesis.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the faults of a run add to one stream's exact bound (docs/SPEC.md §15), for the checks of
 * {@link BandChecks}. A stream is the decisions of one key taken by the grid, or by one incarnation of one replica's
 * local share (SPEC §5); times are the checker's relative nanoseconds.
 *
 * <p>Each fault becomes an {@link Extra}: the allowance it adds to any checked window or interval that overlaps its
 * span, and, for a split, the time its extra side decides (refill is counted once more over that time):
 * <ul>
 *   <li>{@code partition}, {@code pause}, {@code split} (grid streams): each side beyond the first is an exact
 *       limiter of its own that may start full (its copy, or a fresh state where it holds no copy), so each adds
 *       one quota plus the refill of the time it decides. Without split-brain protection that time is the fault's
 *       whole span; with {@code min-cluster-size} a strict majority, the minority decides only until it notices,
 *       {@code maxNoHeartbeatNanos + 2 · heartbeatNanos} after the cut (a pause: after the thaw).</li>
 *   <li>{@code clock} (a step of {@code stepNanos} forward and back): on a grid stream up to two forward jumps of
 *       cluster time (the stepped member, then Hazelcast's master heartbeat correcting it), each refilling
 *       {@code R·step/P} and ending leases early (their holders' unused units, SPEC §13), or opening one more
 *       window; on the stepped replica's local stream one jump. The span reaches {@code clockStepLagNanos} plus (grid)
 *       two heartbeats past the step back.</li>
 *   <li>{@code kill}: nothing, unless more members were down at once than there are backups: then a state may be
 *       lost with every copy and start fresh (one quota).</li>
 *   <li>{@code slow}: nothing.</li>
 * </ul>
 * Not thread-safe.
 */
final class Allowances {
    /**
     * One fault's (or one give-back's) allowance.
     *
     * @param kind the fault kind, or {@code give-back}
     * @param line the history line it came from
     * @param spanStart the first instant a checked window must reach for it to apply
     * @param spanEnd the last instant
     * @param sides extra sides deciding (splits), else 0
     * @param jumps forward clock jumps, else 0
     * @param stepNanos the size of each jump
     * @param fresh true when a state may have been lost and restarted fresh
     * @param cost a give-back's cost (lost-state checks only), else 0
     */
    record Extra(String kind, int line, long spanStart, long spanEnd, int sides, int jumps, long stepNanos,
                 boolean fresh, long cost) {
        /** @return the allowance in a window band's units (limit L), for a band of quota {@code quota} */
        long windowUnits(long quota) {
            return Math.addExact(Math.multiplyExact(sides + jumps + (fresh ? 1 : 0), quota), cost);
        }

        /**
         * @param capacity C
         * @param r the refill tokens, reduced with {@code p}
         * @param p the period in nanoseconds, reduced with {@code r}
         * @param leaseUnits the units a jump may free from leases
         * @return the allowance in tokens × p
         */
        long bucketScaled(long capacity, long r, long p, long leaseUnits) {
            long jump = Math.addExact(Math.multiplyExact(r, stepNanos), Math.multiplyExact(p, leaseUnits));
            long quotas = Math.multiplyExact(p, Math.addExact(Math.multiplyExact(sides, capacity), fresh
                    ? capacity : 0));
            return Math.addExact(Math.addExact(quotas, Math.multiplyExact(jumps, jump)),
                    Math.multiplyExact(p, cost));
        }
    }

    private final List<Extra> extras;
    private final long[] decideFrom;
    private final long[] decideTo;
    private final int[] decideSides;

    private Allowances(List<Extra> extras) {
        this.extras = extras.stream().sorted(Comparator.comparingLong(Extra::spanStart)).toList();
        List<Extra> splits = extras.stream().filter(x -> x.sides() > 0).toList();
        decideFrom = new long[splits.size()];
        decideTo = new long[splits.size()];
        decideSides = new int[splits.size()];
        for (int i = 0; i < splits.size(); i++) {
            decideFrom[i] = splits.get(i).spanStart();
            decideTo[i] = splits.get(i).spanEnd();
            decideSides[i] = splits.get(i).sides();
        }
    }

    /**
     * The allowances of a grid stream.
     *
     * @param faults every fault of the run (relative times)
     * @param run the run's settings
     * @return the allowances
     */
    static Allowances grid(List<History.Fault> faults, History.Run run) {
        List<Extra> out = new ArrayList<>();
        long detect = run.maxNoHeartbeatNanos() + 2 * run.heartbeatNanos();
        long behind = run.readingBehindNanos();
        long clockSpan = run.clockStepLagNanos() + 2 * run.heartbeatNanos() + behind;
        int replicas = Math.max(run.replicas().size(), 2);
        for (History.Fault f : faults) {
            switch (f.kind()) {
                case "partition", "pause", "split" -> {
                    long from = f.startNanos();
                    long to = f.endNanos();
                    if (run.protectsMinority()) { // the minority decides only until it notices
                        from = f.kind().equals("pause") ? f.healNanos() : f.startNanos();
                        to = Math.min(f.endNanos(), from + detect);
                    }
                    int sides = f.kind().equals("split") ? replicas - 1 : 1;
                    out.add(new Extra(f.kind(), f.line(), from - behind, to + behind, sides, 0, 0, false, 0));
                }
                case "clock" -> out.add(new Extra("clock", f.line(), f.startNanos() - behind,
                        f.endNanos() + clockSpan, 0, 2, f.stepNanos(), false, 0));
                case "kill" -> {
                    long down = faults.stream().filter(o -> o.kind().equals("kill")
                            && o.startNanos() <= f.endNanos() && o.endNanos() >= f.startNanos()).count();
                    if (down > run.backups()) {
                        out.add(new Extra("kill", f.line(), f.startNanos(), f.endNanos(), 0, 0, 0, true, 0));
                    }
                }
                default -> {
                    // slow: a delay changes no state
                }
            }
        }
        return new Allowances(out);
    }

    /**
     * The allowances of one replica's local stream: only its own clock steps (local state is in process, on the
     * replica's own wall clock, SPEC §5).
     *
     * @param faults every fault of the run
     * @param run the run's settings
     * @param replica the replica
     * @return the allowances
     */
    static Allowances local(List<History.Fault> faults, History.Run run, String replica) {
        List<Extra> out = new ArrayList<>();
        for (History.Fault f : faults) {
            if (f.kind().equals("clock") && f.target().equals(replica)) {
                out.add(new Extra("clock", f.line(), f.startNanos() - Checker.LOCAL_TOLERANCE_NANOS,
                        f.endNanos() + run.clockStepLagNanos() + Checker.LOCAL_TOLERANCE_NANOS, 0, 1, f.stepNanos(),
                        false, 0));
            }
        }
        return new Allowances(out);
    }

    /**
     * @param more give-backs to add (lost-state checks)
     * @return these allowances and {@code more}
     */
    Allowances with(List<Extra> more) {
        List<Extra> all = new ArrayList<>(extras);
        all.addAll(more);
        return new Allowances(all);
    }

    /** @return the extras, by span start */
    List<Extra> extras() {
        return extras;
    }

    /**
     * The allowance clock of the bucket checks: {@code t} plus, for every split, its extra sides times the part of
     * their deciding time before {@code t}. So {@code R·(g(b) − g(a))/P} is the refill of every side over
     * {@code [a, b]}.
     *
     * @param t a relative time
     * @return g(t), >= t
     */
    long g(long t) {
        long out = t;
        for (int i = 0; i < decideFrom.length; i++) {
            if (t > decideFrom[i]) {
                out = Math.addExact(out, Math.multiplyExact(decideSides[i], Math.min(t, decideTo[i]) - decideFrom[i]));
            }
        }
        return out;
    }

    /** @return true when an extra's span overlaps {@code [from, to]} */
    static boolean overlaps(Extra x, long from, long to) {
        return x.spanStart() <= to && x.spanEnd() >= from;
    }

}
