package io.gridlimit.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The Redis peers ({@link RedisLimiters}): a sliding-window counter of 100 per 1 s, as GridLimit's
 * {@code sliding-window-counter} row, over the same {@value BenchKeys#COUNT} uniform keys and
 * {@value GridFloorBenchmark#THREADS} caller threads, synchronous (each thread waits for its answer over its own
 * pooled connection). The harness starts {@code redis-server} on a free loopback port per fork and stops it.
 * Redis runs on the same 2 cores as the JVM (as GridLimit's member does, in-process).
 *
 * <p>Run just this class:
 * <pre>{@code
 * java -jar bench/target/benchmarks.jar RedisBenchmark -f 1 -wi 2 -w 2s -i 3 -r 3s
 * }</pre>
 */
@Fork(1)
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class RedisBenchmark {
    private RedisServer server;
    private JedisPool pool;
    private RedisLimiters limiters;

    /** Starts redis-server and the pool. */
    @Setup(Level.Trial)
    public void setUp() {
        server = RedisServer.start();
        JedisPoolConfig config = new JedisPoolConfig();
        config.setMaxTotal(GridFloorBenchmark.THREADS * 2);
        config.setMaxIdle(GridFloorBenchmark.THREADS * 2);
        pool = new JedisPool(config, "127.0.0.1", server.port());
        limiters = new RedisLimiters(pool, BenchPolicies.RATE_PER_SECOND, 1);
    }

    /** Closes the pool and stops the server. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** @return whether admitted, by the atomic Lua script */
    @Benchmark
    public boolean luaSlidingWindow() {
        return limiters.luaSlidingWindow(BenchKeys.next());
    }

    /** @return whether admitted, by the seeds' two-pipeline code */
    @Benchmark
    public boolean seedsTwoPipelines() {
        return limiters.seedsTwoPipelines(BenchKeys.next());
    }
}
