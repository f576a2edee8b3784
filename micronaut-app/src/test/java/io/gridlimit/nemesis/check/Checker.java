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
    private static final int MAX_PRINTED_DECISIONS = 40;
    private static final long AROUND_NANOS = 10_000_000_000L;

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

    /** The checks of one key's decisions. */
    private record KeyCheck(History.Run run, PolicyModel policy, List<History.Decision> ds,
                            List<History.Fault> faults, Allowances grid, long epochOffset, Map<String, KindRow> rows,
                            List<Finding> violations, List<Finding> lost) {
        void check() {
            long behind = run.readingBehindNanos();
            long ahead = run.readingAheadNanos();
            List<BandChecks.Req> gridAdmitted = reqs("grid", true, behind, ahead);
            List<BandChecks.Req> gridDenied = reqs("grid", false, behind, ahead);
            long leaseUnits = leaseUnits();
            for (PolicyModel.Band band : policy.bands()) {
                long units = band.kind().bucket() ? Math.min(band.quota(), leaseUnits) : 0;
                Stream s = new Stream(this, band, "grid", gridAdmitted, gridDenied);
                bound(band, gridAdmitted, grid, units, s);
                s.flush();
            }
            if (policy.bands().size() == 1) {
                PolicyModel.Band band = policy.bands().get(0);
                Allowances withGiveBacks = grid.with(giveBacks(band));
                Stream s = new Stream(this, band, "grid", gridAdmitted, gridDenied);
                if (band.kind().bucket()) {
                    BandChecks.bucketLost(gridAdmitted, gridDenied, band, withGiveBacks,
                            Math.min(band.quota(), leaseUnits), s);
                } else if (band.kind() == PolicyModel.Kind.FIXED_WINDOW) {
                    BandChecks.fixedWindowLost(gridAdmitted, gridDenied, band, withGiveBacks, epochOffset, s);
                }
            }
            Map<String, List<History.Decision>> locals = new TreeMap<>();
            for (History.Decision d : ds) {
                if (d.source().equals("local")) {
                    locals.computeIfAbsent(d.replica() + "#" + incarnation(d), k -> new ArrayList<>()).add(d);
                }
            }
            PolicyModel share = policy.share(run.expectedReplicas());
            for (var e : locals.entrySet()) {
                String replica = e.getValue().get(0).replica();
                String label = "local " + e.getKey();
                List<BandChecks.Req> adm = reqs(e.getValue(), true, LOCAL_TOLERANCE_NANOS, LOCAL_TOLERANCE_NANOS);
                List<BandChecks.Req> den = reqs(e.getValue(), false, LOCAL_TOLERANCE_NANOS, LOCAL_TOLERANCE_NANOS);
                Allowances al = Allowances.local(faults, run, replica);
                if (share == null) {
                    Stream s = new Stream(this, policy.bands().get(0), label, adm, den);
                    for (BandChecks.Req q : adm) {
                        s.window(q.s(), q.e(), q.cost(), "0 (the policy has no local share: SPEC §5)",
                                Double.POSITIVE_INFINITY, true);
                    }
                    s.flush();
                    continue;
                }
                for (PolicyModel.Band band : share.bands()) {
                    Stream s = new Stream(this, band, label, adm, den);
                    bound(band, adm, al, 0, s);
                    s.flush();
                }
            }
        }

        private void bound(PolicyModel.Band band, List<BandChecks.Req> adm, Allowances al, long leaseUnits,
                           Stream s) {
            switch (band.kind()) {
                case TOKEN_BUCKET, GCRA -> BandChecks.bucket(adm, band, al, leaseUnits, s);
                case FIXED_WINDOW -> BandChecks.fixedWindow(adm, band, al, epochOffset, s);
                case SLIDING_WINDOW_LOG -> BandChecks.slidingLog(adm, band, al, s);
                case SLIDING_WINDOW_COUNTER -> BandChecks.slidingCounter(adm, band, al, epochOffset, s);
            }
        }

        /** Units that may be out on leases of this key at once (SPEC §13): 0 unless the policy is leased. */
        private long leaseUnits() {
            if (run.leaseReplicas().isEmpty() || !policy.leasable()) {
                return 0;
            }
            long perLease = policy.leastBucketCapacity() / run.leaseCapacityShare();
            return Math.multiplyExact(Math.multiplyExact(run.leaseReplicas().size(), 4L), perLease);
        }

        /**
         * Reservations whose callers saw no grid admission may be given back after a denial (SPEC §10): the
         * decision API's 503s, unanswered requests, and the grid's late admissions under a local decision. Each may
         * return its cost until its hold has passed.
         */
        private List<Allowances.Extra> giveBacks(PolicyModel.Band band) {
            long hold = band.kind().bucket()
                    ? java.math.BigInteger.valueOf(band.quota()).multiply(java.math.BigInteger.valueOf(
                    band.periodNanos())).divide(java.math.BigInteger.valueOf(band.refillTokens()))
                    .min(java.math.BigInteger.valueOf(PolicyModel.MAX_PERIOD_NANOS)).longValueExact() + 1
                    : 2 * band.periodNanos();
            List<Allowances.Extra> out = new ArrayList<>();
            for (History.Decision d : ds) {
                if (d.admitted() == null || d.source().equals("closed") || d.source().equals("local")) {
                    out.add(new Allowances.Extra("give-back", d.line(), d.sentNanos(), d.answeredNanos() + hold, 0,
                            0, 0, false, d.cost()));
                }
            }
            return out;
        }

        private int incarnation(History.Decision d) {
            int n = 0;
            for (History.Fault f : faults) {
                if (f.kind().equals("kill") && f.target().equals(d.replica()) && f.startNanos() <= d.sentNanos()) {
                    n++;
                }
            }
            return n;
        }

        private List<BandChecks.Req> reqs(String source, boolean admitted, long behind, long ahead) {
            return reqs(ds.stream().filter(d -> d.source().equals(source)).toList(), admitted, behind, ahead);
        }

        /** The decisions' intervals widened to where their readings may lie: {@code [sent − behind, answered + ahead]}. */
        private static List<BandChecks.Req> reqs(List<History.Decision> from, boolean admitted, long behind,
                                                 long ahead) {
            List<BandChecks.Req> out = new ArrayList<>();
            for (History.Decision d : from) {
                if (d.admitted() != null && d.admitted() == admitted) {
                    out.add(new BandChecks.Req(d.sentNanos() - behind, d.answeredNanos() + ahead, d.cost(), d));
                }
            }
            return out;
        }
    }

    /** One band of one stream: merges overlapping violating windows, and fills the table. */
    private static final class Stream implements BandChecks.Sink {
        private final KeyCheck key;
        private final PolicyModel.Band band;
        private final String label;
        private final List<BandChecks.Req> decisions;
        private Window open;
        private long openFrom;
        private long openTo;

        Stream(KeyCheck key, PolicyModel.Band band, String label, List<BandChecks.Req> admitted,
               List<BandChecks.Req> denied) {
            this.key = key;
            this.band = band;
            this.label = label;
            this.decisions = new ArrayList<>(admitted);
            this.decisions.addAll(denied);
            this.decisions.sort(Comparator.comparingLong(BandChecks.Req::s));
        }

        @Override
        public void window(long from, long to, long admitted, String allowed, double ratio, boolean violated) {
            Set<String> kinds = kinds(from, to);
            for (String k : kinds) {
                KindRow row = key.rows().get(k);
                row.maxRatio = Math.max(row.maxRatio, ratio);
            }
            if (!violated) {
                return;
            }
            if (open != null && from <= openTo) {
                openFrom = Math.min(openFrom, from);
                openTo = Math.max(openTo, to);
                if (ratio > open.ratio()) {
                    open = new Window(from, to, admitted, allowed, ratio);
                }
                return;
            }
            flush();
            open = new Window(from, to, admitted, allowed, ratio);
            openFrom = from;
            openTo = to;
        }

        @Override
        public void lost(long from, long to, long admitted, String allowed) {
            List<Finding> all = key.lost();
            if (!all.isEmpty()) {
                Finding last = all.get(all.size() - 1);
                if (last.key().equals(key.ds().get(0).key()) && last.band().equals(band.name())
                        && last.policy().equals(key.policy().name()) && from <= last.toNanos()) {
                    return; // the same episode
                }
            }
            all.add(finding(true, from, to, admitted, allowed, Double.NaN));
        }

        /** Ends the open violation, if any. */
        void flush() {
            if (open != null) {
                Finding worst = finding(false, open.from(), open.to(), open.admitted(), open.allowed(),
                        open.ratio());
                key.violations().add(new Finding(false, worst.policy(), worst.band(), worst.key(), worst.stream(),
                        openFrom, openTo, worst.admitted(), worst.allowed(), worst.ratio(), worst.decisions(),
                        worst.inside(), worst.faults()));
                for (String k : kinds(openFrom, openTo)) {
                    key.rows().get(k).violations++;
                }
                open = null;
            }
        }

        /** The worst window of the open violation. */
        private record Window(long from, long to, long admitted, String allowed, double ratio) {
        }

        private Set<String> kinds(long from, long to) {
            Set<String> kinds = new TreeSet<>();
            for (History.Fault f : key.faults()) {
                if (f.startNanos() <= to && f.endNanos() >= from) {
                    kinds.add(f.kind());
                }
            }
            if (kinds.isEmpty()) {
                kinds.add("none");
            }
            return kinds;
        }

        private Finding finding(boolean lost, long from, long to, long admitted, String allowed, double ratio) {
            List<History.Decision> inside = new ArrayList<>();
            int count = 0;
            for (BandChecks.Req q : decisions) {
                if (q.s() >= from && q.e() <= to) {
                    count++;
                    if (inside.size() < MAX_PRINTED_DECISIONS) {
                        inside.add(q.decision());
                    }
                }
            }
            List<History.Fault> around = key.faults().stream().filter(f -> f.startNanos() <= to + AROUND_NANOS
                    && f.endNanos() >= from - AROUND_NANOS).toList();
            return new Finding(lost, key.policy().name(), band.name(), key.ds().get(0).key(), label, from, to,
                    admitted, allowed, ratio, inside, count, around);
        }
    }
}
