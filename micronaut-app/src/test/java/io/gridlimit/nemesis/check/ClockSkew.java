package io.gridlimit.nemesis.check;

import java.util.List;

/**
 * How far the owners' readings (cluster time, SPEC §2) lay from the host's clock, measured from the decision API's
 * answers of fixed-window policies: such an answer's {@code resetAfterMillis} is its window's end less the owner's
 * reading, rounded up to a millisecond (SPEC §3, §9), so the reading lies in
 * {@code [end − resetAfter, end − resetAfter + 1 ms)}; its distance from the decision's {@code [sent, answered]}
 * interval (on the host's clock, aligned to the epoch with the run's {@code epochMinusNanoTime}) is the skew. The
 * checker assumes at most {@code readingBehindNanos} before and {@code readingAheadNanos} after; this shows what the
 * run had. Decisions during a clock fault are left out (their skew is the fault's step).
 *
 * @param samples the answers measured
 * @param behindNanos the farthest a reading lay before its decision's sent time (0: never)
 * @param aheadNanos the farthest a reading lay after its decision's answer (0: never)
 * @param line the history line of the largest of the two, or 0
 * @param quietBehindNanos the farthest before, among decisions no fault touched (a member rejoining after a split
 *     sets its cluster time from a message the load may have delayed)
 */
public record ClockSkew(long samples, long behindNanos, long aheadNanos, int line, long quietBehindNanos) {
    /**
     * @param decisions the decisions, times relative to the history's first instant
     * @param policies the policies
     * @param faults the faults, relative times
     * @param epochOffset epoch nanoseconds minus relative nanoseconds
     * @param lagNanos how long a clock fault's step takes to apply and to be undone (its span is widened by it)
     * @return the measurement
     */
    static ClockSkew of(List<History.Decision> decisions, java.util.Map<String, PolicyModel> policies,
                        List<History.Fault> faults, long epochOffset, long lagNanos) {
        long samples = 0;
        long behind = 0;
        long ahead = 0;
        int line = 0;
        long quiet = 0;
        for (History.Decision d : decisions) {
            PolicyModel p = policies.get(d.policy());
            if (d.resetAfterMillis() == null || d.resetAfterMillis() <= 0 || !d.source().equals("grid")
                    || p.bands().size() != 1 || p.bands().get(0).kind() != PolicyModel.Kind.FIXED_WINDOW
                    || duringClockFault(d, faults, lagNanos)) {
                continue;
            }
            long w = p.bands().get(0).periodNanos();
            long reset = Math.multiplyExact(d.resetAfterMillis(), 1_000_000L);
            if (reset > w) {
                continue; // not a fixed window's answer (an override's other policy)
            }
            long sent = d.sentNanos() + epochOffset;
            long answered = d.answeredNanos() + epochOffset;
            long end = Math.floorDiv(sent + reset + w / 2, w) * w;
            long earliest = end - reset;
            long latest = earliest + 999_999;
            samples++;
            if (earliest - answered > Math.max(ahead, behind)) {
                line = d.line();
            }
            if (sent - latest > Math.max(ahead, behind)) {
                line = d.line();
            }
            ahead = Math.max(ahead, earliest - answered);
            behind = Math.max(behind, sent - latest);
            if (!duringFault(d, faults, lagNanos)) {
                quiet = Math.max(quiet, sent - latest);
            }
        }
        return new ClockSkew(samples, behind, ahead, line, quiet);
    }

    private static boolean duringFault(History.Decision d, List<History.Fault> faults, long lagNanos) {
        for (History.Fault f : faults) {
            if (f.startNanos() <= d.answeredNanos() && f.endNanos() + lagNanos >= d.sentNanos()) {
                return true;
            }
        }
        return false;
    }

    private static boolean duringClockFault(History.Decision d, List<History.Fault> faults, long lagNanos) {
        for (History.Fault f : faults) {
            if (f.kind().equals("clock") && f.startNanos() <= d.answeredNanos()
                    && f.endNanos() + lagNanos >= d.sentNanos()) {
                return true;
            }
        }
        return false;
    }
}
