package io.gridlimit.envoy;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsConfigException;
import io.gridlimit.envoy.config.RlsConfigReader;
import io.gridlimit.envoy.config.RlsFiles;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micrometer.core.instrument.Counter;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The envoyproxy/ratelimit rules in force, and their reload without a restart (docs/SPEC.md §12, "Reload").
 *
 * <p><b>Check.</b> Every {@code gridlimit.envoy-rls.reload-interval} (default 1 s; 0: never) one thread digests the
 * files {@code gridlimit.envoy-rls.config-files} stands for now ({@link RlsFiles#digest(List)}: their names and
 * contents, so a Kubernetes ConfigMap's {@code ..data} symlink swap, which inotify on the listed files does not
 * see, is seen like an edit in place or a file added or removed). A digest other than the set in force's becomes
 * a candidate; when the next check sees the same candidate (so a file caught half-written is never judged), the
 * files are read exactly as at boot ({@link RlsConfigReader#read}). A valid set is applied at once: the maps of its
 * policies are created as at boot ({@link #prepare}), then it replaces the set in force in one volatile write, so
 * every call decides with one set, old or new, never a mix; logged at INFO with its digest and counted
 * {@code result=applied}. A refused set leaves the set in force; it is logged at WARN with the boot's message for
 * those files and counted {@code result=refused}, once per distinct content. A change is applied within two
 * intervals plus the read.
 *
 * <p><b>State.</b> A rule's policy name depends on its domain and descriptor path only, and a descriptor's grid
 * key on its entries only, so an unchanged rule keeps its policy (equal) and its keys' state; a rule whose limit
 * changed decides the same keys under the new parameters, carried over as for any policy change (SPEC §4: counts
 * kept against the new limit, tokens clamped to the new capacity, another unit or algorithm carried by the share
 * left). Thread-safe.
 */
@Singleton
@Requires(condition = EnvoyRlsEnabled.class)
public class EnvoyRlsRules {
    /** Reloads of the configuration files, tagged {@code result} = {@code applied} or {@code refused}. */
    public static final String RELOADS = "gridlimit.envoy.rls.config.reloads";

    private static final Logger LOG = LoggerFactory.getLogger(EnvoyRlsRules.class);

    /** What one {@link #check()} did. */
    enum Check { UNCHANGED, PENDING, APPLIED, REFUSED }

    private final List<String> paths;
    /** {@code merge-domain-config}, read again with the files. */
    private final boolean merge;
    /** Reads the files as the boot did, refusing under {@code reference} what it cannot count. */
    private final RlsCompatibility compatibility;
    private final Duration interval;
    private final RateLimiter limiter;
    private final GridLimitConfig config;
    private final Counter applied;
    private final Counter refused;
    private volatile RlsConfig current;
    private @Nullable String candidate;
    private @Nullable String refusedDigest;
    private volatile @Nullable String lastRefusal;
    private @Nullable ScheduledExecutorService timer;

    /**
     * @param settings the checked settings: the boot's rules, the paths and the interval
     * @param limiter the application's limiter (the maps of new policies are created on it)
     * @param config the checked configuration (failure mode and the local share divisor, for a warning)
     * @param metrics GridLimit's meters ({@value #RELOADS} is registered at 0 for both results)
     */
    public EnvoyRlsRules(EnvoyRlsSettings settings, RateLimiter limiter, GridLimitConfig config,
                         GridLimitMetrics metrics) {
        this.paths = settings.configFiles();
        this.merge = settings.mergeDomainConfig();
        this.compatibility = settings.compatibility();
        this.interval = settings.reloadInterval();
        this.limiter = limiter;
        this.config = config;
        this.current = settings.rules();
        this.applied = counter(metrics, "applied");
        this.refused = counter(metrics, "refused");
    }

    private static Counter counter(GridLimitMetrics metrics, String result) {
        return Counter.builder(RELOADS).tag("result", result)
                .description("Reloads of gridlimit.envoy-rls.config-files: applied, or refused (the set in force "
                        + "stays)")
                .register(metrics.registry());
    }

    /** @return the rules in force, never null; read once per call so that a call decides with one set */
    public RlsConfig current() {
        return current;
    }

    /** @return the boot's message of the last refused set, or null when none was refused */
    public @Nullable String lastRefusal() {
        return lastRefusal;
    }

    /**
     * Creates the map of every policy of a set on the grid (never on an event loop), and warns under
     * {@code failure-mode: local} about rules too small to have a local share.
     *
     * @param set the set about to be put in force
     */
    void prepare(RlsConfig set) {
        List<Policy> policies = set.policies();
        GridOperations.of(limiter).ifPresent(grid -> {
            for (Policy p : policies) {
                try {
                    grid.localOwnedKeyCount(p.name()); // creates the map proxy now
                } catch (RuntimeException e) {
                    LOG.warn("could not prepare the map of policy '{}': {}", p.name(), e.toString());
                }
            }
        });
        if (config.failureMode() == FailureMode.LOCAL) {
            List<String> none = new ArrayList<>();
            for (RlsRule r : set.rules()) {
                if (r.policy() != null && LocalRateLimiter.share(r.policy(), config.local().expectedReplicas())
                        .isEmpty()) {
                    none.add(r.domain() + ": " + r.path());
                }
            }
            if (!none.isEmpty()) {
                LOG.warn("Envoy rules {} have a limit too small to divide by gridlimit.local.expected-replicas={}: "
                        + "while the grid does not answer, their calls get UNAVAILABLE (as failure-mode closed)",
                        none, config.local().expectedReplicas());
            }
        }
    }

    /**
     * Starts the periodic check, unless the interval is 0; idempotent.
     *
     * @param alsoEachCheck run after each check of the rules (the port's TLS files, {@link RlsTls#check()})
     */
    synchronized void start(Runnable alsoEachCheck) {
        if (interval.isZero() || timer != null) {
            return;
        }
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "gridlimit-envoy-rls-reload");
            thread.setDaemon(true);
            return thread;
        });
        long nanos = interval.toNanos();
        t.scheduleWithFixedDelay(() -> {
            checkQuietly(this::check);
            checkQuietly(alsoEachCheck);
        }, nanos, nanos, TimeUnit.NANOSECONDS);
        timer = t;
    }

    /** @return whether the periodic check runs (started, and the interval is not 0) */
    synchronized boolean running() {
        return timer != null;
    }

    /** Stops the periodic check; the set in force stays. Idempotent. */
    @PreDestroy
    public synchronized void close() {
        ScheduledExecutorService t = timer;
        timer = null;
        if (t != null) {
            t.shutdownNow();
        }
    }

    private static void checkQuietly(Runnable check) {
        try {
            check.run();
        } catch (Throwable e) { // NOPMD: a periodic task that throws is never run again
            // never let the timer die (an Error included: the executor would cancel every later check silently)
            LOG.warn("Envoy rate limit service: a reload check failed, the next one tries again: {}", e.toString());
        }
    }

    /**
     * Checks the files once (the class comment gives the rule): tests drive it directly.
     *
     * @return what the check did
     */
    synchronized Check check() {
        String now = RlsFiles.digest(paths);
        RlsConfig inForce = current;
        if (now.equals(inForce.digest())) {
            candidate = null;
            refusedDigest = null;
            return Check.UNCHANGED;
        }
        if (now.equals(refusedDigest)) {
            candidate = null;
            return Check.UNCHANGED;
        }
        if (!now.equals(candidate)) {
            candidate = now; // judged when the next check sees the same files
            return Check.PENDING;
        }
        RlsConfig next;
        try {
            next = compatibility.readRules(paths, merge);
        } catch (RlsConfigException e) {
            candidate = null;
            refusedDigest = now;
            lastRefusal = e.getMessage();
            refused.increment();
            LOG.warn("Envoy rate limit service: configuration {} refused, {} stays in force: {}",
                    RlsFiles.shortDigest(now), RlsFiles.shortDigest(inForce.digest()), e.getMessage());
            return Check.REFUSED;
        }
        if (!next.digest().equals(now)) {
            // the files changed between the digest and the read: judge what was read when it is seen twice
            candidate = next.digest();
            return Check.PENDING;
        }
        candidate = null;
        next.warnings().forEach(w -> LOG.warn("Envoy configuration: {}", w));
        unprotected(inForce, next).forEach(w -> LOG.warn("Envoy rate limit service: {}", w));
        prepare(next);
        current = next;
        refusedDigest = null;
        applied.increment();
        LOG.info("Envoy rate limit service: configuration {} applied (was {}): {} domain(s), {} rule(s)",
                RlsFiles.shortDigest(next.digest()), RlsFiles.shortDigest(inForce.digest()), next.domains().size(),
                next.rules().size());
        return Check.APPLIED;
    }

    /**
     * What a new set leaves less protected than the set in force: a domain that had limited rules and has none, or
     * is gone (its descriptors are then answered OK), each worth a WARN, since a file caught half-written or a wrong
     * edit must at least be said.
     */
    static List<String> unprotected(RlsConfig inForce, RlsConfig next) {
        Set<String> before = limitedDomains(inForce);
        before.removeAll(limitedDomains(next));
        List<String> out = new ArrayList<>();
        for (String domain : before) {
            out.add("domain '" + domain + "' had limited rules and has none in configuration "
                    + RlsFiles.shortDigest(next.digest()) + (next.domains().containsKey(domain) ? ""
                    : " (the domain is gone)") + ": its descriptors are answered OK");
        }
        return out;
    }

    private static Set<String> limitedDomains(RlsConfig config) {
        Set<String> out = new TreeSet<>();
        for (RlsRule rule : config.rules()) {
            if (!rule.unlimited()) {
                out.add(rule.domain());
            }
        }
        return out;
    }
}
