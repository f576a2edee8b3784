package io.gridlimit.envoy;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsDomain;
import io.gridlimit.envoy.config.RlsMatch;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.Ask;
import io.gridlimit.micronaut.decide.Counting;
import io.gridlimit.micronaut.decide.Decider;
import io.gridlimit.micronaut.decide.Decisions;
import io.gridlimit.micronaut.decide.Door;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.TimeSource;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micronaut.context.annotation.Requires;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} on GridLimit (docs/SPEC.md §12).
 *
 * <p><b>Request.</b> Checked whole before anything is decided ({@code INVALID_ARGUMENT} otherwise): valid protobuf
 * with UTF-8 strings (served through {@link #strictDefinition()}); a non-empty
 * domain; 1 to {@value #MAX_DESCRIPTORS} descriptors of 1 to {@value #MAX_ENTRIES} entries with non-empty keys; a
 * per-request limit override ({@code descriptors[i].limit}) of a known unit ({@link RlsOverrides}, applied in place
 * of the descriptor's rule); costs in [0, 10^15]. The cost of a descriptor is its
 * own {@code hits_addend} when set, else the request's ({@code 0} there means 1); an explicit 0 on a descriptor is a
 * <i>peek</i>: decided without consuming anything (asked at the rule's quota + 1, which every algorithm denies
 * without a write, SPEC §3) and answered OVER_LIMIT when nothing remains. An unknown domain answers OK for every
 * descriptor and is counted ({@value #UNKNOWN_DOMAINS}).
 *
 * <p><b>Decisions.</b> A descriptor that selects a block list ({@code requests_per_unit: 0}) is over its limit,
 * decided here without the grid. Every descriptor that selects a limited rule ({@link RlsConfig#lookup}, after
 * {@code replaces}) is decided at once, each as one grid decision of its policy under
 * {@link RlsConfig#gridKey}, through the door-neutral {@link Decider} ({@link Door#ENVOY}: a reservation). The
 * request is OVER_LIMIT when a descriptor not in shadow mode denies, except that descriptors in quota mode make it
 * OVER_LIMIT only when all of them deny ({@link RlsOutcome#overLimit}). All-or-nothing: every admission of a request
 * that is OVER_LIMIT or {@code UNAVAILABLE} (grid and local, shadow-mode descriptors included) is given back
 * ({@link Decisions#close}), so such a request consumed nothing anywhere (a denial and a peek consume nothing,
 * SPEC §3).
 *
 * <p><b>Compatibility</b> ({@link RlsCompatibility}). Under {@code compatibility: reference} every descriptor is one
 * hit instead ({@link Counting#EVERY_HIT}: counted whether or not it passes, each on its own, nothing given back; a
 * peek is a hit of 0, OK at the limit) and the answer is shaped as envoyproxy/ratelimit shapes it
 * ({@link RlsAnswers#referenceResponse}). Under either, {@code shadow-mode} answers an OVER_LIMIT call OK, keeping
 * what its descriptors took.
 *
 * <p><b>Time.</b> Each decision waits at most {@code gridlimit.grid-timeout}, and at most four fifths of what is
 * left of the call's gRPC deadline, so that the answer reaches Envoy before it gives up; a call whose deadline has
 * passed answers {@code DEADLINE_EXCEEDED}; a call the client cancels stops waiting at once and is not counted. A
 * decision the grid does not give in time (or fails) is answered by {@code gridlimit.failure-mode}: {@code local}
 * decides it on this replica's share ({@link io.gridlimit.micronaut.decide.LocalFallback}), {@code open} answers it
 * OK, {@code closed} (and
 * {@code local} for a policy without a share) answers the whole call {@code UNAVAILABLE}. The grid's stage is then
 * cancelled (on a timeout, or the client's cancel): a decision still queued on this replica (coalescing) is never
 * sent, and one already sent whose admission arrives after the answer is given back ({@code reason=late}), by the
 * limiter or, when the stage completed first, here.
 *
 * <p><b>Response.</b> One status per descriptor ({@code current_limit} is the configured rule,
 * {@code limit_remaining} and {@code duration_until_reset} the decision's), the SPEC §5 header fields and on
 * OVER_LIMIT the quota-exceeded problem ({@link RlsAnswers}). Never
 * blocks: the grid is asked asynchronously and answers complete on the limiter's threads or the decider's timer.
 * Thread-safe.
 */
@Singleton
@Requires(condition = EnvoyRlsEnabled.class)
public class EnvoyRateLimitService extends RateLimitServiceGrpc.RateLimitServiceImplBase {
    /** Most descriptors in one request. */
    public static final int MAX_DESCRIPTORS = 100;
    /** Most entries in one descriptor. */
    public static final int MAX_ENTRIES = 64;
    /** Requests naming a domain no configuration file defines (counter, no tags). */
    public static final String UNKNOWN_DOMAINS = "gridlimit.envoy.unknown.domains";
    /** {@code limit_remaining} of an unlimited descriptor, as envoyproxy/ratelimit answers it: 2^32 - 1. */
    public static final int UNLIMITED_REMAINING = -1;

    private static final Logger LOG = LoggerFactory.getLogger(EnvoyRateLimitService.class);

    private final Supplier<RlsConfig> rules;
    private final Decider decider;
    private final RlsAnswers answers;
    private final long gridTimeoutNanos;
    private final Counter unknownDomains;
    private final TimeSource clock;
    private final RlsCompatibility compatibility;
    private final Counter globalShadow;
    private final RlsStats stats;

    /**
     * @param rules the rules in force, read once per call (a reload applies to the calls that start after it)
     * @param config the checked configuration: failure mode, grid timeout, header mode
     * @param decider decides the descriptors (the door-neutral pipeline)
     * @param metrics GridLimit's meters
     * @param json writes problem bodies
     * @param clock the replica's time source (the grid's, SPEC §2), which block lists read for their reset
     */
    @Inject
    public EnvoyRateLimitService(EnvoyRlsRules rules, EnvoyRlsSettings settings, GridLimitConfig config,
                                 Decider decider, GridLimitMetrics metrics, JsonMapper json, TimeSource clock) {
        this(rules::current, settings.compatibility(), config, decider, metrics, json, clock);
    }

    /**
     * A service of {@link RlsCompatibility#GRIDLIMIT}'s counting and answers.
     *
     * @param rules gives the domains and rules in force, asked once per call
     * @param config the checked configuration: failure mode, grid timeout, header mode
     * @param decider decides the descriptors
     * @param metrics GridLimit's meters
     * @param json writes problem bodies
     * @param clock the replica's time source, which block lists read for their reset
     */
    public EnvoyRateLimitService(Supplier<RlsConfig> rules, GridLimitConfig config, Decider decider,
                                 GridLimitMetrics metrics, JsonMapper json, TimeSource clock) {
        this(rules, RlsCompatibility.GRIDLIMIT, config, decider, metrics, json, clock);
    }

    /**
     * @param rules gives the domains and rules in force, asked once per call
     * @param compatibility how descriptors are counted and answered ({@code gridlimit} or {@code reference})
     * @param config the checked configuration: failure mode, grid timeout, header mode
     * @param decider decides the descriptors
     * @param metrics GridLimit's meters
     * @param json writes problem bodies
     * @param clock the replica's time source, which block lists read for their reset
     */
    public EnvoyRateLimitService(Supplier<RlsConfig> rules, RlsCompatibility compatibility, GridLimitConfig config,
                                 Decider decider, GridLimitMetrics metrics, JsonMapper json, TimeSource clock) {
        this.rules = rules;
        this.compatibility = compatibility;
        this.stats = new RlsStats(metrics.registry(), compatibility.nearLimitRatio());
        this.globalShadow = Counter.builder(RlsCompatibility.GLOBAL_SHADOW)
                .description("ShouldRateLimit calls over the limit answered OK by gridlimit.envoy-rls.shadow-mode")
                .register(metrics.registry());
        this.clock = clock;
        this.decider = decider;
        this.answers = new RlsAnswers(config.headers(), compatibility, metrics, json);
        this.gridTimeoutNanos = config.gridTimeout().toNanos();
        this.unknownDomains = Counter.builder(UNKNOWN_DOMAINS)
                .description("ShouldRateLimit requests naming a domain no configuration file defines (answered OK)")
                .register(metrics.registry());
    }

    /**
     * Answers one {@code ShouldRateLimit} call (the class comment gives the rules). Never blocks: the answer, or the
     * call's error ({@code INVALID_ARGUMENT}, {@code DEADLINE_EXCEEDED}, {@code UNAVAILABLE}), is delivered on the
     * thread that completes the last decision, or on this thread when nothing needs the grid.
     *
     * @param request the request as Envoy sent it
     * @param out where the answer goes, exactly once
     */
    @Override
    public void shouldRateLimit(RateLimitRequest request, StreamObserver<RateLimitResponse> out) {
        if (request == RlsRequests.UNPARSABLE) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(RlsRequests.UNPARSABLE_MESSAGE).asRuntimeException());
            return;
        }
        long budgetNanos = gridTimeoutNanos;
        Deadline deadline = Context.current().getDeadline();
        if (deadline != null) {
            long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
            if (left <= 0) {
                out.onError(Status.DEADLINE_EXCEEDED.withDescription("the call's deadline had passed when it was "
                        + "read; nothing was decided").asRuntimeException());
                return;
            }
            budgetNanos = Math.min(budgetNanos, left - left / 5);
        }
        String invalid = RlsRequests.invalid(request);
        if (invalid != null) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
            return;
        }
        int n = request.getDescriptorsCount();
        RlsConfig rules = this.rules.get(); // one set for the whole call, whatever a reload does meanwhile
        RlsDomain domain = rules.domains().get(request.getDomain());
        if (domain == null) {
            unknownDomains.increment();
            RateLimitResponse.Builder ok = RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK);
            for (int i = 0; i < n; i++) {
                ok.addStatuses(RateLimitResponse.DescriptorStatus.newBuilder().setCode(RateLimitResponse.Code.OK));
            }
            out.onNext(ok.build());
            out.onCompleted();
            return;
        }
        Context call = Context.current();
        if (call.isCancelled()) {
            return; // the client has gone: nothing is decided
        }
        RlsMatch[] found = RlsRequests.match(rules, domain, request);
        RlsRule[] matched = new RlsRule[n];
        Decisions decisions = decider.begin(Door.ENVOY, compatibility.reference() ? Counting.EVERY_HIT
                : Counting.ALL_OR_NOTHING, Math.max(1, budgetNanos), null, null); // on the decider's timer
        List<CompletableFuture<RlsOutcome>> decided = new ArrayList<>();
        RlsOutcome[] outcomes = new RlsOutcome[n];
        for (int i = 0; i < n; i++) {
            RlsRule rule = found[i] == null ? null : found[i].rule();
            matched[i] = rule;
            if (rule != null && !rule.unlimited()) {
                RateLimitDescriptor d = request.getDescriptors(i);
                long cost = RlsRequests.cost(request, d);
                RlsOutcome.Check check = new RlsOutcome.Check(i, rule, found[i].gridKey(), cost == 0 ? 1 : cost,
                        cost == 0, compatibility.reference());
                if (rule.blocked()) {
                    outcomes[i] = RlsOutcome.blocked(check, clock.nowNanos()); // no grid call, nothing stored
                    continue;
                }
                int index = i;
                decided.add(decisions.decide(new Ask(rule.policy(), found[index].state(), check.key(), check.asked()))
                        .thenApply(a -> outcomes[index] = RlsOutcome.of(check, a, decider.failureMode())));
            }
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(decided.toArray(CompletableFuture[]::new));
        // a call the client cancels (Envoy's timeout, a reset stream) stops waiting for the grid at once: what is
        // still queued is never sent, what was admitted is given back. gRPC also cancels the call's context once it
        // is answered, even OK: the listener goes before the answer, and an OK answer keeps its admissions.
        Context.CancellationListener cancelled = decided.isEmpty() ? null
                : c -> decisions.close(GridLimitMetrics.GiveBackReason.FAILED);
        if (cancelled != null) {
            call.addListener(cancelled, Runnable::run);
        }
        all.whenComplete((v, e) -> {
            if (cancelled != null) {
                call.removeListener(cancelled);
            }
            try {
                respond(matched, outcomes, decisions, out);
            } catch (RuntimeException x) {
                decisions.close(GridLimitMetrics.GiveBackReason.FAILED); // Envoy gets no admission
                LOG.warn("ShouldRateLimit failed", x);
                out.onError(Status.INTERNAL.withDescription("GridLimit could not answer").asRuntimeException());
            }
        });
    }

    /**
     * This service bound for a server, with one change to what {@link #bindService()} gives: a request that is not
     * a valid {@code RateLimitRequest} (bad protobuf encoding, or a string that is not UTF-8, which proto3 refuses)
     * is answered {@code INVALID_ARGUMENT}, like every other malformed request. grpc-java would answer it
     * {@code UNKNOWN} and log a SEVERE stack trace through java.util.logging for each one, so any client could
     * flood the log.
     *
     * @return the service definition to add to a gRPC server, never null
     */
    public ServerServiceDefinition strictDefinition() {
        return RlsRequests.strict(bindService());
    }

    private void respond(RlsRule[] matched, RlsOutcome[] outcomes, Decisions decisions,
                         StreamObserver<RateLimitResponse> out) {
        boolean unavailable = false;
        boolean cancelled = false;
        for (RlsOutcome o : outcomes) {
            if (o != null) {
                unavailable |= o.source() == RlsOutcome.Source.UNAVAILABLE;
                cancelled |= o.source() == RlsOutcome.Source.CANCELLED;
            }
        }
        boolean over = RlsOutcome.overLimit(outcomes);
        answers.count(outcomes);
        if (over && compatibility.globalShadow() && !unavailable && !cancelled) {
            over = false; // answered OK: what the descriptors took stands (the statuses still show their codes)
            globalShadow.increment();
        }
        if (unavailable || over || cancelled) {
            // all-or-nothing: a request Envoy does not admit consumed nothing anywhere (SPEC §12)
            decisions.close(over && !unavailable && !cancelled ? GridLimitMetrics.GiveBackReason.DENIED
                    : GridLimitMetrics.GiveBackReason.FAILED);
        }
        if (cancelled) {
            out.onError(Status.CANCELLED.withDescription("cancelled by the client").asRuntimeException());
            return;
        }
        if (unavailable) {
            out.onError(Status.UNAVAILABLE.withDescription("the rate-limit grid did not answer in time "
                    + "(gridlimit.failure-mode: " + decider.failureMode().name().toLowerCase(Locale.ROOT) + ")")
                    .asRuntimeException());
            return;
        }
        stats.count(outcomes); // the reference's stats, of calls answered with statuses
        RateLimitResponse response = compatibility.reference()
                ? answers.referenceResponse(matched, outcomes, over, clock.nowNanos())
                : answers.response(matched, outcomes, over);
        if (!over) {
            decisions.keep(); // answered OK: what the descriptors took stands
        }
        out.onNext(response);
        out.onCompleted();
    }

    /** @return how many grid waits have a timer armed (for tests: a cancelled call leaves none) */
    int armedTimers() {
        return decider.armedTimers();
    }
}
