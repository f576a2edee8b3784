package io.gridlimit.nemesis.check;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks nemesis histories from the command line ({@code bench/nemesis.sh --check FILE...}, which compiles this
 * package with {@code javac} alone): prints the {@link Report} and exits 0 when no history has a violation or lost
 * state, 1 when one has, 2 when a file cannot be read or is malformed (the message names the file and line).
 */
public final class CheckMain {
    private CheckMain() {
    }

    /**
     * @param args one or more history files
     */
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: CheckMain HISTORY...");
            System.exit(2);
        }
        List<Map.Entry<String, Checker.Result>> results = new ArrayList<>();
        for (String a : args) {
            try {
                results.add(Map.entry(a, Checker.check(History.read(Path.of(a)))));
            } catch (IOException | IllegalArgumentException | ArithmeticException e) {
                System.err.println("nemesis check: " + a + ": " + e.getMessage());
                System.exit(2);
            }
        }
        Report report = Report.of(results);
        System.out.print(report);
        System.exit(report.violations() == 0 && report.lost() == 0 ? 0 : 1);
    }
}
