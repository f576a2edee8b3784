package io.gridlimit.replay;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code --html} report (issue 24 §5): one self-contained page, no script and no external asset, with inline
 * SVG charts. Per policy: a chart of requests (grey bars) and denials (red bars) per bucket ({@link Timeline}), its
 * top keys, and the alternatives table with the comparison sentence. Every chart is an {@code <svg class="chart">}
 * holding one {@code <rect>} per non-empty bucket and series. Stateless.
 */
public final class HtmlReport {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 160;

    private HtmlReport() {
    }

    /**
     * @param run the finished replay
     * @return the page
     */
    public static String write(ReplayRun run) {
        Replayer r = run.replayer();
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>GridLimit replay</title>")
                .append("<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}")
                .append("td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}")
                .append("th:first-child,td:first-child{text-align:left}.req{fill:#9aa}.den{fill:#c33}</style>")
                .append("</head><body>\n<h1>GridLimit replay</h1>\n");
        h.append("<p id=\"totals\">").append(r.requests()).append(" requests replayed: ").append(r.admitted())
                .append(" admitted, ").append(r.denied()).append(" denied, ").append(r.rejected())
                .append(" rejected for a missing key, ").append(r.unlimited()).append(" not limited; ")
                .append(run.bad()).append(" unparseable and ").append(run.late())
                .append(" late lines.</p>\n");
        boolean any = r.requests() > 0;
        long bucket = any ? Timeline.bucketNanos(r.firstNanos(), r.lastNanos()) : PolicyStats.SLOT_NANOS;
        for (PolicyStats p : r.policies()) {
            h.append("<section class=\"policy\"><h2>").append(escape(p.name())).append(p.shadow() ? " (shadow)" : "")
                    .append("</h2>\n<p>").append(p.requests()).append(" requests, ").append(p.admitted())
                    .append(" admitted, ").append(p.denied()).append(" denied, ").append(p.keys())
                    .append(" keys. Buckets of ").append(bucket / 60_000_000_000L).append(" min.</p>\n");
            TreeMap<Long, long[]> series = any ? Timeline.buckets(p.minutes(), r.firstNanos(), r.lastNanos(), bucket)
                    : new TreeMap<>();
            chart(h, series);
            keys(h, run, p.topDenied(ReplayRun.TOP_KEYS));
            alternatives(h, r.alternatives(p.name()));
            h.append("<p class=\"comparison\">").append(escape(Comparison.sentence(p, r.alternatives(p.name()))))
                    .append("</p></section>\n");
        }
        return h.append("</body></html>\n").toString();
    }

    private static void chart(StringBuilder h, TreeMap<Long, long[]> series) {
        long max = 1;
        for (long[] c : series.values()) {
            max = Math.max(max, c[0]);
        }
        int n = Math.max(1, series.size());
        double w = (double) WIDTH / n;
        h.append("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
                .append("\" height=\"").append(HEIGHT + 20).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(HEIGHT + 20).append("\">");
        int i = 0;
        for (Map.Entry<Long, long[]> e : series.entrySet()) {
            bar(h, "req", i * w, w, e.getValue()[0], max, e.getKey(), "requests");
            bar(h, "den", i * w, w, e.getValue()[1], max, e.getKey(), "denied");
            i++;
        }
        if (!series.isEmpty()) {
            h.append("<text x=\"0\" y=\"").append(HEIGHT + 15).append("\" font-size=\"11\">")
                    .append(Instant.ofEpochSecond(series.firstKey() / 1_000_000_000L)).append("</text>")
                    .append("<text x=\"").append(WIDTH).append("\" y=\"").append(HEIGHT + 15)
                    .append("\" font-size=\"11\" text-anchor=\"end\">max ").append(max).append(" per bucket</text>");
        }
        h.append("</svg>\n");
    }

    private static void bar(StringBuilder h, String cls, double x, double w, long v, long max, long start,
                            String what) {
        if (v == 0) {
            return;
        }
        double height = Math.max(1, (double) HEIGHT * v / max);
        h.append(String.format(java.util.Locale.ROOT, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                + "height=\"%.2f\"><title>%s: %d %s</title></rect>", cls, x, HEIGHT - height, Math.max(w, 0.5),
                height, Instant.ofEpochSecond(start / 1_000_000_000L), v, what));
    }

    private static void keys(StringBuilder h, ReplayRun run, List<PolicyStats.KeyCount> top) {
        h.append("<table class=\"keys\"><tr><th>key").append(run.showKeys() ? "" : " (hash)")
                .append("</th><th>requests</th><th>denied</th></tr>");
        for (PolicyStats.KeyCount k : top) {
            h.append("<tr><td>").append(escape(run.shown(k.key()))).append("</td><td>").append(k.requests())
                    .append("</td><td>").append(k.denied()).append("</td></tr>");
        }
        h.append("</table>\n");
    }

    private static void alternatives(StringBuilder h, Alternatives a) {
        if (a.unavailable() != null) {
            return;
        }
        h.append("<table class=\"alternatives\"><tr><th>algorithm</th><th>requests</th><th>admitted</th>")
                .append("<th>denied</th><th>admitted, log denies</th><th>denied, log admits</th></tr>");
        for (Alternatives.Variant v : a.variants()) {
            h.append("<tr><td>").append(v.algorithm().configName()).append(v.configured() ? " (configured)" : "")
                    .append("</td><td>").append(v.requests()).append("</td><td>").append(v.admitted())
                    .append("</td><td>").append(v.denied()).append("</td><td>").append(v.overAdmitted()).append(" (")
                    .append(Comparison.percent(v.overAdmitted(), v.requests()).toPlainString()).append("%)</td><td>")
                    .append(v.overDenied()).append(" (")
                    .append(Comparison.percent(v.overDenied(), v.requests()).toPlainString()).append("%)</td></tr>");
        }
        h.append("</table>\n");
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
