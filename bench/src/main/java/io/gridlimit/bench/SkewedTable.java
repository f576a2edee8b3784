package io.gridlimit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Turns the JMH CSV of the skewed rows ({@link SkewedBenchmark}, {@link SkewedClusterBenchmark}) into a Markdown
 * table: per workload and topology ({@code embedded} = one member in the fork, or {@code members-3}), each row's
 * throughput and 99.9 % error, and ratios to rows of the same workload and topology in the same run: × Bucket4j's
 * synchronous {@code tryConsume} (issue 14's targets: at least 5× on Zipf with one member, 10× with three),
 * × GridLimit without leases, × the in-process ceiling (embedded only). A row missing from the CSV (a Redis row
 * without {@code redis-server}) is listed as not measured.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar io.gridlimit.bench.SkewedTable skewed.csv
 * }</pre>
 */
public final class SkewedTable {
    /** Row methods in table order. */
    static final List<String> METHODS =
            List.of("gridLimitLeasesAsync", "gridLimitAsync", "bucket4jTryConsume", "redisLua", "inProcess");

    private SkewedTable() {
    }

    /**
     * Prints the table to standard output.
     *
     * @param args the path of the JMH CSV file
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if no path is given or the CSV lacks JMH's columns
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: SkewedTable <jmh-results.csv>, got " + args.length
                    + " arguments");
        }
        System.out.print(render(ResultsTable.rows(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8))));
    }

    /**
     * Renders the table.
     *
     * @param all the CSV's rows (other classes' rows are ignored)
     * @return the Markdown text, never null
     */
    static String render(List<ResultsTable.Row> all) {
        List<ResultsTable.Row> rows = new ArrayList<>();
        for (ResultsTable.Row r : all) {
            if (r.benchmark().startsWith("SkewedBenchmark.") || r.benchmark().startsWith("SkewedClusterBenchmark.")) {
                rows.add(r);
            }
        }
        rows.sort(Comparator.comparing((ResultsTable.Row r) -> workloadOrder(r.params().get("workload")))
                .thenComparing(r -> topologyOf(r).equals("embedded") ? 0 : 1)
                .thenComparing(r -> METHODS.indexOf(r.method())));
        StringBuilder b = new StringBuilder();
        b.append("| workload | topology | row | threads | score | ± 99.9% | unit | × Bucket4j (sync) | × GridLimit"
                + " without leases | × in-process |\n");
        b.append("|---|---|---|---:|---:|---:|---|---:|---:|---:|\n");
        List<String> missing = new ArrayList<>();
        for (String workload : SkewedKeys.WORKLOADS) {
            for (String topology : List.of("embedded", "members-3")) {
                List<String> expected = topology.equals("embedded") ? METHODS
                        : workload.equals(SkewedKeys.ZIPF) ? METHODS.subList(0, 3) : List.of();
                for (String method : expected) {
                    if (find(rows, workload, topology, method) == null) {
                        missing.add(workload + " / " + topology + " / " + method);
                    }
                }
            }
        }
        for (ResultsTable.Row r : rows) {
            String workload = r.params().get("workload");
            String topology = topologyOf(r);
            ResultsTable.Row peer = find(rows, workload, topology, "bucket4jTryConsume");
            ResultsTable.Row plain = find(rows, workload, topology, "gridLimitAsync");
            ResultsTable.Row ceiling = topology.equals("embedded") ? find(rows, workload, topology, "inProcess") : null;
            b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", workload,
                    topology, r.method(), r.threads(), ResultsTable.format(r.score()),
                    ResultsTable.format(r.error()), r.unit(), ratio(r, peer), ratio(r, plain), ratio(r, ceiling)));
        }
        if (!missing.isEmpty()) {
            b.append("\nNot measured in this run: ").append(String.join("; ", missing))
                    .append(" (Redis: redis-server missing;"
                            + " the class not run; or the row failed: see the log).\n");
        }
        return b.toString();
    }

    private static ResultsTable.Row find(List<ResultsTable.Row> rows, String workload, String topology, String method) {
        for (ResultsTable.Row r : rows) {
            if (r.method().equals(method) && workload.equals(r.params().get("workload"))
                    && topology.equals(topologyOf(r))) {
                return r;
            }
        }
        return null;
    }

    private static String topologyOf(ResultsTable.Row r) {
        String topology = r.params().get("topology");
        return topology == null ? "embedded" : topology;
    }

    private static int workloadOrder(String workload) {
        int i = List.of(SkewedKeys.WORKLOADS).indexOf(workload);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    private static String ratio(ResultsTable.Row row, ResultsTable.Row reference) {
        return reference == null || reference.score() == 0 ? "—"
                : String.format(Locale.ROOT, "%.2f", row.score() / reference.score());
    }
}
