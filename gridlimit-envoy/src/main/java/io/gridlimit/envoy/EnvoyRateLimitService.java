package io.gridlimit.envoy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsDomain;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.internal.Futures;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.decide.RateLimitHeaders;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.problem.Problem;
import io.gridlimit.time.SystemTimeSource;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.json.JsonMapper;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} on GridLimit (docs/SPEC.md §12).
 *
 * <p><b>Request.</b> Checked whole before anything is decided ({@code INVALID_ARGUMENT} otherwise): valid protobuf
 * with UTF-8 strings (served through {@link #strictDefinition()}); a non-empty
 * domain; 1 to {@value #MAX_DESCRIPTORS} descriptors of 1 to {@value #MAX_ENTRIES} entries with non-empty keys; no
 * per-request limit override ({@code descriptors[i].limit}); costs in [0, 10^15]. The cost of a descriptor is its
 * own {@code hits_addend} when set, else the request's ({@code 0} there means 1); an explicit 0 on a descriptor is a
 * <i>peek</i>: decided without consuming anything (asked at the rule's quota + 1, which every algorithm denies
 * without a write, SPEC §3) and answered OVER_LIMIT when nothing remains. An unknown domain answers OK for every
 * descriptor and is counted ({@value #UNKNOWN_DOMAINS}).
 *
 * <p><b>Decisions.</b> Every descriptor that selects a limited rule ({@link RlsConfig#lookup}, after
 * {@code replaces}) is decided at once, each as one grid decision of its policy under
 * {@link RlsConfig#gridKey}, taken as a reservation ({@link GiveBack#decide}). The request is OVER_LIMIT when a
 * descriptor not in shadow mode denies. All-or-nothing: every admission of a request that is OVER_LIMIT or
 * {@code UNAVAILABLE} (grid and local, shadow-mode descriptors included) is given back through {@link GiveBack},
 * so such a request consumed nothing anywhere (a denial and a peek consume nothing, SPEC §3).
 *
 * <p><b>Time.</b> Each decision waits at most {@code gridlimit.grid-timeout}, and at most four fifths of what is
 * left of the call's gRPC deadline, so that the answer reaches Envoy before it gives up; a call whose deadline has
 * passed answers {@code DEADLINE_EXCEEDED}; a call the client cancels stops waiting at once and is not counted. A
 * decision the grid does not give in time (or fails) is answered by {@code gridlimit.failure-mode}: {@code local}
 * decides it on this replica's share ({@link LocalFallback}), {@code open} answers it OK, {@code closed} (and
 * {@code local} for a policy without a share) answers the whole call {@code UNAVAILABLE}. The grid's stage is then
 * cancelled (on a timeout, or the client's cancel): a decision still queued on this replica (coalescing) is never
 * sent, and one already sent whose admission arrives after the answer is given back ({@code reason=late}), by the
 * limiter or, when the stage completed first, here.
 *
 * <p><b>Response.</b> One status per descriptor ({@code current_limit} is the configured rule,
 * {@code limit_remaining} and {@code duration_until_reset} the decision's, uint32 saturating), and in
 * {@code response_headers_to_add} the SPEC §5 fields ({@code gridlimit.headers}) of the decided policies and the
 * binding descriptor; on OVER_LIMIT also {@code Retry-After} (unless the cost can never pass), a
 * {@code content-type: application/problem+json} and the SPEC §5 quota-exceeded problem as {@code raw_body}. Never
 * blocks: the grid is asked asynchronously and answers complete on the limiter's threads or this service's timer.
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

    /** Stands for a request whose bytes are not a valid {@code RateLimitRequest} (compared by identity). */
    private static final RateLimitRequest UNPARSABLE = RateLimitRequest.newBuilder().build();
    private static final String UNPARSABLE_MESSAGE = "the request is not a valid RateLimitRequest (bad protobuf "
            + "encoding, or a string that is not UTF-8)";
    private static final Logger LOG = LoggerFactory.getLogger(EnvoyRateLimitService.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long MAX_UINT32 = 0xFFFF_FFFFL;

    private final RlsConfig rules;
    private final GridLimitConfig config;
    private final RateLimiter limiter;
    private final LocalFallback local;
    private final GridLimitMetrics metrics;
    private final JsonMapper json;
    private final GiveBack giveBack;
    private final long gridTimeoutNanos;
    private final Counter unknownDomains;
    private final ScheduledExecutorService timer;
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * @param settings the checked {@code gridlimit.envoy-rls.*} settings and rules
     * @param config the checked configuration: failure mode, grid timeout, header mode
     * @param limiter the application's limiter
     * @param local the failure-mode local decider
     * @param metrics GridLimit's meters
     * @param json writes problem bodies
     * @param giveBack where the admissions of a request that is not admitted go ({@link GiveBackFactory})
     */
    @Inject
    public EnvoyRateLimitService(EnvoyRlsSettings settings, GridLimitConfig config, RateLimiter limiter,
                                 LocalFallback local, GridLimitMetrics metrics, JsonMapper json, GiveBack giveBack) {
        this(settings.rules(), config, limiter, local, metrics, json, giveBack);
    }

    /**
     * @param rules the domains and rules
     * @param config the checked configuration: failure mode, grid timeout, header mode
     * @param limiter the limiter that decides
     * @param local the failure-mode local decider
     * @param metrics GridLimit's meters
     * @param json writes problem bodies
     * @param giveBack where the admissions of a request that is not admitted go
     */
    public EnvoyRateLimitService(RlsConfig rules, GridLimitConfig config, RateLimiter limiter, LocalFallback local,
                                 GridLimitMetrics metrics, JsonMapper json, GiveBack giveBack) {
        this.rules = rules;
        this.config = config;
        this.limiter = limiter;
        this.local = local;
        this.metrics = metrics;
        this.json = json;
        this.giveBack = giveBack;
        this.gridTimeoutNanos = config.gridTimeout().toNanos();
        this.unknownDomains = Counter.builder(UNKNOWN_DOMAINS)
                .description("ShouldRateLimit requests naming a domain no configuration file defines (answered OK)")
                .register(metrics.registry());
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "gridlimit-envoy-timer");
            thread.setDaemon(true);
            return thread;
        });
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /** Stops the timer of the grid waits; calls still waiting then wait for the grid alone. */
    @PreDestroy
    public void close() {
        timer.shutdownNow();
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
        if (request == UNPARSABLE) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(UNPARSABLE_MESSAGE).asRuntimeException());
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
        String invalid = invalid(request);
        if (invalid != null) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
            return;
        }
        int n = request.getDescriptorsCount();
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
        RlsRule[] matched = match(domain, request);
        List<CompletableFuture<Outcome>> decided = new ArrayList<>();
        List<Runnable> onCancel = new ArrayList<>();
        Outcome[] outcomes = new Outcome[n];
        for (int i = 0; i < n; i++) {
            RlsRule rule = matched[i];
            if (rule != null && !rule.unlimited()) {
                RateLimitDescriptor d = request.getDescriptors(i);
                long cost = d.hasHitsAddend() ? d.getHitsAddend().getValue()
                        : Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
                Check check = new Check(i, rule, RlsConfig.gridKey(keys(d), values(d)), cost == 0 ? 1 : cost,
                        cost == 0);
                int index = i;
                decided.add(decide(check, budgetNanos, onCancel).thenApply(o -> outcomes[index] = o));
            }
        }
        if (!onCancel.isEmpty()) {
            // a call the client cancels (Envoy's timeout, a reset stream) stops waiting for the grid at once
            Context.CancellationListener cancelled = c -> onCancel.forEach(Runnable::run);
            call.addListener(cancelled, Runnable::run);
            CompletableFuture.allOf(decided.toArray(CompletableFuture[]::new))
                    .whenComplete((v, e) -> call.removeListener(cancelled));
        }
        CompletableFuture.allOf(decided.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            AtomicBoolean givenBack = new AtomicBoolean();
            try {
                respond(request, matched, outcomes, out, givenBack);
            } catch (RuntimeException x) {
                if (givenBack.compareAndSet(false, true)) {
                    giveBack(outcomes, GridLimitMetrics.GiveBackReason.FAILED); // Envoy gets no admission
                }
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
        ServerServiceDefinition bound = bindService();
        String name = RateLimitServiceGrpc.getShouldRateLimitMethod().getFullMethodName();
        ServerServiceDefinition.Builder out = ServerServiceDefinition.builder(RateLimitServiceGrpc.SERVICE_NAME);
        for (ServerMethodDefinition<?, ?> m : bound.getMethods()) {
            if (!m.getMethodDescriptor().getFullMethodName().equals(name)) {
                out.addMethod(m);
            }
        }
        @SuppressWarnings("unchecked")
        ServerMethodDefinition<RateLimitRequest, RateLimitResponse> should =
                (ServerMethodDefinition<RateLimitRequest, RateLimitResponse>) bound.getMethod(name);
        MethodDescriptor.Marshaller<RateLimitRequest> strict = should.getMethodDescriptor().getRequestMarshaller();
        MethodDescriptor.Marshaller<RateLimitRequest> refusing = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(RateLimitRequest value) {
                return strict.stream(value);
            }

            @Override
            public RateLimitRequest parse(InputStream stream) {
                try {
                    return strict.parse(stream);
                } catch (StatusRuntimeException e) {
                    return UNPARSABLE; // answered INVALID_ARGUMENT by shouldRateLimit
                }
            }
        };
        return out.addMethod(should.getMethodDescriptor().toBuilder().setRequestMarshaller(refusing).build(),
                should.getServerCallHandler()).build();
    }

    /** @return why the request is refused whole, naming the field (never a value), or null */
    private static @Nullable String invalid(RateLimitRequest request) {
        if (request.getDomain().isEmpty()) {
            return "domain must not be empty";
        }
        int n = request.getDescriptorsCount();
        if (n == 0 || n > MAX_DESCRIPTORS) {
            return "descriptors must hold 1 to " + MAX_DESCRIPTORS + " descriptors, got " + n;
        }
        for (int i = 0; i < n; i++) {
            RateLimitDescriptor d = request.getDescriptors(i);
            String at = "descriptors[" + i + "]";
            if (d.getEntriesCount() == 0 || d.getEntriesCount() > MAX_ENTRIES) {
                return at + ".entries must hold 1 to " + MAX_ENTRIES + " entries, got " + d.getEntriesCount();
            }
            for (int j = 0; j < d.getEntriesCount(); j++) {
                if (d.getEntries(j).getKey().isEmpty()) {
                    return at + ".entries[" + j + "].key must not be empty";
                }
            }
            if (d.hasLimit()) {
                return at + ".limit (a per-request limit override) is not supported by GridLimit: configure the "
                        + "limit in gridlimit.envoy-rls.config-files";
            }
            if (d.hasHitsAddend()) {
                long cost = d.getHitsAddend().getValue();
                if (cost < 0 || cost > RateLimiter.MAX_COST) {
                    return at + ".hits_addend must be in [0, " + RateLimiter.MAX_COST + "], got "
                            + Long.toUnsignedString(cost);
                }
            }
        }
        return null;
    }

    /** The rule of each descriptor, after {@code replaces} (envoyproxy/ratelimit's order: match all, then drop). */
    private RlsRule[] match(RlsDomain domain, RateLimitRequest request) {
        int n = request.getDescriptorsCount();
        RlsRule[] matched = new RlsRule[n];
        Set<String> replaced = new HashSet<>();
        for (int i = 0; i < n; i++) {
            RateLimitDescriptor d = request.getDescriptors(i);
            matched[i] = rules.lookup(domain, keys(d), values(d));
            if (matched[i] != null) {
                replaced.addAll(matched[i].replaces());
            }
        }
        for (int i = 0; i < n; i++) {
            if (matched[i] != null && matched[i].name() != null && replaced.contains(matched[i].name())) {
                matched[i] = null;
            }
        }
        return matched;
    }

    private static List<String> keys(RateLimitDescriptor d) {
        List<String> out = new ArrayList<>(d.getEntriesCount());
        d.getEntriesList().forEach(e -> out.add(e.getKey()));
        return out;
    }

    private static List<String> values(RateLimitDescriptor d) {
        List<String> out = new ArrayList<>(d.getEntriesCount());
        d.getEntriesList().forEach(e -> out.add(e.getValue()));
        return out;
    }

    /**
     * One descriptor's decision: the grid's within the budget, else the failure mode's; {@link Source#CANCELLED}
     * when the call is cancelled first ({@code onCancel} receives what does that). Never fails.
     */
    private CompletableFuture<Outcome> decide(Check check, long budgetNanos, List<Runnable> onCancel) {
        Policy policy = check.rule().policy();
        long asked = check.asked();
        long startNanos = System.nanoTime();
        CompletableFuture<Outcome> result = new CompletableFuture<>();
        AtomicBoolean settled = new AtomicBoolean();
        CompletableFuture<Decision> pending;
        try {
            pending = giveBack.decide(limiter, policy, check.key(), asked).toCompletableFuture();
        } catch (RuntimeException e) {
            pending = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Decision> grid = pending;
        ScheduledFuture<?> timeout = null;
        if (!grid.isDone()) {
            timeout = timer.schedule(() -> {
                if (settled.compareAndSet(false, true)) {
                    // still queued on this replica (coalescing): never sent; already sent: the limiter gives its
                    // admission back when it arrives (reason=late, SPEC §10). A stage that completed first is
                    // given back below.
                    grid.cancel(false);
                    result.complete(fallback(check, true, null, startNanos));
                }
            }, budgetNanos, TimeUnit.NANOSECONDS);
        }
        ScheduledFuture<?> armed = timeout;
        onCancel.add(() -> {
            if (settled.compareAndSet(false, true)) {
                if (armed != null) {
                    armed.cancel(false);
                }
                // still queued on this replica: never sent; already sent: its admission is given back late
                grid.cancel(false);
                result.complete(new Outcome(check, null, Source.CANCELLED));
            }
        });
        grid.whenComplete((decision, error) -> {
            if (armed != null) {
                armed.cancel(false);
            }
            if (settled.compareAndSet(false, true)) {
                if (error == null) {
                    metrics.latency(policy.name(), System.nanoTime() - startNanos);
                    result.complete(new Outcome(check, decision, Source.GRID));
                } else {
                    Throwable cause = Futures.unwrap(error);
                    result.complete(fallback(check, cause instanceof TimeoutException, cause, startNanos));
                }
            } else if (error == null && decision.allowed()) {
                // answered already (the failure mode decided it): this admission must not stand
                giveBack.giveBack(policy, decision, false, GridLimitMetrics.GiveBackReason.LATE);
            }
        });
        return result;
    }

    private Outcome fallback(Check check, boolean timeout, @Nullable Throwable cause, long startNanos) {
        Policy policy = check.rule().policy();
        metrics.latency(policy.name(), System.nanoTime() - startNanos);
        metrics.gridError(policy.name(), timeout);
        warn(policy, timeout, cause);
        FailureMode mode = config.failureMode();
        if (mode == FailureMode.OPEN) {
            return new Outcome(check, null, Source.OPEN);
        }
        if (mode == FailureMode.LOCAL) {
            try {
                Decision d = local.decide(policy, check.key(), check.asked());
                if (d != null) {
                    return new Outcome(check, d, Source.LOCAL);
                }
            } catch (RuntimeException e) {
                LOG.warn("local fallback failed for policy '{}' ({}); answered UNAVAILABLE", policy.name(),
                        e.toString());
            }
        }
        return new Outcome(check, null, Source.UNAVAILABLE);
    }

    private void warn(Policy policy, boolean timeout, @Nullable Throwable cause) {
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        if (now - last >= WARN_INTERVAL_NANOS && lastWarnNanos.compareAndSet(last, now)) {
            LOG.warn("{} (failure-mode {}; logged at most every 10 s, see metric {})", timeout
                            ? "grid did not answer policy '" + policy.name() + "' in time for an Envoy call"
                            : "grid failed to decide policy '" + policy.name() + "': " + cause,
                    config.failureMode().name().toLowerCase(Locale.ROOT), GridLimitMetrics.GRID_ERRORS);
        }
    }

    private void respond(RateLimitRequest request, RlsRule[] matched, Outcome[] outcomes,
                         StreamObserver<RateLimitResponse> out, AtomicBoolean givenBack) {
        int n = matched.length;
        boolean unavailable = false;
        boolean cancelled = false;
        boolean over = false;
        for (Outcome o : outcomes) {
            if (o != null) {
                unavailable |= o.source() == Source.UNAVAILABLE;
                cancelled |= o.source() == Source.CANCELLED;
                over |= o.over() && !o.check().rule().shadow();
            }
        }
        count(outcomes);
        if ((unavailable || over || cancelled) && givenBack.compareAndSet(false, true)) {
            // all-or-nothing: a request Envoy does not admit consumed nothing anywhere (SPEC §12)
            giveBack(outcomes, over && !unavailable && !cancelled ? GridLimitMetrics.GiveBackReason.DENIED
                    : GridLimitMetrics.GiveBackReason.FAILED);
        }
        if (cancelled) {
            out.onError(Status.CANCELLED.withDescription("cancelled by the client").asRuntimeException());
            return;
        }
        if (unavailable) {
            out.onError(Status.UNAVAILABLE.withDescription("the rate-limit grid did not answer in time "
                    + "(gridlimit.failure-mode: " + config.failureMode().name().toLowerCase(Locale.ROOT) + ")")
                    .asRuntimeException());
            return;
        }
        RateLimitResponse.Builder response = RateLimitResponse.newBuilder()
                .setOverallCode(over ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK);
        List<Policy> policies = new ArrayList<>();
        Outcome binding = null;
        for (int i = 0; i < n; i++) {
            RateLimitResponse.DescriptorStatus.Builder s = RateLimitResponse.DescriptorStatus.newBuilder()
                    .setCode(RateLimitResponse.Code.OK);
            RlsRule rule = matched[i];
            Outcome o = outcomes[i];
            if (rule != null && rule.unlimited()) {
                s.setLimitRemaining(UNLIMITED_REMAINING);
            } else if (o != null && o.decision() != null) {
                Decision d = o.decision();
                s.setCode(o.over() && !rule.shadow() ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK)
                        .setCurrentLimit(RateLimitResponse.RateLimit.newBuilder()
                                .setName(rule.name() == null ? "" : rule.name())
                                .setRequestsPerUnit((int) rule.requestsPerUnit())
                                .setUnit(rule.unit().proto()))
                        .setLimitRemaining((int) Math.min(d.remaining(), MAX_UINT32))
                        .setDurationUntilReset(duration(d.resetAfterNanos()));
                policies.add(o.policy(local));
                binding = binds(o, binding, over);
            }
            response.addStatuses(s);
        }
        if (binding != null) {
            Map<String, String> headers = new LinkedHashMap<>();
            // Envoy's rules have no calendar band (refused at boot, docs/SPEC.md §12), so no w reads the clock
            RateLimitHeaders.write(config.headers(), policies, binding.policy(local), binding.decision(),
                    SystemTimeSource.systemUtc(), headers);
            if (over) {
                long retryNanos = binding.retryAfterNanos();
                String violated = RateLimitHeaders.itemName(binding.policy(local), binding.decision().band());
                String detail;
                if (retryNanos == Decision.NO_RETRY) {
                    detail = "The cost of this request exceeds what policy '" + violated + "' can ever admit.";
                } else {
                    long seconds = RateLimitHeaders.ceilSeconds(retryNanos);
                    headers.put(RateLimitHeaders.RETRY_AFTER, Long.toString(seconds));
                    detail = "Quota of policy '" + violated + "' exceeded; retry after " + seconds + " s.";
                }
                headers.put("content-type", Problem.MEDIA_TYPE);
                response.setRawBody(ByteString.copyFrom(problem(new Problem(Problem.QUOTA_EXCEEDED,
                        "Request cannot be satisfied as assigned quota has been exceeded", 429, detail,
                        List.of(violated)))));
            }
            headers.forEach((k, v) -> response.addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(k)
                    .setValue(v)));
        }
        out.onNext(response.build());
        out.onCompleted();
    }

    /**
     * Gives back every admission of a request that is not admitted: grid and local, shadow-mode descriptors
     * included (what they took is returned as well); denials and peeks took nothing.
     */
    private void giveBack(Outcome[] outcomes, GridLimitMetrics.GiveBackReason reason) {
        for (Outcome o : outcomes) {
            if (o != null && o.decision() != null && o.decision().allowed()
                    && (o.source() == Source.GRID || o.source() == Source.LOCAL)) {
                giveBack.giveBack(o.check().rule().policy(), o.decision(), o.source() == Source.LOCAL, reason);
            }
        }
    }

    /**
     * SPEC §4's binding rule across descriptors: on OVER_LIMIT the first denial (not in shadow mode) that can never
     * pass, else the one with the longest retry-after; when admitted, the least remaining, then the nearest reset.
     */
    private static Outcome binds(Outcome candidate, @Nullable Outcome current, boolean over) {
        if (current == null) {
            return over && !(candidate.over() && !candidate.check().rule().shadow()) ? null : candidate;
        }
        if (over) {
            if (!candidate.over() || candidate.check().rule().shadow()) {
                return current;
            }
            long c = candidate.retryAfterNanos();
            long b = current.retryAfterNanos();
            if (b == Decision.NO_RETRY) {
                return current;
            }
            return c == Decision.NO_RETRY || c > b ? candidate : current;
        }
        return candidate.decision().bindsBefore(current.decision()) ? candidate : current;
    }

    private void count(Outcome[] outcomes) {
        for (Outcome o : outcomes) {
            if (o == null || o.check().peek()) {
                continue; // peeks decide nothing
            }
            String policy = o.check().rule().policy().name();
            switch (o.source()) {
                case GRID -> metrics.decision(GridLimitMetrics.Source.ENVOY, policy, o.decision().allowed()
                        ? GridLimitMetrics.Outcome.ALLOWED : o.check().rule().shadow()
                        ? GridLimitMetrics.Outcome.SHADOW_DENIED : GridLimitMetrics.Outcome.DENIED);
                case LOCAL -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.LOCAL);
                case OPEN -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.OPEN);
                case UNAVAILABLE -> metrics.fallback(GridLimitMetrics.Source.ENVOY, policy, FailureMode.CLOSED);
                case CANCELLED -> {
                    // the call was cancelled before the grid answered: no decision to count
                }
            }
        }
    }

    private byte[] problem(Problem problem) {
        try {
            return json.writeValueAsString(problem).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a problem body", e);
        }
    }

    private static Duration duration(long nanos) {
        return Duration.newBuilder().setSeconds(nanos / 1_000_000_000L).setNanos((int) (nanos % 1_000_000_000L))
                .build();
    }

    /** Who answered a descriptor (CANCELLED: nobody, the call was cancelled first). */
    private enum Source { GRID, LOCAL, OPEN, UNAVAILABLE, CANCELLED }

    /** @return how many grid waits have a timer armed (for tests: a cancelled call leaves none) */
    int armedTimers() {
        return ((ScheduledThreadPoolExecutor) timer).getQueue().size();
    }

    /**
     * One descriptor to decide.
     *
     * @param index its position in the request
     * @param rule its rule (limited)
     * @param key its grid key
     * @param cost what it consumes, >= 1 (1 for a peek)
     * @param peek decided without consuming
     */
    private record Check(int index, RlsRule rule, String key, long cost, boolean peek) {
        /** @return the cost asked of the limiter: a peek asks one above the quota, which is denied without a write */
        long asked() {
            return peek ? rule.quota() + 1 : cost;
        }
    }

    /** A descriptor's answer: the decision (null under open or unavailable) and who gave it. */
    private record Outcome(Check check, @Nullable Decision decision, Source source) {
        /** @return whether the descriptor is over its limit: denied, or for a peek nothing remaining */
        boolean over() {
            if (decision == null) {
                return false;
            }
            return check.peek() ? decision.remaining() == 0 : !decision.allowed();
        }

        /** @return the retry-after of an over-limit answer (a peek's: its reset), or {@link Decision#NO_RETRY} */
        long retryAfterNanos() {
            return check.peek() ? Math.max(1, decision.resetAfterNanos()) : decision.retryAfterNanos();
        }

        /** @return the policy the decision was taken against: the rule's, or this replica's share of it */
        Policy policy(LocalFallback local) {
            Policy p = check.rule().policy();
            if (source == Source.LOCAL) {
                Policy share = local.derived(p.name());
                return share == null ? p : share;
            }
            return p;
        }
    }
}
