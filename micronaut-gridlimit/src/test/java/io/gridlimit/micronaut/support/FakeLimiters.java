package io.gridlimit.micronaut.support;

import com.hazelcast.core.HazelcastException;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Replaces the rate limiter in contexts that set {@code gridlimit-test.limiter}: {@code never} gives stages that
 * never complete (a grid that never answers), {@code fail} gives stages that fail with a Hazelcast exception.
 * No Hazelcast member starts for them.
 */
@Factory
@Requires(property = "gridlimit-test.limiter")
public class FakeLimiters {
    /**
     * @param mode never or fail
     * @return the fake limiter
     */
    @Singleton
    @Replaces(RateLimiter.class)
    public BrokenGrid brokenGrid(@Value("${gridlimit-test.limiter}") String mode) {
        return new BrokenGrid("fail".equals(mode));
    }

    /** A limiter whose grid never answers, or always fails. Counts the calls. */
    public static final class BrokenGrid implements RateLimiter {
        private final boolean fail;
        private final AtomicInteger calls = new AtomicInteger();
        private final List<CompletableFuture<Decision>> unanswered = new CopyOnWriteArrayList<>();

        BrokenGrid(boolean fail) {
            this.fail = fail;
        }

        /** @return how many decisions were asked for */
        public int calls() {
            return calls.get();
        }

        /** @return the never-answered stages handed out, in order */
        public List<CompletableFuture<Decision>> unanswered() {
            return unanswered;
        }

        @Override
        public Decision tryAcquire(Policy policy, String key, long cost) {
            throw new UnsupportedOperationException("blocking path not used by the filter");
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(Policy policy, String key, long cost) {
            calls.incrementAndGet();
            if (fail) {
                return CompletableFuture.failedFuture(new HazelcastException("member lost"));
            }
            CompletableFuture<Decision> never = new CompletableFuture<>();
            unanswered.add(never);
            return never;
        }
    }
}
