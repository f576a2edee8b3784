package io.gridlimit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Prints the Markdown latency table of one run: p50, p99 and p99.9 in microseconds per row, from two sources:
 * <ul>
 *   <li>synchronous rows: a JMH CSV of the SampleTime pass ({@code -bm sample}, {@code :p0.50}, {@code :p0.99},
 *       {@code :p0.999} lines): JMH times a sample of the calls of every benchmark thread; closed loop, one call in
 *       flight per thread;</li>
 *   <li>asynchronous rows: the {@code .hlat} files {@link AsyncLatency} wrote per trial (HdrHistogram, submission to
 *       completion, measured iterations only); closed loop with threads × {@value InFlight#PERMITS} in flight.</li>
 * </ul>
 * Sync rows come first in CSV order, then async rows in file-name order. Samples is JMH's sample count or the
 * histogram's count.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar io.gridlimit.bench.LatencyTable latency-sample.csv results/latency
 * }</pre>
 * Either argument may name a missing file or directory (its rows are then left out).
 */
public final class LatencyTable {
    private LatencyTable() {
    }

    /**
     * Prints the table to standard output.
     *
     * @param args the JMH SampleTime CSV and the directory of {@code .hlat} files
     * @throws IOException if a present file cannot be read
     * @throws IllegalArgumentException if the arguments are not two, or a file is malformed
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: LatencyTable <latency-sample.csv> <latency-dir>, got " + args.length + " arguments");
        }
        Path csv = Path.of(args[0]);
        List<String> csvLines = Files.isRegularFile(csv)
                ? Files.readAllLines(csv, StandardCharsets.UTF_8) : List.of();
        List<List<String>> files = new ArrayList<>();
        Path dir = Path.of(args[1]);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> list = Files.list(dir)) {
                for (Path file : list.filter(p -> p.toString().endsWith(AsyncLatency.SUFFIX)).sorted().toList()) {
                    files.add(Files.readAllLines(file, StandardCharsets.UTF_8));
                }
            }
        }
        System.out.print(render(csvLines, files));
    }

    /**
     * Renders the note and the table.
     *
     * @param sampleCsv the lines of the SampleTime pass's JMH CSV, or an empty list
     * @param histogramFiles the lines of each {@code .hlat} file
     * @return the Markdown, never null
     * @throws IllegalArgumentException if the CSV lacks JMH's columns or a file lacks a header value
     */
    static String render(List<String> sampleCsv, List<List<String>> histogramFiles) {
        StringBuilder out = new StringBuilder();
        out.append("Latency, µs. Sync rows: JMH SampleTime (`-bm sample`), calls sampled on every caller thread,"
                + " closed loop with one call in flight per thread. Async rows: HdrHistogram per trial, from just"
                + " before submission to the completion callback, measured iterations only, closed loop with"
                + " threads × " + InFlight.PERMITS + " in flight: there a latency is mostly queueing behind the"
                + " others in flight (mean ≈ in flight ÷ throughput), not a lone request's. Neither corrects for"
                + " coordinated omission.\n\n");
        out.append("| benchmark | parameters | threads | p50 (µs) | p99 (µs) | p99.9 (µs) | samples | source |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (String[] row : sampleRows(sampleCsv)) {
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        for (List<String> file : histogramFiles) {
            Map<String, String> h = header(file);
            int threads = Integer.parseInt(need(h, "threads"));
            int perThread = Integer.parseInt(need(h, "inFlightPerThread"));
            out.append("| ").append(need(h, "benchmark"))
                    .append(" | ").append(h.getOrDefault("params", ""))
                    .append(" | ").append(threads)
                    .append(" | ").append(micros(Double.parseDouble(need(h, "p50_us"))))
                    .append(" | ").append(micros(Double.parseDouble(need(h, "p99_us"))))
                    .append(" | ").append(micros(Double.parseDouble(need(h, "p999_us"))))
                    .append(" | ").append(String.format(Locale.ROOT, "%,d", Long.parseLong(need(h, "count"))))
                    .append(" | HdrHistogram, closed loop with ").append(threads * perThread).append(" in flight (")
                    .append(threads).append(" × ").append(perThread).append(")")
                    .append(" |\n");
        }
        return out.toString();
    }

    /** One table row per sampled benchmark and parameter set: benchmark, params, threads, p50, p99, p99.9, n, source. */
    static List<String[]> sampleRows(List<String> csvLines) {
        if (csvLines.isEmpty()) {
            return List.of();
        }
        List<String> header = ResultsTable.parse(csvLines.get(0));
        int name = ResultsTable.column(header, "Benchmark");
        int mode = ResultsTable.column(header, "Mode");
        int threads = ResultsTable.column(header, "Threads");
        int samples = ResultsTable.column(header, "Samples");
        int score = ResultsTable.column(header, "Score");
        int unit = ResultsTable.column(header, "Unit");
        List<Integer> params = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            if (header.get(i).startsWith("Param: ")) {
                params.add(i);
            }
        }
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : csvLines.subList(1, csvLines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> row = ResultsTable.parse(line);
            if (!"sample".equals(row.get(mode))) {
                continue;
            }
            String full = ResultsTable.shortName(row.get(name));
            int cut = Math.max(full.lastIndexOf(':'), full.lastIndexOf('\u00b7'));
            String benchmark = cut < 0 ? full : full.substring(0, cut);
            String label = ResultsTable.label(header, row, params);
            String[] out = rows.computeIfAbsent(benchmark + "|" + label, k -> new String[] {
                benchmark, label, row.get(threads), "—", "—", "—", "—", "JMH sample, closed loop, 1 in flight per thread"
            });
            double value = toMicros(Double.parseDouble(row.get(score)), row.get(unit));
            String percentile = cut < 0 ? "" : full.substring(cut + 1);
            switch (percentile) {
                case "" -> out[6] = String.format(Locale.ROOT, "%,d", Long.parseLong(row.get(samples)));
                case "p0.50" -> out[3] = micros(value);
                case "p0.99" -> out[4] = micros(value);
                case "p0.999" -> out[5] = micros(value);
                default -> {
                    // other percentiles: in the CSV, not in the table
                }
            }
        }
        return new ArrayList<>(rows.values());
    }

    /** Converts a JMH time-per-operation score to microseconds. */
    static double toMicros(double value, String unit) {
        return switch (unit) {
            case "ns/op" -> value / 1000.0;
            case "us/op" -> value;
            case "ms/op" -> value * 1000.0;
            case "s/op" -> value * 1_000_000.0;
            default -> throw new IllegalArgumentException("not a time per operation: '" + unit + "'");
        };
    }

    /** Microseconds with 2 decimals below 10, 1 below 1000, none above (thousands separated). */
    static String micros(double us) {
        if (us < 10) {
            return String.format(Locale.ROOT, "%.2f", us);
        }
        if (us < 1000) {
            return String.format(Locale.ROOT, "%.1f", us);
        }
        return String.format(Locale.ROOT, "%,.0f", us);
    }

    private static Map<String, String> header(List<String> lines) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : lines) {
            if (line.startsWith("# ")) {
                int eq = line.indexOf('=');
                if (eq > 2) {
                    values.put(line.substring(2, eq), line.substring(eq + 1));
                }
            }
        }
        return values;
    }

    private static String need(Map<String, String> header, String key) {
        String value = header.get(key);
        if (value == null) {
            throw new IllegalArgumentException("latency file lacks '# " + key + "=': " + header);
        }
        return value;
    }
}
