package io.gridlimit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a JMH CSV result file ({@code -rf csv -rff results.csv}) into the Markdown table of {@code bench/README.md}:
 * one row per benchmark and parameter, its throughput and 99.9% error, and for the grid rows two ratios measured
 * in the same run: against the no-op EntryProcessor floor ({@code GridFloorBenchmark.executeOnKey}) and against
 * Bucket4j's synchronous {@code tryConsume} ({@code Bucket4jBenchmark.tryConsume}). Ratios are plain quotients of
 * the two scores; the error columns show how far to trust them. Given JMH's console log as well, a column lists
 * the lowest and highest measured iteration of each row, which shows drift (warm-up, load) that a mean hides.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar io.gridlimit.bench.ResultsTable results.csv [jmh.log]
 * }</pre>
 */
public final class ResultsTable {
    static final String FLOOR = "GridFloorBenchmark.executeOnKey";
    static final String PEER = "Bucket4jBenchmark.tryConsume";
    static final String REDIS = "RedisBenchmark.luaSlidingWindow";

    private ResultsTable() {
    }

    /**
     * Prints the table to standard output.
     *
     * @param args the path of the JMH CSV file, optionally followed by the path of JMH's console log
     * @throws IOException if a file cannot be read
     * @throws IllegalArgumentException if no path is given or the CSV lacks JMH's columns
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            throw new IllegalArgumentException(
                    "usage: ResultsTable <jmh-results.csv> [jmh-console.log], got " + args.length + " arguments");
        }
        List<String> log = args.length == 2 ? Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8) : List.of();
        System.out.print(render(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8), log));
    }

    /**
     * Collects the measured (not warm-up) iteration scores from JMH's console log.
     *
     * @param logLines the lines of the log, possibly empty
     * @return scores per {@code "<Class.method>|<algorithm or empty>"}, in log order
     */
    static Map<String, List<Double>> iterations(List<String> logLines) {
        Map<String, List<Double>> byRow = new HashMap<>();
        String benchmark = null;
        String algorithm = "";
        for (String line : logLines) {
            if (line.startsWith("# Benchmark: ")) {
                benchmark = shortName(line.substring("# Benchmark: ".length()).trim());
                algorithm = "";
            } else if (line.startsWith("# Parameters: (")) {
                algorithm = paramLabel(line.substring("# Parameters: (".length(), line.length() - 1));
            } else if (benchmark != null && line.startsWith("Iteration ")) {
                int colon = line.indexOf(':');
                String[] words = line.substring(colon + 1).trim().split("\\s+");
                if (colon > 0 && words.length >= 1) {
                    try {
                        byRow.computeIfAbsent(benchmark + "|" + algorithm, k -> new ArrayList<>())
                                .add(Double.parseDouble(words[0]));
                    } catch (NumberFormatException e) {
                        // a line JMH interleaved with other output: not a score
                    }
                }
            }
        }
        return byRow;
    }

    /**
     * Renders the table.
     *
     * @param csvLines the lines of a JMH CSV result file, header first
     * @param logLines the lines of JMH's console log of the same run, or an empty list
     * @return the Markdown table, one line per result, never null
     * @throws IllegalArgumentException if the header lacks JMH's columns
     */
    static String render(List<String> csvLines, List<String> logLines) {
        Map<String, List<Double>> measured = iterations(logLines);
        if (csvLines.isEmpty()) {
            throw new IllegalArgumentException("empty JMH CSV: no header line");
        }
        List<String> header = parse(csvLines.get(0));
        int name = column(header, "Benchmark");
        int threads = column(header, "Threads");
        int score = column(header, "Score");
        int error = column(header, "Score Error (99.9%)");
        int unit = column(header, "Unit");
        List<Integer> params = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            if (header.get(i).startsWith("Param: ")) {
                params.add(i);
            }
        }
        List<List<String>> rows = new ArrayList<>();
        Map<String, Double> byName = new HashMap<>();
        for (String line : csvLines.subList(1, csvLines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> row = parse(line);
            rows.add(row);
            byName.putIfAbsent(shortName(row.get(name)), Double.parseDouble(row.get(score)));
        }
        Double floor = byName.get(FLOOR);
        Double peer = byName.get(PEER);
        Double redis = byName.get(REDIS);
        StringBuilder out = new StringBuilder();
        out.append("| benchmark | parameters | threads | score | ± 99.9% | iterations min – max | unit "
                + "| × no-op floor (sync) | × Bucket4j (sync) | × Redis Lua |\n");
        out.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (List<String> row : rows) {
            String benchmark = shortName(row.get(name));
            double value = Double.parseDouble(row.get(score));
            boolean grid = !benchmark.startsWith("AlgorithmBenchmark");
            String algorithm = label(header, row, params);
            out.append("| ").append(benchmark)
                    .append(" | ").append(algorithm)
                    .append(" | ").append(row.get(threads))
                    .append(" | ").append(format(value))
                    .append(" | ").append(format(parseOrNaN(row.get(error))))
                    .append(" | ").append(range(measured.get(benchmark + "|" + algorithm)))
                    .append(" | ").append(row.get(unit))
                    .append(" | ").append(grid ? ratio(value, floor) : "—")
                    .append(" | ").append(grid ? ratio(value, peer) : "—")
                    .append(" | ").append(grid ? ratio(value, redis) : "—")
                    .append(" |\n");
        }
        return out.toString();
    }

    /** The parameters of a CSV row: the algorithm's value alone, other parameters as {@code name=value}. */
    static String label(List<String> header, List<String> row, List<Integer> params) {
        StringBuilder b = new StringBuilder();
        for (int i : params) {
            if (i >= row.size() || row.get(i).isEmpty()) {
                continue;
            }
            String paramName = header.get(i).substring("Param: ".length());
            b.append(b.length() == 0 ? "" : ", ")
                    .append("algorithm".equals(paramName) ? "" : paramName + "=").append(row.get(i));
        }
        return b.toString();
    }

    /** The same label from JMH's log line {@code (a = x, b = y)} (inner text). */
    static String paramLabel(String inner) {
        StringBuilder b = new StringBuilder();
        for (String pair : inner.split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length != 2) {
                continue;
            }
            String paramName = kv[0].trim();
            b.append(b.length() == 0 ? "" : ", ")
                    .append("algorithm".equals(paramName) ? "" : paramName + "=").append(kv[1].trim());
        }
        return b.toString();
    }

    private static String shortName(String fullName) {
        String prefix = "io.gridlimit.bench.";
        return fullName.startsWith(prefix) ? fullName.substring(prefix.length()) : fullName;
    }

    private static int column(List<String> header, String title) {
        int i = header.indexOf(title);
        if (i < 0) {
            throw new IllegalArgumentException("JMH CSV header lacks column '" + title + "': " + header);
        }
        return i;
    }

    private static double parseOrNaN(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String format(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String range(List<Double> scores) {
        if (scores == null || scores.isEmpty()) {
            return "—";
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : scores) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return format(min) + " – " + format(max);
    }

    private static String ratio(double value, Double reference) {
        return reference == null || reference == 0 ? "—" : String.format(Locale.ROOT, "%.2f", value / reference);
    }

    /** Splits one CSV line with double-quoted fields ({@code ""} inside quotes is a quote). */
    static List<String> parse(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}
