package io.gridlimit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the chart of one run as SVG (no plotting library needed): one horizontal bar per grid-level JMH row of
 * the CSV (the pure-function {@code AlgorithmBenchmark} rows are left out: they run without a grid), decisions per
 * second on a log10 axis, bars coloured by family (GridLimit, no-op floor, Bucket4j, Redis, in-process ceiling),
 * whatever the topology: the three-member rows ({@link ClusterBenchmark}, {@link ClusterBackupsBenchmark}) carry
 * their {@code topology} and {@code backups} in the label.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar io.gridlimit.bench.ChartSvg results.csv chart.svg}
 */
public final class ChartSvg {
    private static final int BAR = 16;
    private static final int GAP = 4;
    private static final int LABEL = 430;
    private static final int PLOT = 520;

    private ChartSvg() {
    }

    /**
     * @param args the JMH CSV path and the SVG path to write
     * @throws IOException if a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ChartSvg <results.csv> <chart.svg>, got " + args.length);
        }
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        List<String> header = ResultsTable.parse(lines.get(0));
        int name = header.indexOf("Benchmark");
        int score = header.indexOf("Score");
        List<Integer> params = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            if (header.get(i).startsWith("Param: ")) {
                params.add(i);
            }
        }
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> row = ResultsTable.parse(line);
            String benchmark = row.get(name).replace("io.gridlimit.bench.", "");
            if (benchmark.startsWith("AlgorithmBenchmark")) {
                continue;
            }
            // short labels: "Benchmark" dropped from class names, the topology as its value alone
            String p = ResultsTable.label(header, row, params).replace("topology=", "");
            labels.add(benchmark.replace("Benchmark.", ".") + (p.isEmpty() ? "" : " (" + p + ")"));
            values.add(Double.parseDouble(row.get(score)));
        }
        double minLog = 2; // 100/s
        double maxLog = Math.ceil(Math.log10(values.stream().mapToDouble(v -> v).max().orElse(1e6)));
        int height = 76 + labels.size() * (BAR + GAP) + 40;
        int width = LABEL + PLOT + 120;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
                + "Decisions per second, one run, 4 caller threads (log scale)</text>%n", 10));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"38\">Grid rows: one embedded member in the fork,"
                + " unless members-3 (the fork + 2 member JVMs) or client-3 (a client of 3 member JVMs);"
                + " all on the same cores.</text>%n", 10));
        int top = 56;
        for (double l = minLog; l <= maxLog; l++) {
            double x = LABEL + (l - minLog) / (maxLog - minLog) * PLOT;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x, top, x, height - 30));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">10^%d</text>%n",
                    x, height - 15, (int) l));
        }
        for (int i = 0; i < labels.size(); i++) {
            int y = top + i * (BAR + GAP);
            double v = Math.max(values.get(i), 1);
            double w = Math.max(0, (Math.log10(v) - minLog) / (maxLog - minLog) * PLOT);
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LABEL - 6, y + BAR - 4, escape(labels.get(i))));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                    LABEL, y, w, BAR, colour(labels.get(i))));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%,.0f</text>%n",
                    LABEL + w + 4, y + BAR - 4, values.get(i)));
        }
        svg.append("</svg>\n");
        Files.writeString(Path.of(args[1]), svg.toString(), StandardCharsets.UTF_8);
    }

    private static String colour(String label) {
        String method = label.contains(".") ? label.substring(label.indexOf('.') + 1) : label;
        if (label.startsWith("GridLimit") || label.startsWith("HotKey") || method.startsWith("gridLimit")) {
            return "#2b7bba";
        }
        if (label.startsWith("GridFloor") || method.startsWith("floor")) {
            return "#999999";
        }
        if (label.startsWith("Bucket4j") || method.startsWith("bucket4j")) {
            return "#e6862a";
        }
        if (label.startsWith("Redis")) {
            return "#c0392b";
        }
        return "#27ae60";
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
