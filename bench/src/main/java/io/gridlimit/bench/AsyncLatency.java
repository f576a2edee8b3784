package io.gridlimit.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latency of the asynchronous rows, for one trial: every decision {@link InFlight} submits during a MEASURED
 * iteration (warm-up ones are not recorded) is timed with {@code System.nanoTime()} from just before its submission
 * (after its in-flight permit was taken) to its completion callback, into an HdrHistogram
 * ({@link ConcurrentHistogram}, 3 significant digits, recorded from whichever thread completes the decision). A
 * decision counts in the iteration it was submitted in. Failed decisions are not recorded (they fail the iteration).
 *
 * <p>This is a CLOSED loop: each of the JMH threads keeps {@value InFlight#PERMITS} decisions in flight and submits
 * the next when one completes, so at saturation a latency is mostly queueing behind the others in flight (mean
 * about in-flight ÷ throughput, Little's law), and nothing corrects for coordinated omission. It says how long a
 * caller of the async API waits under that load, not the latency of a lone request.
 *
 * <p>At the end of the trial (after every recorded decision completed, waited for up to 30 s) it writes
 * {@code <BenchOutput.dir()>/latency/<Class.method>[__params].hlat}: header lines {@code # key=value} (benchmark,
 * params as {@link ResultsTable} labels them, threads, inFlightPerThread, count, p50_us, p99_us, p999_us, max_us,
 * mean_us), then HdrHistogram's percentile distribution in microseconds. {@link LatencyTable} reads these files.
 * Thread-safe.
 */
@State(Scope.Benchmark)
public class AsyncLatency {
    /** Sub-directory of {@link BenchOutput#dir()} holding the files. */
    public static final String DIR = "latency";
    /** File name suffix of the files. */
    public static final String SUFFIX = ".hlat";

    /** How long a teardown waits for the trial's decisions in flight, in milliseconds. */
    public static final long QUIET_WAIT_MILLIS = 30_000;

    private final Histogram histogram = new ConcurrentHistogram(3);
    private final LongAdder pending = new LongAdder();
    private volatile boolean measuring;
    private BenchmarkParams params;

    /**
     * Keeps the trial's parameters for the file written at its end.
     *
     * @param benchmarkParams the trial's parameters
     */
    @Setup(Level.Trial)
    public void startTrial(BenchmarkParams benchmarkParams) {
        this.params = benchmarkParams;
        histogram.reset();
    }

    /**
     * Records the next iteration's decisions only if it is a measured one.
     *
     * @param iteration the iteration's parameters
     */
    @Setup(Level.Iteration)
    public void startIteration(IterationParams iteration) {
        measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    /**
     * Called just before a submission.
     *
     * @return the start time to pass to {@link #completed} or {@link #abandoned}: {@code System.nanoTime()} in a
     *     measured iteration, else -1 (not recorded)
     */
    long submitting() {
        pending.increment();
        return measuring ? System.nanoTime() : -1;
    }

    /**
     * Called when a submitted decision completed.
     *
     * @param startNanos what {@link #submitting} returned
     * @param failed whether it completed exceptionally (not recorded)
     */
    void completed(long startNanos, boolean failed) {
        if (startNanos != -1 && !failed) {
            histogram.recordValue(Math.max(0, System.nanoTime() - startNanos));
        }
        pending.decrement();
    }

    /** Called when a submission threw (nothing is in flight for it). */
    void abandoned() {
        pending.decrement();
    }

    /**
     * Waits until every submitted decision of the trial has completed. JMH runs a trial's teardown on the first
     * benchmark thread done with its last iteration, while other threads may still be draining their
     * {@link InFlight}; whatever stops the grid (a member, a cluster) calls this first, so that no decision still
     * in flight fails on a stopped instance. No thread submits after the last iteration, so the count only falls.
     *
     * @param timeoutMillis how long to wait at most, in milliseconds
     * @return true when nothing is in flight, false on timeout or interruption
     */
    public boolean awaitQuiet(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (pending.sum() > 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /**
     * Waits for the decisions still in flight and writes the trial's file.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    @TearDown(Level.Trial)
    public void endTrial() {
        awaitQuiet(QUIET_WAIT_MILLIS);
        if (params == null || histogram.getTotalCount() == 0) {
            return;
        }
        String benchmark = params.getBenchmark().replace("io.gridlimit.bench.", "");
        TreeMap<String, String> values = new TreeMap<>();
        for (String key : params.getParamsKeys()) {
            values.put(key, params.getParam(key));
        }
        String label = ResultsTable.label(values);
        StringBuilder out = new StringBuilder();
        out.append("# benchmark=").append(benchmark).append('\n');
        out.append("# params=").append(label).append('\n');
        out.append("# threads=").append(params.getThreads()).append('\n');
        out.append("# inFlightPerThread=").append(InFlight.PERMITS).append('\n');
        out.append("# count=").append(histogram.getTotalCount()).append('\n');
        out.append("# p50_us=").append(micros(histogram.getValueAtPercentile(50.0))).append('\n');
        out.append("# p99_us=").append(micros(histogram.getValueAtPercentile(99.0))).append('\n');
        out.append("# p999_us=").append(micros(histogram.getValueAtPercentile(99.9))).append('\n');
        out.append("# max_us=").append(micros(histogram.getMaxValue())).append('\n');
        out.append("# mean_us=").append(String.format(Locale.ROOT, "%.3f", histogram.getMean() / 1000.0))
                .append('\n');
        out.append("# unfinished=").append(pending.sum()).append('\n');
        ByteArrayOutputStream distribution = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(distribution, true, StandardCharsets.UTF_8)) {
            histogram.outputPercentileDistribution(print, 1000.0);
        }
        out.append(distribution.toString(StandardCharsets.UTF_8));
        String name = (benchmark + (label.isEmpty() ? "" : "__" + label)).replaceAll("[^A-Za-z0-9._=-]", "_");
        Path dir = BenchOutput.dir().resolve(DIR);
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name + SUFFIX), out.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the latency file of " + benchmark + " in " + dir, e);
        }
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }
}
