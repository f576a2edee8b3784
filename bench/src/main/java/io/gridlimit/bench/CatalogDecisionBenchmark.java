package io.gridlimit.bench;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.HazelcastRateLimiter;
import io.gridlimit.grid.catalog.PolicyCatalog;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Decisions with the policy catalog's lookups (docs/SPEC.md §11) beside today's path, in one run: synchronous
 * decisions of cost 1 on {@value BenchKeys#COUNT} uniform keys through one embedded member, the same member, keys
 * and threads as {@link GridLimitBenchmark}. The lookups are those the HTTP filter's {@code PolicySource} makes, on
 * grid-core's local copies (this module does not depend on the Micronaut library):
 * <ul>
 *   <li>{@code today}: the configured policy, no catalog (the limiter sends the form without a version);</li>
 *   <li>{@code catalog}: the catalog's current version of the policy (one map read; the decision carries its
 *   version and the owner checks it is the newest it knows);</li>
 *   <li>{@code override}: every key overridden (one map read of the override, then the other policy's);</li>
 *   <li>{@code plan}: a plan value mapped to a policy (one map read), no override found (one), the catalog's version
 *   (one).</li>
 * </ul>
 * Target: within 5 % of {@code today}.
 * <pre>{@code
 * mvn -q -DskipTests -pl bench -am package
 * java -jar bench/target/benchmarks.jar CatalogDecisionBenchmark -f 1 -wi 2 -w 3s -i 3 -r 5s
 * }</pre>
 */
@Fork(jvmArgsAppend = {BenchMember.ADD_MODULES, BenchMember.EXPORT_REF, BenchMember.OPEN_LANG, BenchMember.OPEN_NIO,
    BenchMember.OPEN_MANAGEMENT, BenchMember.OPEN_MANAGEMENT_INTERNAL})
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(GridFloorBenchmark.THREADS)
public class CatalogDecisionBenchmark {
    /** The path: today, catalog, override or plan. */
    @Param({"today", "catalog", "override", "plan"})
    public String path;

    private HazelcastRateLimiter limiter;
    private PolicyCatalog catalog;
    private Policy configured;
    private Map<String, String> plan;

    /**
     * Creates the limiter, and the catalog with the policies (and overrides) the path needs.
     *
     * @param member the started member
     */
    @Setup(Level.Trial)
    public void setUp(EmbeddedMember member) {
        limiter = HazelcastRateLimiter.create(member.instance());
        configured = Policy.builder("bench-free").fixedWindow(1_000_000_000L, Duration.ofHours(1)).build();
        if (!path.equals("today")) {
            catalog = PolicyCatalog.start(member.instance());
            limiter.useCatalog(catalog);
            catalog.put(configured, PolicyCatalog.ANY_VERSION, "bench");
            catalog.put(Policy.builder("bench-gold").fixedWindow(2_000_000_000L, Duration.ofHours(1)).build(),
                    PolicyCatalog.ANY_VERSION, "bench");
            if (path.equals("override")) {
                for (int i = 0; i < BenchKeys.COUNT; i++) {
                    catalog.putOverride("bench-free", BenchKeys.get(i), "bench-gold", null);
                }
            }
            plan = Map.of("gold", "bench-gold", "silver", "bench-silver");
        }
    }

    /** Closes the limiter and the catalog (the member is stopped by {@link EmbeddedMember}). */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (limiter != null) {
            limiter.close();
        }
        if (catalog != null) {
            catalog.close();
        }
    }

    /**
     * One synchronous decision of cost 1 on a random key, its policy resolved as the path says.
     *
     * @return the decision
     */
    @Benchmark
    public Decision tryAcquire() {
        String key = BenchKeys.next();
        Policy policy = switch (path) {
            case "today" -> configured;
            case "plan" -> resolve(catalog.policy(plan.get("gold")), key);
            default -> resolve(configured, key);
        };
        return limiter.tryAcquire(policy, key, 1);
    }

    /** PolicySource.resolve(policy, key): the override, else the catalog's current version, else the policy. */
    private Policy resolve(Policy policy, String key) {
        String target = catalog.overrideFor(policy.name(), key);
        if (target != null) {
            Policy other = catalog.policy(target);
            if (other != null) {
                return other;
            }
        }
        Policy current = catalog.policy(policy.name());
        return current != null ? current : policy;
    }
}
