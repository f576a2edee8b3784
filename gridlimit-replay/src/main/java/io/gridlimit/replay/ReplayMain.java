package io.gridlimit.replay;

import io.gridlimit.micronaut.config.BootFailure;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The replay's command line (issue 24; {@link Options} lists the options): reads the configuration as the service
 * does ({@link ReplayConfig}), reads and orders the log ({@link LogReader}, {@link ReorderWindow}) on a reader thread,
 * which also prepares each record ({@link Replayer#prepare}: its routes, its keys, and the hand-over to each policy
 * alone), while the calling thread replays it in that order ({@link Pipeline}, {@link Replayer#accept}); refuses a log
 * with more unparseable lines than {@code --max-bad-lines}, then prints the {@link Summary} and writes the
 * {@code --json} ({@link JsonReport}) and {@code --html} ({@link HtmlReport}) reports.
 * Exit status: 0 done, 1 refused (configuration, input, bad lines), 2 usage.
 */
public final class ReplayMain {
    private ReplayMain() {
    }

    /**
     * Runs the replay and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /**
     * Runs the replay.
     *
     * @param args the command line
     * @param stdin what {@code --log -} reads
     * @param out where the summary goes
     * @param err where errors and progress go
     * @return the exit status: 0 done, 1 refused, 2 usage error
     */
    public static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.UsageException e) {
            err.println("gridlimit-replay: " + e.getMessage());
            err.println(Options.USAGE);
            return 2;
        }
        try {
            ReplayRun run = replay(options, stdin, err);
            Summary.print(run, out);
            if (options.json() != null) {
                Files.writeString(options.json(), JsonReport.write(run), StandardCharsets.UTF_8);
            }
            if (options.html() != null) {
                Files.writeString(options.html(), HtmlReport.write(run), StandardCharsets.UTF_8);
            }
            return 0;
        } catch (Refusal e) {
            err.println("gridlimit-replay: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("gridlimit-replay: " + (e instanceof NoSuchFileException ? "'" + e.getMessage()
                    + "' does not exist" : e.getMessage()));
            return 1;
        } catch (RuntimeException e) {
            // a configuration the library refuses: its one sentence, as the service logs it
            err.println("gridlimit-replay: " + BootFailure.reason(e).orElse(e instanceof IllegalArgumentException
                    ? e.getMessage() : e.toString()));
            return 1;
        }
    }

    /**
     * Replays a log.
     *
     * @param options the command line
     * @param stdin what {@code -} reads
     * @param err where progress goes
     * @return the finished replay
     * @throws IOException if the configuration or a log cannot be read
     * @throws Refusal when there are more unparseable lines than {@code --max-bad-lines}
     */
    static ReplayRun replay(Options options, InputStream stdin, PrintStream err) throws IOException, Refusal {
        try (ReplayConfig.Loaded config = ReplayConfig.load(options.config());
             Replayer replayer = new Replayer(config.config(), config.policies())) {
            if (!config.ignored().isEmpty()) {
                err.println("gridlimit-replay: left out " + config.ignored().size() + " setting(s) of the service and "
                        + "its Envoy door, which the replay does not run: " + String.join(", ", config.ignored()));
            }
            Pipeline pipeline = new Pipeline();
            // matched, keyed and handed to each policy alone on the reader thread, in replay order; decided on this one
            Consumer<LogRecord> sink = pipeline.sink();
            ReorderWindow window = new ReorderWindow(options.reorderWindowNanos(), r -> {
                replayer.prepare(r);
                sink.accept(r);
            });
            LogReader reader = new LogReader(options.format(), window, stdin, err);
            pipeline.run(() -> reader.read(options.logs()), replayer::accept);
            replayer.finish(); // before the replayer is closed: the reports read what each policy alone decided
            boolean tooMany = options.maxBadCount() >= 0 ? reader.bad() > options.maxBadCount()
                    : reader.bad() * 100.0 > options.maxBadPercent() * reader.lines();
            if (tooMany) {
                throw new Refusal(String.format(Locale.ROOT, "%d of %d lines (%s%%) are not %s lines, more than "
                        + "--max-bad-lines %s; the first at %s. Is --format right?", reader.bad(), reader.lines(),
                        Comparison.percent(reader.bad(), reader.lines()).toPlainString(),
                        options.format().optionName(), options.maxBadCount() >= 0 ? options.maxBadCount()
                                : java.math.BigDecimal.valueOf(options.maxBadPercent())
                                .stripTrailingZeros().toPlainString() + "%", String.join(", ", reader.badLines())));
            }
            return new ReplayRun(reader.lines(), reader.bad(), reader.badLines(), window.late(), window.lateLines(),
                    options.reorderWindowNanos(), options.showKeys(), replayer);
        }
    }

    /** A replay that must stop: the message says why, naming the value. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }
}
