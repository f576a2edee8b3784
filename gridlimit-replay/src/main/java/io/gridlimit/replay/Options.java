package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command line of the replay (issue 24 §1, README "Replay"):
 * <pre>
 * --log FILE [--log FILE ...]   access logs, replayed as one log in the order given; - is standard input; a name
 *                               ending in .gz is read as gzip
 * --format combined|common|json-lines
 * --config FILE                 the service's application.yml / .yaml / .properties
 * [--json OUT] [--html OUT]     reports
 * [--reorder-window 5m]         log time lines may be out of order by (ms, s, m, h, d or ISO-8601); default 5m
 * [--max-bad-lines 1%]          unparseable lines tolerated: a share of the lines (N%) or a count (N); default 1%
 * [--show-keys]                 reports show keys as they are instead of as hashes
 * </pre>
 *
 * @param logs the inputs in order ({@code -} for standard input)
 * @param format the log format
 * @param config the configuration file
 * @param json where the JSON report goes, or null
 * @param html where the HTML report goes, or null
 * @param reorderWindowNanos the reorder window in nanoseconds, >= 0
 * @param maxBadPercent the tolerated share of bad lines in percent, or -1 when a count is given
 * @param maxBadCount the tolerated count of bad lines, or -1 when a share is given
 * @param showKeys true to show raw keys
 */
public record Options(List<String> logs, LogFormat format, Path config, @Nullable Path json, @Nullable Path html,
                      long reorderWindowNanos, double maxBadPercent, long maxBadCount, boolean showKeys) {
    /** The usage text printed with a usage error. */
    public static final String USAGE = "usage: java -jar gridlimit-replay-<version>-all.jar --log FILE [--log FILE ...]"
            + " --format combined|common|json-lines --config application.yml|application.properties [--json OUT]"
            + " [--html OUT] [--reorder-window 5m] [--max-bad-lines 1%] [--show-keys]";

    /** A command line the replay cannot run: the message names the option and the value. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments
     * @return the options, never null
     * @throws UsageException naming the option and value that are missing, unknown or malformed
     */
    public static Options parse(String[] args) throws UsageException {
        List<String> logs = new ArrayList<>();
        LogFormat format = null;
        Path config = null;
        Path json = null;
        Path html = null;
        long window = Duration.ofMinutes(5).toNanos();
        double percent = 1;
        long count = -1;
        boolean showKeys = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--show-keys")) {
                showKeys = true;
                continue;
            }
            if (!a.startsWith("--")) {
                throw new UsageException("unexpected argument '" + a + "'");
            }
            if (i + 1 >= args.length) {
                throw new UsageException(a + ": a value is missing");
            }
            String v = args[++i];
            switch (a) {
                case "--log" -> logs.add(v);
                case "--format" -> format = LogFormat.parse(v);
                case "--config" -> config = Path.of(v);
                case "--json" -> json = Path.of(v);
                case "--html" -> html = Path.of(v);
                case "--reorder-window" -> window = duration(a, v).toNanos();
                case "--max-bad-lines" -> {
                    String t = v.trim();
                    try {
                        if (t.endsWith("%")) {
                            percent = Double.parseDouble(t.substring(0, t.length() - 1));
                            count = -1;
                            if (!(percent >= 0 && percent <= 100)) {
                                throw new NumberFormatException();
                            }
                        } else {
                            count = Long.parseLong(t);
                            percent = -1;
                            if (count < 0) {
                                throw new NumberFormatException();
                            }
                        }
                    } catch (NumberFormatException e) {
                        throw new UsageException("--max-bad-lines: '" + v + "' is neither a share in [0%, 100%] "
                                + "nor a count >= 0");
                    }
                }
                default -> throw new UsageException("unknown option '" + a + "'");
            }
        }
        if (logs.isEmpty()) {
            throw new UsageException("--log: missing (give at least one file, or - for standard input)");
        }
        if (format == null) {
            throw new UsageException("--format: missing (combined, common or json-lines)");
        }
        if (config == null) {
            throw new UsageException("--config: missing (the service's application.yml or .properties)");
        }
        if (logs.stream().filter("-"::equals).count() > 1) {
            throw new UsageException("--log: '-' (standard input) given more than once");
        }
        return new Options(List.copyOf(logs), format, config, json, html, window, percent, count, showKeys);
    }

    /** {@code 300ms}, {@code 90s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601 ({@code PT5M}); not negative. */
    static Duration duration(String option, String v) throws UsageException {
        String t = v.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.startsWith("p")) {
                d = Duration.parse(t.toUpperCase(Locale.ROOT));
            } else if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else {
                long n = Long.parseLong(t.substring(0, t.length() - 1));
                d = switch (t.charAt(t.length() - 1)) {
                    case 's' -> Duration.ofSeconds(n);
                    case 'm' -> Duration.ofMinutes(n);
                    case 'h' -> Duration.ofHours(n);
                    case 'd' -> Duration.ofDays(n);
                    default -> throw new NumberFormatException();
                };
            }
            if (d.isNegative() || d.compareTo(Duration.ofDays(365)) > 0) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
            throw new UsageException(option + ": '" + v + "' is not a duration in [0, 365d] such as 300ms, 90s, 5m, "
                    + "2h, 1d or PT5M");
        }
    }
}
