package io.gridlimit.nemesis.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks every decision of a nemesis history against the checker's own exact model (docs/SPEC.md §15; the models
 * are {@link BandChecks}, the faults' allowances {@link Allowances}). Each key's decisions are split into streams:
 * what the grid decided (source {@code grid}: the owner's EntryProcessor, or a lease it granted, SPEC §13), and what
 * each replica's local share decided (source {@code local}, SPEC §5), one stream per replica and incarnation (a
 * killed replica restarts with a fresh share). The grid stream is held to the policy's bound plus the allowances of
 * the faults active then; each local stream to its share's exact bound (plus its own clock steps). So, as SPEC §5
 * says, a key admits at most the grid's bound plus one share per replica deciding locally. Admissions under
 * {@code open} are unlimited by definition and not checked; {@code closed} and unanswered requests admitted
 * nothing (an unanswered one may have consumed, which only lowers what others get).
 *
 * <p>Each band of a composite is checked on its own with the policy's admitted requests (an admitted request
 * consumed from every band, SPEC §4). Lost state is checked for single-band token-bucket, GCRA and fixed-window
 * policies on grid streams (the other algorithms rely on their bound: a reset sliding log or counter exceeds it
 * when its key is busy). Stateless.
 */
public final class Checker {
    /** How far the local share's clock may be from the host's: the same kernel clock, read once per decision. */
    static final long LOCAL_TOLERANCE_NANOS = 2_000_000L;

    private Checker() {
    }

    /**
     * A violation of a bound, or lost state.
     *
     * @param lost true for lost state, false for a bound exceeded
     * @param policy the policy
     * @param band the band
     * @param key the grid key
     * @param stream {@code grid}, or {@code local <replica>#<incarnation>}
     * @param fromNanos the window's start, relative to the history's first instant
     * @param toNanos its end
     * @param admitted the admitted cost in it
     * @param allowed what the bound allows, as text
     * @param ratio admitted ÷ allowed (NaN for lost state)
     * @param decisions the stream's decisions inside the window (at most 40, by sent time)
     * @param inside how many there were
     * @param faults the faults within 10 s of the window
     */
    public record Finding(boolean lost, String policy, String band, String key, String stream, long fromNanos,
                          long toNanos, long admitted, String allowed, double ratio, List<History.Decision> decisions,
                          int inside, List<History.Fault> faults) {
    }

    /** One row of the table per fault kind (and {@code none}: windows that no fault touched). */
    public static final class KindRow {
        int faults;
        long decisions;
        double maxRatio;
        int violations;

        /** @return the faults of this kind */
        public int faults() {
            return faults;
        }

        /** @return decisions whose interval overlaps a fault of this kind */
        public long decisions() {
            return decisions;
        }

        /** @return the largest admitted ÷ allowed of a checked window that a fault of this kind touches */
        public double maxRatio() {
            return maxRatio;
        }

        /** @return violations whose window a fault of this kind touches */
        public int violations() {
            return violations;
        }
    }

    /**
     * What one history gave.
     *
     * @param decisions decision lines with an answer (admitted true or false)
     * @param unanswered decision lines without one
     * @param admitted the admitted among the decisions
     * @param keys distinct (policy, key) pairs
     * @param faults the fault lines
     * @param violations bounds exceeded
     * @param lost lost state
     * @param rows the table, by kind (faults' kinds in order, then {@code none})
     * @param behindNanos how far before its sent time a grid decision's reading was allowed to lie
     * @param aheadNanos how far after its answered time
     * @param skew how far the owners' readings lay from the decisions' intervals, as measured
     */
    public record Result(long decisions, long unanswered, long admitted, int keys, List<History.Fault> faults,
                         List<Finding> violations, List<Finding> lost, Map<String, KindRow> rows,
                         long behindNanos, long aheadNanos, ClockSkew skew) {
    }

    /**
     * Checks a history.
     *
     * @param h the history
     * @return the result
     * @throws ArithmeticException if a policy's figures exceed the checker's exact 64-bit arithmetic
     */
    public static Result check(History h) {
        long t0 = Long.MAX_VALUE;
        for (History.Decision d : h.decisions()) {
            t0 = Math.min(t0, d.sentNanos());
        }
        for (History.Fault f : h.faults()) {
            t0 = Math.min(t0, f.startNanos());
        }
        long origin = t0 == Long.MAX_VALUE ? 0 : t0;
        List<History.Fault> faults = h.faults().stream().map(f -> new History.Fault(f.line(), f.kind(), f.target(),
                f.startNanos() - origin, f.endNanos() - origin, f.healNanos() - origin, f.stepNanos())).toList();
        long epochOffset = Math.addExact(origin, h.run().epochMinusNanoTime());
        Map<String, KindRow> rows = new LinkedHashMap<>();
        for (History.Fault f : faults.stream().sorted(Comparator.comparing(History.Fault::kind)).toList()) {
            rows.computeIfAbsent(f.kind(), k -> new KindRow()).faults++;
        }
        rows.put("none", new KindRow());
        List<Finding> violations = new ArrayList<>();
        List<Finding> lost = new ArrayList<>();
        long decisions = 0;
        long unanswered = 0;
        long admittedCount = 0;
        Map<String, List<History.Decision>> byKey = new TreeMap<>();
        for (History.Decision d : h.decisions()) {
            History.Decision rel = new History.Decision(d.line(), d.policy(), d.key(), d.cost(),
                    d.sentNanos() - origin, d.answeredNanos() - origin, d.admitted(), d.replica(), d.source(),
                    d.door(), d.resetAfterMillis());
            byKey.computeIfAbsent(d.policy() + "\u0000" + d.key(), k -> new ArrayList<>()).add(rel);
            if (d.admitted() == null) {
                unanswered++;
                continue;
            }
            decisions++;
            admittedCount += d.admitted() ? 1 : 0;
            Set<String> kinds = new TreeSet<>();
            for (History.Fault f : faults) {
                if (f.startNanos() <= rel.answeredNanos() && f.endNanos() >= rel.sentNanos()) {
                    kinds.add(f.kind());
                }
            }
            for (String k : kinds) {
                rows.get(k).decisions++;
            }
            if (kinds.isEmpty()) {
                rows.get("none").decisions++;
            }
        }
        Allowances grid = Allowances.grid(faults, h.run());
        List<History.Decision> all = new ArrayList<>();
        byKey.values().forEach(all::addAll);
        ClockSkew skew = ClockSkew.of(all, h.policies(), faults, epochOffset, h.run().clockStepLagNanos());
        for (List<History.Decision> ds : byKey.values()) {
            PolicyModel policy = h.policies().get(ds.get(0).policy());
            new KeyCheck(h.run(), policy, ds, faults, grid, epochOffset, rows, violations, lost).check();
        }
        return new Result(decisions, unanswered, admittedCount, byKey.size(), faults, violations, lost, rows,
                h.run().readingBehindNanos(), h.run().readingAheadNanos(), skew);
    }
}
