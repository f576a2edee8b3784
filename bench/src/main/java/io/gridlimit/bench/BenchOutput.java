package io.gridlimit.bench;

import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * Where the benchmarks write their side files (per-trial latency histograms, cluster member logs): the directory
 * named by the system property {@value #PROPERTY} ({@code bench/run.sh} passes its output directory; JMH forks
 * inherit the host JVM's {@code -D} options), else {@code bench-out} beside the benchmarks jar (for example
 * {@code bench/target-x/bench-out}). Stateless; thread-safe.
 */
public final class BenchOutput {
    /** The system property naming the output directory. */
    public static final String PROPERTY = "gridlimit.bench.out";

    private BenchOutput() {
    }

    /**
     * Returns the output directory (not created here).
     *
     * @return an absolute path, never null
     */
    public static Path dir() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        try {
            Path code = Path.of(BenchOutput.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code.toAbsolutePath().getParent().resolve("bench-out");
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("bench-out").toAbsolutePath();
        }
    }
}
