package io.gridlimit.micronaut.metrics;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.grid.lease.LeaseStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.inject.Singleton;
import java.util.function.ToLongFunction;

/**
 * Quota lease meters of this replica (docs/SPEC.md §13), bound only when the application's limiter is the Hazelcast
 * one with leases on. No {@code policy} tag: counted per replica. Function counters read the limiter's
 * {@link LeaseStats} at each scrape (no allocation per decision); Prometheus shows:
 * <ul>
 *   <li>{@code gridlimit_leases_total{result}}: lease requests, {@code result} {@code granted} or {@code refused}
 *       (the owner decided the request alone: too little left, a denial, or 64 open leases);</li>
 *   <li>{@code gridlimit_lease_units_total{kind}}: units {@code granted}, and {@code unused} at a grant's end (the
 *       under-admission leases may cause, before the give-back returns them);</li>
 *   <li>{@code gridlimit_leased_decisions_total{source}}: decisions answered on this replica, {@code source}
 *       {@code lease} (admitted from a grant) or {@code denial} (the owner's last denial);</li>
 *   <li>{@code gridlimit_lease_give_backs_total}: give-backs sent at a grant's end;</li>
 *   <li>{@code gridlimit_lease_settles_total{result}}: settles of reservations taken from a grant,
 *       {@code applied} or {@code late} (after the grant ended: the reserved cost stood);</li>
 *   <li>{@code gridlimit_lease_tracked_keys} (gauge): (policy, key) pairs tracked now.</li>
 * </ul>
 * Thread-safe.
 */
@Singleton
public class LeaseMetrics implements MeterBinder {
    private final GridOperations limiter;

    /** @param limiter the application's rate limiter */
    public LeaseMetrics(RateLimiter limiter) {
        this.limiter = GridOperations.of(limiter).filter(g -> g.leaseStats() != null).orElse(null);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (limiter == null) {
            return;
        }
        String leases = "lease requests this replica sent, by whether the owner granted units";
        counter(registry, "gridlimit.leases", leases, "result", "granted", LeaseStats::granted);
        counter(registry, "gridlimit.leases", leases, "result", "refused", s -> s.asked() - s.granted());
        String units = "units leased to this replica, and units of ended leases it did not use";
        counter(registry, "gridlimit.lease.units", units, "kind", "granted", LeaseStats::grantedUnits);
        counter(registry, "gridlimit.lease.units", units, "kind", "unused", LeaseStats::unusedUnits);
        String decided = "decisions this replica answered itself: from a lease, or from the owner's last denial";
        counter(registry, "gridlimit.leased.decisions", decided, "source", "lease", LeaseStats::leasedDecisions);
        counter(registry, "gridlimit.leased.decisions", decided, "source", "denial", LeaseStats::localDenials);
        FunctionCounter.builder("gridlimit.lease.give.backs", limiter, l -> l.leaseStats().giveBacks())
                .description("give-backs sent at the end of a lease").register(registry);
        String settles = "settles of reservations taken from a lease: applied to it, or late (after it ended)";
        counter(registry, "gridlimit.lease.settles", settles, "result", "applied", LeaseStats::localSettles);
        counter(registry, "gridlimit.lease.settles", settles, "result", "late", LeaseStats::lateLocalSettles);
        Gauge.builder("gridlimit.lease.tracked.keys", limiter, l -> l.leaseStats().trackedKeys())
                .description("(policy, key) pairs this replica tracks for leases").register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, String tag, String value,
                         ToLongFunction<LeaseStats> read) {
        FunctionCounter.builder(name, limiter, l -> read.applyAsLong(l.leaseStats())).description(description)
                .tag(tag, value).register(registry);
    }
}
