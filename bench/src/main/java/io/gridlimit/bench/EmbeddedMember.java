package io.gridlimit.bench;

import com.hazelcast.core.HazelcastInstance;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH state holding the one embedded Hazelcast member of a grid benchmark trial ({@link BenchMember#config()}),
 * shared by all benchmark threads of the fork. Started before the trial, shut down after it. The benchmark
 * threads are the member's callers on the same JVM: an {@code executeOnKey} runs on one of the member's
 * partition threads and the caller waits for it; nothing crosses a network, and with one member there are no
 * backups. Thread-safe once set up.
 */
@State(Scope.Benchmark)
public class EmbeddedMember {
    private HazelcastInstance instance;
    private AsyncLatency latency;

    /**
     * Starts the member.
     *
     * @param trialLatency the trial's count of asynchronous decisions in flight, waited for before the member stops
     */
    @Setup(Level.Trial)
    public void start(AsyncLatency trialLatency) {
        latency = trialLatency;
        instance = BenchMember.start();
    }

    /**
     * Shuts the member down, once the trial's asynchronous decisions still in flight completed (JMH may run this
     * while other benchmark threads still drain theirs; see {@link AsyncLatency#awaitQuiet}).
     */
    @TearDown(Level.Trial)
    public void stop() {
        if (latency != null) {
            latency.awaitQuiet(AsyncLatency.QUIET_WAIT_MILLIS);
        }
        if (instance != null) {
            instance.shutdown();
        }
    }

    /** @return the running member, never null after setup */
    public HazelcastInstance instance() {
        return instance;
    }
}
