package io.gridlimit.replay;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The table on standard output (issue 24 §5): one row per policy (decisions, admitted, denied, distinct keys), the
 * requests' outcomes, the input's bad and late lines, and the sentence comparing the counter with the exact log.
 * Stateless.
 */
public final class Summary {
    private Summary() {
    }

    /**
     * Prints the summary.
     *
     * @param run the finished replay
     * @param out standard output
     */
    public static void print(ReplayRun run, PrintStream out) {
        Replayer r = run.replayer();
        out.printf(Locale.ROOT, "%-32s %12s %12s %12s %10s%n", "policy", "requests", "admitted", "denied", "keys");
        for (PolicyStats p : r.policies()) {
            out.printf(Locale.ROOT, "%-32s %12d %12d %12d %10d%n", p.name() + (p.shadow() ? " (shadow)" : ""),
                    p.requests(), p.admitted(), p.denied(), p.keys());
        }
        out.printf(Locale.ROOT, "requests: %d replayed, %d admitted, %d denied (429), %d rejected for a missing key "
                + "(400), %d not limited%n", r.requests(), r.admitted(), r.denied(), r.rejected(), r.unlimited());
        out.printf(Locale.ROOT, "lines: %d read, %d unparseable%s, %d later than the reorder window%s%n", run.lines(),
                run.bad(), run.badLines().isEmpty() ? "" : " (first: " + String.join(", ", run.badLines()) + ")",
                run.late(), run.lateLines().isEmpty() ? "" : " (first: " + String.join(", ", run.lateLines()) + ")");
        for (PolicyStats p : r.policies()) {
            out.println(Comparison.sentence(p, r.alternatives(p.name())));
        }
    }
}
