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

/**
 * Prints {@link BatchingBenchmark}'s JMH CSV as a Markdown table: per topology, each row's keys decided per second
 * and its ratio to that topology's {@code individual} row of the same run (batched ÷ individual).
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar io.gridlimit.bench.BatchingTable bench/results/batching.csv
 * }</pre>
 * Not thread-safe (a command-line tool).
 */
public final class BatchingTable {
    private BatchingTable() {
    }

    /**
     * @param args the CSV file written by JMH ({@code -rf csv})
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException if no argument is given or a line is malformed
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: BatchingTable <jmh results.csv>");
        }
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        List<String> header = split(lines.get(0));
        int benchmark = header.indexOf("Benchmark");
        int score = header.indexOf("Score");
        int error = header.indexOf("Score Error (99.9%)");
        int topologyColumn = header.indexOf("Param: topology");
        Map<String, List<String[]>> byTopology = new LinkedHashMap<>();
        Map<String, Double> individual = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            List<String> cells = split(line);
            String name = cells.get(benchmark);
            String method = name.substring(name.lastIndexOf('.') + 1);
            String topology = topologyColumn < 0 ? "" : cells.get(topologyColumn);
            double value = Double.parseDouble(cells.get(score));
            byTopology.computeIfAbsent(topology, t -> new ArrayList<>()).add(
                    new String[] {method, cells.get(score), cells.get(error)});
            if (method.equals("individual")) {
                individual.put(topology, value);
            }
        }
        System.out.println("| topology | row | keys decided/s | ± 99.9% | × individual |");
        System.out.println("|---|---|---:|---:|---:|");
        for (Map.Entry<String, List<String[]>> e : byTopology.entrySet()) {
            Double base = individual.get(e.getKey());
            for (String[] row : e.getValue()) {
                double value = Double.parseDouble(row[1]);
                String ratio = base == null ? "—" : String.format(Locale.ROOT, "%.2f", value / base);
                System.out.printf(Locale.ROOT, "| %s | %s | %,.0f | %s | %s |%n", e.getKey(), row[0], value,
                        format(row[2]), ratio);
            }
        }
    }

    private static String format(String error) {
        try {
            return String.format(Locale.ROOT, "%,.0f", Double.parseDouble(error));
        } catch (NumberFormatException e) {
            return error;
        }
    }

    /** Splits one JMH CSV line: comma-separated, fields optionally in double quotes (none holds a quote). */
    private static List<String> split(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
