package io.gridlimit.micronaut.grid;

import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridLimitHazelcast;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Warms the decision path up before the HTTP server opens, so that the first real request is decided within
 * {@code gridlimit.grid-timeout} (100 ms by default) instead of falling to the failure mode while the JVM loads
 * and compiles the grid code and Hazelcast arranges its partition table.
 *
 * <p>On {@link StartupEvent} (after the context started, before the server binds) it makes, per configured
 * policy and with that policy's bands, one decision and one reservation that it gives back (docs/SPEC.md §10: the
 * filter, the decision API and Envoy take every decision as a reservation), under the key {@code warmup:<policy>} of a throwaway policy named
 * {@value #WARMUP_POLICY}, whose map {@code gridlimit.gridlimit_warmup} is destroyed afterwards: no configured
 * policy's state is touched. It waits at most {@value #MAX_WAIT_SECONDS} s on the main thread (never on the event
 * loop); failures are logged and ignored: readiness, not warm-up, tells whether the grid works.
 *
 * <p>It runs in every application that uses the library (the service and users' services alike), and only when the
 * application's limiter works on the grid ({@link GridOperations}): a replaced limiter (tests) is never called, and no
 * Hazelcast instance is ever created here. Off with {@code gridlimit.warmup.enabled: false}.
 */
@Singleton
@Requires(property = "gridlimit.warmup.enabled", notEquals = "false")
public class GridWarmup {
    /**
     * Name of the throwaway policy (and so of its map, {@code gridlimit.gridlimit_warmup}). The underscore makes it a
     * name no configured policy can have (configuration refuses names Micronaut's normalisation would change), so
     * destroying its map never touches a real policy's state.
     */
    public static final String WARMUP_POLICY = "gridlimit_warmup";
    /** Longest wait for the warm-up decisions, in seconds. */
    public static final int MAX_WAIT_SECONDS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(GridWarmup.class);

    private final RateLimiter rateLimiter;
    private final PolicyRegistry policies;

    /**
     * Creates the warm-up.
     *
     * @param rateLimiter the application's limiter
     * @param policies the configured policies
     */
    public GridWarmup(RateLimiter rateLimiter, PolicyRegistry policies) {
        this.rateLimiter = rateLimiter;
        this.policies = policies;
    }

    /**
     * Runs the warm-up decisions once the context has started.
     *
     * @param event the startup event
     */
    @EventListener
    public void onStartup(StartupEvent event) {
        GridOperations grid = GridOperations.of(rateLimiter).orElse(null);
        if (grid == null) {
            LOG.debug("no grid warm-up: the rate limiter is a {}", rateLimiter.getClass().getName());
            return;
        }
        long startNanos = System.nanoTime();
        List<CompletableFuture<?>> decisions = new ArrayList<>();
        for (Policy policy : policies.all()) {
            Policy standIn = standIn(policy);
            String key = "warmup:" + policy.name();
            try {
                decisions.add(rateLimiter.tryAcquireAsync(standIn, key, 1).toCompletableFuture());
                // the filter, the decision API and Envoy reserve: the reservation path (its state, the signature's
                // first key and MAC) and the give-back path are warmed too, or the first real request pays for them
                decisions.add(rateLimiter.reserveAsync(standIn, key, 1).thenCompose(d -> d.reservation() == null
                        ? CompletableFuture.completedFuture(null)
                        : rateLimiter.giveBack(standIn, d.reservation())).toCompletableFuture());
            } catch (RuntimeException e) {
                decisions.add(CompletableFuture.failedFuture(e));
            }
        }
        try {
            CompletableFuture.allOf(decisions.toArray(CompletableFuture[]::new))
                    .get(MAX_WAIT_SECONDS, TimeUnit.SECONDS);
            LOG.info("grid warm-up: {} policy(ies) in {} ms", policies.all().size(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("grid warm-up did not complete ({}); continuing", e.getClass().getSimpleName());
        }
        try {
            grid.instance().getMap(GridLimitHazelcast.mapName(WARMUP_POLICY)).destroy();
        } catch (RuntimeException e) {
            LOG.debug("could not destroy the warm-up map", e);
        }
    }

    /**
     * The throwaway policy that exercises a configured policy's algorithms.
     *
     * @param policy a configured policy
     * @return a policy named {@value #WARMUP_POLICY} with the same bands
     */
    static Policy standIn(Policy policy) {
        Policy.Builder builder = Policy.builder(WARMUP_POLICY);
        if (policy.isComposite()) {
            for (Band band : policy.bands()) {
                builder.band(band);
            }
        } else {
            builder.single(policy.bands().get(0));
        }
        return builder.build();
    }
}
