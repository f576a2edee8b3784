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
import java.util.TreeMap;

/**
 * Turns a JMH CSV result file ({@code -rf csv -rff results.csv}) into the Markdown table of {@code bench/README.md}:
 * one row per benchmark and parameter, its throughput and 99.9% error, and for the grid rows three ratios measured
 * in the same run and the same topology: against the no-op EntryProcessor floor, Bucket4j's synchronous
 * {@code tryConsume} and the Redis Lua limiter (embedded rows only); {@link #render} says exactly which rows.
 * Ratios are plain quotients of the two scores; the error columns show how far to trust them. Given JMH's console log as well, a column lists
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
     * Renders the table, preceded by one paragraph saying how the ratios are formed.
     *
     * <p>Ratios compare within a topology. Rows without a {@code topology} parameter ran on one embedded member in
     * the JMH fork and divide by {@value #FLOOR}, {@value #PEER} and {@value #REDIS}. A {@code members-3} or
     * {@code client-3} row divides by the {@code floorExecuteOnKey} row of the same topology (at {@code sync}
     * backup, or any backup mode if that is missing: the no-op processor is read-only and runs no backup) and by
     * the {@code bucket4jTryConsume} row of the same topology AND backup mode (from {@link ClusterBenchmark} or
     * {@link ClusterBackupsBenchmark}); Redis ran only as one local server, so cluster rows have no Redis ratio.
     * The pure-function {@code AlgorithmBenchmark} rows have no ratio.
     *
     * @param csvLines the lines of a JMH CSV result file, header first
     * @param logLines the lines of JMH's console log of the same run, or an empty list
     * @return the note and the Markdown table, one line per result, never null
     * @throws IllegalArgumentException if the header lacks JMH's columns
     */
    static String render(List<String> csvLines, List<String> logLines) {
        Map<String, List<Double>> measured = iterations(logLines);
        List<Row> rows = rows(csvLines);
        StringBuilder out = new StringBuilder();
        out.append("Ratios: a row's score ÷ a reference row's score of the same run and the same topology. Embedded"
                + " rows (no `topology`: one member in the JMH fork): ÷ `" + FLOOR + "`, ÷ `" + PEER + "`, ÷ `"
                + REDIS + "`. `members-3` / `client-3` rows: ÷ that topology's `floorExecuteOnKey` (sync backup;"
                + " the no-op processor is read-only and runs no backup) and ÷ that topology's"
                + " `bucket4jTryConsume` at the same `backups`; no × Redis (Redis ran only as one local server)."
                + " × write floor (embedded rows only): ÷ `GridFloorBenchmark.rewriteExecuteOnKey` for a synchronous"
                + " row, ÷ `GridFloorBenchmark.rewriteInvocationFuture` for an asynchronous one (a Hazelcast write of"
                + " the same state with a TTL, without GridLimit's algorithm, policy, time reading and result)."
                + "\n\n");
        out.append("| benchmark | parameters | threads | score | ± 99.9% | iterations min – max | unit "
                + "| × no-op floor (sync) | × write floor (same mode) | × Bucket4j (sync) | × Redis Lua |\n");
        out.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            boolean grid = !row.benchmark().startsWith("AlgorithmBenchmark");
            out.append("| ").append(row.benchmark())
                    .append(" | ").append(row.label())
                    .append(" | ").append(row.threads())
                    .append(" | ").append(format(row.score()))
                    .append(" | ").append(format(row.error()))
                    .append(" | ").append(range(measured.get(row.benchmark() + "|" + row.label())))
                    .append(" | ").append(row.unit())
                    .append(" | ").append(grid ? ratio(row.score(), floorOf(row, rows)) : "—")
                    .append(" | ").append(grid ? ratio(row.score(), writeFloorOf(row, rows)) : "—")
                    .append(" | ").append(grid ? ratio(row.score(), peerOf(row, rows)) : "—")
                    .append(" | ").append(grid ? ratio(row.score(), redisOf(row, rows)) : "—")
                    .append(" |\n");
        }
        return out.toString();
    }

    /**
     * One result line of a JMH CSV file.
     *
     * @param benchmark {@code Class.method} (package removed)
     * @param params the parameters, sorted by name
     * @param threads the thread count as JMH wrote it
     * @param score the score (mean), in {@code unit}
     * @param error the 99.9% error, NaN when JMH gave none
     * @param unit the unit, for example {@code ops/s}
     */
    record Row(String benchmark, TreeMap<String, String> params, String threads, double score, double error,
               String unit) {
        /** @return the parameters as the table shows them ({@link ResultsTable#label(Map)}) */
        String label() {
            return ResultsTable.label(params);
        }

        /** @return the {@code topology} parameter, or null for an embedded row */
        String topology() {
            return params.get("topology");
        }

        /** @return the method name */
        String method() {
            return benchmark.substring(benchmark.lastIndexOf('.') + 1);
        }
    }

    /**
     * Parses a JMH CSV file's result lines.
     *
     * @param csvLines the lines, header first
     * @return the rows in file order, never null
     * @throws IllegalArgumentException if the file is empty or the header lacks JMH's columns
     */
    static List<Row> rows(List<String> csvLines) {
        if (csvLines.isEmpty()) {
            throw new IllegalArgumentException("empty JMH CSV: no header line");
        }
        List<String> header = parse(csvLines.get(0));
        int name = column(header, "Benchmark");
        int threads = column(header, "Threads");
        int score = column(header, "Score");
        int error = column(header, "Score Error (99.9%)");
        int unit = column(header, "Unit");
        List<Row> rows = new ArrayList<>();
        for (String line : csvLines.subList(1, csvLines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> row = parse(line);
            TreeMap<String, String> params = new TreeMap<>();
            for (int i = 0; i < header.size() && i < row.size(); i++) {
                if (header.get(i).startsWith("Param: ") && !row.get(i).isEmpty()) {
                    params.put(header.get(i).substring("Param: ".length()), row.get(i));
                }
            }
            rows.add(new Row(shortName(row.get(name)), params, row.get(threads), Double.parseDouble(row.get(score)),
                    parseOrNaN(row.get(error)), row.get(unit)));
        }
        return rows;
    }

    /** The floor a row divides by (see {@link #render}), or null. */
    static Double floorOf(Row row, List<Row> rows) {
        if (row.topology() == null) {
            return scoreOf(rows, r -> r.benchmark().equals(FLOOR) && r.topology() == null);
        }
        Double sync = scoreOf(rows, r -> r.method().equals("floorExecuteOnKey")
                && row.topology().equals(r.topology()) && "sync".equals(r.params().get("backups")));
        return sync != null ? sync : scoreOf(rows, r -> r.method().equals("floorExecuteOnKey")
                && row.topology().equals(r.topology()));
    }

    /**
     * The write floor an embedded row divides by (see {@link #render}): the asynchronous one for a row whose method
     * is asynchronous (its name contains {@code Async}, {@code submitToKey} or {@code InvocationFuture}, any case),
     * else the synchronous one; null for cluster rows.
     */
    static Double writeFloorOf(Row row, List<Row> rows) {
        if (row.topology() != null) {
            return null;
        }
        String method = row.method().toLowerCase(java.util.Locale.ROOT);
        boolean async = method.contains("async") || method.contains("submittokey")
                || method.contains("invocationfuture");
        String floor = async ? "GridFloorBenchmark.rewriteInvocationFuture" : "GridFloorBenchmark.rewriteExecuteOnKey";
        return scoreOf(rows, r -> r.benchmark().equals(floor) && r.topology() == null);
    }

    /** The Bucket4j sync row a row divides by (see {@link #render}), or null. */
    static Double peerOf(Row row, List<Row> rows) {
        if (row.topology() == null) {
            return scoreOf(rows, r -> r.benchmark().equals(PEER) && r.topology() == null);
        }
        return scoreOf(rows, r -> r.method().equals("bucket4jTryConsume") && row.topology().equals(r.topology())
                && java.util.Objects.equals(row.params().get("backups"), r.params().get("backups")));
    }

    /** The Redis Lua row an embedded row divides by, or null (cluster rows have none). */
    static Double redisOf(Row row, List<Row> rows) {
        return row.topology() == null ? scoreOf(rows, r -> r.benchmark().equals(REDIS)) : null;
    }

    private static Double scoreOf(List<Row> rows, java.util.function.Predicate<Row> which) {
        for (Row r : rows) {
            if (which.test(r)) {
                return r.score();
            }
        }
        return null;
    }

    /** The parameters of a CSV row: the algorithm's value alone, other parameters as {@code name=value}. */
    static String label(List<String> header, List<String> row, List<Integer> params) {
        TreeMap<String, String> values = new TreeMap<>();
        for (int i : params) {
            if (i < row.size() && !row.get(i).isEmpty()) {
                values.put(header.get(i).substring("Param: ".length()), row.get(i));
            }
        }
        return label(values);
    }

    /**
     * The label of a parameter set, as every table of the bench shows it: in name order, joined by {@code ", "},
     * the {@code algorithm} parameter as its value alone, every other as {@code name=value}.
     *
     * @param params parameter values by name
     * @return the label, empty when there is no parameter
     */
    static String label(Map<String, String> params) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(params).entrySet()) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append("algorithm".equals(e.getKey()) ? "" : e.getKey() + "=").append(e.getValue());
        }
        return b.toString();
    }

    /** The same label from JMH's log line {@code (a = x, b = y)} (inner text). */
    static String paramLabel(String inner) {
        TreeMap<String, String> values = new TreeMap<>();
        for (String pair : inner.split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length == 2) {
                values.put(kv[0].trim(), kv[1].trim());
            }
        }
        return label(values);
    }

    static String shortName(String fullName) {
        String prefix = "io.gridlimit.bench.";
        return fullName.startsWith(prefix) ? fullName.substring(prefix.length()) : fullName;
    }

    static int column(List<String> header, String title) {
        int i = header.indexOf(title);
        if (i < 0) {
            throw new IllegalArgumentException("JMH CSV header lacks column '" + title + "': " + header);
        }
        return i;
    }

    static double parseOrNaN(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    static String format(double v) {
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
