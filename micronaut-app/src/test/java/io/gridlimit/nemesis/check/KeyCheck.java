package io.gridlimit.nemesis.check;

import io.gridlimit.nemesis.check.Checker.Finding;
import io.gridlimit.nemesis.check.Checker.KindRow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checks of one key's decisions for {@link Checker}: its grid stream and each local stream, band by band, with
 * the allowances of the faults (docs/SPEC.md §15). Not thread-safe.
 *
 * @param run the run's settings
 * @param policy the key's policy
 * @param ds the key's decisions, times relative to the history's first instant
 * @param faults the run's faults, relative times
 * @param grid the allowances of grid streams
 * @param epochOffset epoch nanoseconds minus relative nanoseconds
 * @param rows the table per fault kind, filled here
 * @param violations where violations go
 * @param lost where lost states go
 */
record KeyCheck(History.Run run, PolicyModel policy, List<History.Decision> ds, List<History.Fault> faults,
                Allowances grid, long epochOffset, Map<String, KindRow> rows, List<Finding> violations,
                List<Finding> lost) {
    private static final int MAX_PRINTED_DECISIONS = 40;
    private static final long AROUND_NANOS = 10_000_000_000L;

    /** Runs every check of the key: each band's bound per stream, and lost state on the grid stream. */
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
            List<BandChecks.Req> adm = reqs(e.getValue(), true, Checker.LOCAL_TOLERANCE_NANOS, Checker.LOCAL_TOLERANCE_NANOS);
            List<BandChecks.Req> den = reqs(e.getValue(), false, Checker.LOCAL_TOLERANCE_NANOS, Checker.LOCAL_TOLERANCE_NANOS);
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

    /** One band of one stream: merges overlapping violating windows, and fills the table. */
    static final class Stream implements BandChecks.Sink {
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
