package io.gridlimit.micronaut.support;

import com.hazelcast.core.HazelcastException;
import io.gridlimit.algorithm.LimiterState;
import io.gridlimit.algorithm.Outcome;
import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.decide.LocalFallbackFactory;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * In contexts that set {@code gridlimit-test.switchable-grid=true}: replaces the rate limiter with a
 * {@link Grid} a test switches between answering (the pure algorithms on an in-memory map at a fixed reading, the
 * grid's exact semantics without Hazelcast), never answering, failing and answering too late; and the {@link LocalFallback} with one
 * whose clock is a {@link ManualTimeSource} the test moves ({@link #LOCAL_START}). No Hazelcast member starts.
 */
@Factory
@Requires(property = "gridlimit-test.switchable-grid", value = "true")
public class SwitchableGrid {
    /** Where the local clock starts: 2026-01-01T00:00:00Z, aligned to every window of 1 s to 1 h. */
    public static final long LOCAL_START = 1_767_225_600_000_000_000L;

    /** @return the switchable grid, answering at first */
    @Singleton
    @Replaces(RateLimiter.class)
    public Grid grid() {
        return new Grid();
    }

    /** @return the local clock the fallback reads */
    @Singleton
    public LocalClock localClock() {
        return new LocalClock(new ManualTimeSource(LOCAL_START));
    }

    /**
     * @param config the checked configuration
     * @param clock the manual local clock
     * @return the local fallback on the manual clock
     */
    @Singleton
    @Replaces(value = LocalFallback.class, factory = LocalFallbackFactory.class)
    public LocalFallback localFallback(GridLimitConfig config, LocalClock clock) {
        return new LocalFallback(config.policies().values(), config.local(), clock.time());
    }

    /** The manual clock of local decisions (a holder, so it is not a second {@code TimeSource} bean). */
    public record LocalClock(ManualTimeSource time) {
    }

    /** What the grid does with the next requests. */
    public enum Mode {
        /** Decide. */
        UP,
        /** Never complete the stage (a grid that does not answer). */
        NEVER,
        /** Fail the stage with a Hazelcast exception. */
        FAIL,
        /**
         * Decide at once (the grid's state is consumed, as on an overloaded grid that got the request) but hold the
         * answer until {@link Grid#answerLate()}: past {@code grid-timeout}, a grid too slow to be heard.
         */
        SLOW
    }

    /** A limiter a test can switch off and on. Counts the calls. */
    public static final class Grid implements RateLimiter {
        /** The grid's fixed reading: the local clock's start plus one hour (a different clock on purpose). */
        public static final long GRID_NOW = LOCAL_START + 3_600_000_000_000L;

        private final ConcurrentHashMap<String, LimiterState> states = new ConcurrentHashMap<>();
        private final AtomicInteger calls = new AtomicInteger();
        private final List<CompletableFuture<Decision>> held = new CopyOnWriteArrayList<>();
        private final List<Decision> heldDecisions = new CopyOnWriteArrayList<>();
        private volatile Mode mode = Mode.UP;

        /** @param mode what the next requests get */
        public void mode(Mode mode) {
            this.mode = mode;
        }

        /** @return how many decisions were asked for */
        public int calls() {
            return calls.get();
        }

        /**
         * Delivers every answer {@link Mode#SLOW} held (a cancelled stage ignores it).
         *
         * @return the decisions the grid took on those requests, in order
         */
        public List<Decision> answerLate() {
            List<Decision> decisions = List.copyOf(heldDecisions);
            for (int i = 0; i < held.size(); i++) {
                held.get(i).complete(heldDecisions.get(i));
            }
            held.clear();
            heldDecisions.clear();
            return decisions;
        }

        @Override
        public Decision tryAcquire(Policy policy, String key, long cost) {
            throw new UnsupportedOperationException("blocking path not used by the filter");
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
            calls.incrementAndGet();
            Mode m = mode;
            switch (m) {
                case NEVER:
                    return new CompletableFuture<>();
                case FAIL:
                    return CompletableFuture.failedFuture(new HazelcastException("member lost"));
                default:
                    Decision[] d = new Decision[1];
                    states.compute(policy.name() + '\0' + key, (k, s) -> {
                        Outcome o = RateLimitAlgorithms.apply(s, policy, cost, GRID_NOW);
                        d[0] = o.decision();
                        return o.write() ? o.state() : s;
                    });
                    if (m == Mode.SLOW) {
                        CompletableFuture<Decision> late = new CompletableFuture<>();
                        heldDecisions.add(d[0]);
                        held.add(late);
                        return late;
                    }
                    return CompletableFuture.completedFuture(d[0]);
            }
        }
    }
}
