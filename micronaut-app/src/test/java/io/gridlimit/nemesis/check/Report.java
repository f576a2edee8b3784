package io.gridlimit.nemesis.check;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The checker's report on one or more histories: each violation and lost state in detail (the key, the window, the
 * admitted requests, the faults around it; at most 20 of each are printed), a table per fault kind (faults,
 * decisions during it, the largest admitted ÷ allowed ratio of a checked window it touches, violations), and as
 * the last line {@code nemesis: runs=R faults=F kinds=k1,k2,... decisions=D violations=V lost=L}. Times are seconds
 * from the history's first instant. Not thread-safe.
 */
public final class Report {
    private static final int MAX_PRINTED = 20;

    private final StringBuilder out = new StringBuilder();
    private final Map<String, Checker.KindRow> rows = new LinkedHashMap<>();
    private final TreeSet<String> kinds = new TreeSet<>();
    private int runs;
    private long faults;
    private long decisions;
    private long violations;
    private long lost;
    private int printedViolations;
    private int printedLost;

    /**
     * Adds one history's result.
     *
     * @param name the history's name (its file)
     * @param r the result
     * @return this report
     */
    public Report add(String name, Checker.Result r) {
        runs++;
        faults += r.faults().size();
        decisions += r.decisions();
        violations += r.violations().size();
        lost += r.lost().size();
        r.faults().forEach(f -> kinds.add(f.kind()));
        out.append(String.format(Locale.ROOT, "%s: %d decisions (%d admitted, %d unanswered) on %d keys, %d faults%n",
                name, r.decisions(), r.admitted(), r.unanswered(), r.keys(), r.faults().size()));
        ClockSkew skew = r.skew();
        out.append(String.format(Locale.ROOT, "  owners' clocks (cluster time): readings at most %.1f ms before their"
                        + " sent time (%.1f ms where no fault acted) and %.1f ms after their answer (%d fixed-window"
                        + " answers, clock faults aside%s); the checker allows %d ms and %d ms%s%n",
                skew.behindNanos() / 1e6, skew.quietBehindNanos() / 1e6, skew.aheadNanos() / 1e6, skew.samples(), skew.line() > 0 ? "; the largest on line " + skew.line() : "",
                r.behindNanos() / 1_000_000, r.aheadNanos() / 1_000_000,
                skew.behindNanos() > r.behindNanos() || skew.aheadNanos() > r.aheadNanos()
                        ? " (EXCEEDED: a violation near a window's edge may be the clock's)" : ""));
        for (History.Fault f : r.faults()) {
            out.append(String.format(Locale.ROOT, "  fault %-9s %-4s %s%s%n", f.kind(), f.target(), span(f),
                    f.stepNanos() > 0 ? String.format(Locale.ROOT, " step %.3f s", f.stepNanos() / 1e9) : ""));
        }
        for (Checker.Finding v : r.violations()) {
            if (printedViolations++ < MAX_PRINTED) {
                finding("VIOLATION", v);
            }
        }
        for (Checker.Finding l : r.lost()) {
            if (printedLost++ < MAX_PRINTED) {
                finding("LOST", l);
            }
        }
        r.rows().forEach((kind, row) -> {
            Checker.KindRow sum = rows.computeIfAbsent(kind, k -> new Checker.KindRow());
            sum.faults += row.faults;
            sum.decisions += row.decisions;
            sum.maxRatio = Math.max(sum.maxRatio, row.maxRatio);
            sum.violations += row.violations;
        });
        return this;
    }

    /** @return the number of violations added so far */
    public long violations() {
        return violations;
    }

    /** @return the number of lost states added so far */
    public long lost() {
        return lost;
    }

    /** @return the decisions added so far */
    public long decisions() {
        return decisions;
    }

    /** @return the report: details, table and last line */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(out);
        if (printedViolations > MAX_PRINTED) {
            b.append("... and ").append(printedViolations - MAX_PRINTED).append(" more violations\n");
        }
        if (printedLost > MAX_PRINTED) {
            b.append("... and ").append(printedLost - MAX_PRINTED).append(" more lost states\n");
        }
        b.append(table());
        b.append(lastLine()).append('\n');
        return b.toString();
    }

    /** @return the table per fault kind, Markdown */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| fault | faults | decisions during it | largest admitted ÷ allowed | violations |\n");
        b.append("|---|---:|---:|---:|---:|\n");
        rows.forEach((kind, row) -> b.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %d |%n", kind,
                kind.equals("none") ? "–" : Integer.toString(row.faults), row.decisions,
                row.maxRatio == 0 ? "–" : String.format(Locale.ROOT, "%.3f", row.maxRatio), row.violations)));
        return b.toString();
    }

    /** @return {@code nemesis: runs=R faults=F kinds=k1,k2,... decisions=D violations=V lost=L} */
    public String lastLine() {
        return "nemesis: runs=" + runs + " faults=" + faults + " kinds=" + String.join(",", kinds) + " decisions="
                + decisions + " violations=" + violations + " lost=" + lost;
    }

    private void finding(String what, Checker.Finding f) {
        out.append(String.format(Locale.ROOT, "%s policy %s band %s key %s (%s): window %s, admitted %d, allowed %s%s%n",
                what, f.policy(), f.band(), f.key(), f.stream(), span(f.fromNanos(), f.toNanos()), f.admitted(),
                f.allowed(), Double.isNaN(f.ratio()) ? "" : String.format(Locale.ROOT, " (ratio %.3f)", f.ratio())));
        for (History.Fault fault : f.faults()) {
            out.append(String.format(Locale.ROOT, "    fault around: %s %s %s (line %d)%n", fault.kind(),
                    fault.target(), span(fault), fault.line()));
        }
        if (f.faults().isEmpty()) {
            out.append("    no fault within 10 s\n");
        }
        out.append(String.format(Locale.ROOT, "    %d decisions inside%s:%n", f.inside(),
                f.inside() > f.decisions().size() ? " (the first " + f.decisions().size() + ")" : ""));
        for (History.Decision d : f.decisions()) {
            out.append(String.format(Locale.ROOT, "      line %d: %s..%s cost %d %s by %s (%s%s)%n", d.line(),
                    seconds(d.sentNanos()), seconds(d.answeredNanos()), d.cost(),
                    d.admitted() ? "admitted" : "denied", d.replica(), d.source(),
                    d.door() == null ? "" : ", " + d.door()));
        }
    }

    private static String span(History.Fault f) {
        return span(f.startNanos(), f.endNanos()) + (f.healNanos() != f.endNanos() ? " healed " + seconds(
                f.healNanos()) : "");
    }

    private static String span(long from, long to) {
        return "[" + seconds(from) + ", " + seconds(to) + "]";
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3fs", nanos / 1e9);
    }

    /**
     * @param results named results
     * @return their report
     */
    public static Report of(List<Map.Entry<String, Checker.Result>> results) {
        Report r = new Report();
        results.forEach(e -> r.add(e.getKey(), e.getValue()));
        return r;
    }
}
