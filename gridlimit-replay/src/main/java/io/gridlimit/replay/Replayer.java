package io.gridlimit.replay;

import io.gridlimit.api.Policy;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.catalog.PolicySource;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.OnMissingKey;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.decide.Answer;
import io.gridlimit.micronaut.decide.Ask;
import io.gridlimit.micronaut.decide.Decider;
import io.gridlimit.micronaut.decide.Decisions;
import io.gridlimit.micronaut.decide.Door;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.decide.ReservationGiveBack;
import io.gridlimit.micronaut.decide.RouteRules;
import io.gridlimit.micronaut.key.KeyResolver;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.time.ManualTimeSource;
import io.micronaut.core.annotation.Nullable;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays requests in log-time order through a configuration as the service applies it (issue 24 §2, §4):
 * <ol>
 *   <li>the route rules of the method and path ({@link RouteRules}, the filter's own matching: normalisation,
 *       exemptions; {@code @RateLimited} rules have no place in a log);</li>
 *   <li>each rule's key from what the line carries ({@link KeyResolver#resolve(RouteRule, KeyResolver.Parts)}); a
 *       malformed key, or an absent one under {@code on-missing-key: reject}, answers the request 400 and stops it;
 *       an absent one under {@code skip} drops the rule;</li>
 *   <li>the rules asked in order through the library's {@link Decider} (door {@link Door#FILTER}, no budget) on a
 *       {@link LocalRateLimiter} (grid-core's algorithms) whose clock is the request's log time, each but the last
 *       a reservation and the last a plain decision ({@link Decisions#decideLast}: nothing can give it back); a
 *       denial outside shadow mode stops the request ({@link RouteRules#stops}) and all-or-nothing gives back what
 *       the earlier rules took ({@link Decisions#close}), exactly as the filter does.</li>
 * </ol>
 * Each policy alone, under every algorithm, is replayed beside it ({@link Alternatives}, on a thread of its own:
 * {@link AlternativesThread}); reading them ({@link #alternatives}) ends the replay. Times must not decrease
 * between calls ({@link ReorderWindow} sees to it). No key is ever evicted: the limiter is unbounded, and a state
 * is dropped only once it is equal to a fresh one. Each rule's policy is chosen by the library's
 * {@link PolicySource} (a plan's header is believed only from a trusted proxy; a {@code selector} plan, which needs
 * the application, takes the route's own policy); decisions are counted under the chosen policy, each policy alone
 * under the route's. Not thread-safe, except that {@link #prepare} may run on one other thread than
 * {@link #accept}, handing each record over with a happens-before edge (a queue), as {@link Pipeline} does.
 */
public final class Replayer implements AutoCloseable {
    private final RouteRules routes;
    private final PolicySource policies;
    private final ManualTimeSource clock = new ManualTimeSource(0);
    private final Decider decider;
    private final RecordParts parts;
    private final Map<String, PolicyStats> stats = new LinkedHashMap<>();
    private final Map<String, Alternatives> alternatives = new LinkedHashMap<>();
    /** Decides each policy alone on a thread of its own; its end is the replay's ({@link #finish}). */
    private final AlternativesThread beside = new AlternativesThread();
    /** Most paths of one method whose rules are cached. */
    private static final int MATCH_CACHE_SIZE = 65_536;
    private final Map<String, Map<String, Rule[]>> matchCache = new HashMap<>();
    private @Nullable PolicyStats lastStats;
    /** The current request's asks and their rules (as many as the most rules a route has). */
    private Ask[] asks = new Ask[0];
    private RouteRule[] asked = new RouteRule[0];
    private long requests;
    private long unlimited;
    private long admitted;
    private long denied;
    private long rejected;
    private long firstNanos = Long.MAX_VALUE;
    private long lastNanos = Long.MIN_VALUE;

    /**
     * @param config the checked configuration ({@link ReplayConfig#load})
     * @param policies chooses each rule's policy per request (plans, SPEC §11), as in the filter
     */
    public Replayer(GridLimitConfig config, PolicySource policies) {
        this.routes = new RouteRules(config);
        this.policies = policies;
        LocalRateLimiter limiter = new LocalRateLimiter(Integer.MAX_VALUE, clock);
        GridLimitMetrics metrics = new GridLimitMetrics(null);
        LocalFallback local = new LocalFallback(config.policies().values(), config.local(), clock);
        this.decider = new Decider(config.failureMode(), limiter, local, new ReservationGiveBack(limiter, local,
                metrics), metrics);
        this.parts = new RecordParts(config.clientIp());
        for (Policy p : config.policies().values()) {
            stats.put(p.name(), new PolicyStats(p.name(), config.isShadow(p.name())));
            alternatives.put(p.name(), new Alternatives(p));
        }
    }

    /** What the service would have answered a request. */
    public enum Outcome {
        /** No rule applied: exempt, no route, or every rule skipped for a missing key. */
        UNLIMITED,
        /** Every rule asked admitted it (or denied it in shadow mode only). */
        ADMITTED,
        /** A rule denied it: 429. */
        DENIED,
        /** A key was missing under {@code on-missing-key: reject}, or malformed: 400. */
        REJECTED
    }

    /**
     * What a request needs before it is decided, worked out by {@link #prepare} (on the reader thread in a replay
     * run): the rules of its method and path, each rule's key, and whether the socket peer is a trusted proxy.
     */
    static final class Prepared {
        final Rule[] rules;
        final KeyResolver.Resolved[] keys;
        final boolean peerTrusted;

        Prepared(Rule[] rules, KeyResolver.Resolved[] keys, boolean peerTrusted) {
            this.rules = rules;
            this.keys = keys;
            this.peerTrusted = peerTrusted;
        }
    }

    private static final Prepared UNMATCHED = new Prepared(new Rule[0], new KeyResolver.Resolved[0], false);

    /**
     * Works out what {@link #accept} needs of a record ({@link Prepared}: its rules, their keys, the peer's trust)
     * and hands each policy alone its request ({@link AlternativesThread}). Called once per record, in replay
     * order, by one thread at a time (the route and address caches and the alternatives' hand-over are that
     * thread's); {@link #accept} calls it for a record not prepared yet. A replay run calls it on the reader thread,
     * so that matching and keying run beside the decisions.
     *
     * @param r the record, not earlier than the one prepared before
     * @throws IllegalStateException after {@link #finish} or {@link #close} (for a record with a rule's key), or if
     *     deciding a policy alone failed
     */
    public void prepare(LogRecord r) {
        Rule[] matched = rulesOf(r.method(), r.path());
        if (matched.length == 0) {
            r.prepared = UNMATCHED;
            return;
        }
        parts.of(r);
        KeyResolver.Resolved[] keys = new KeyResolver.Resolved[matched.length];
        for (int i = 0; i < matched.length; i++) {
            Rule rule = matched[i];
            KeyResolver.Resolved key = KeyResolver.resolve(rule.rule, parts);
            keys[i] = key;
            if (key.present()) {
                beside.add(rule.alternatives, key.key(), rule.rule.cost(), r.timeNanos());
            }
        }
        r.prepared = new Prepared(matched, keys, parts.peerTrusted());
    }

    /**
     * Replays one request.
     *
     * @param r the record, not earlier than the one before, {@linkplain #prepare prepared} or not
     * @return what the service would have answered
     * @throws IllegalStateException after {@link #finish} or {@link #close}, or if deciding a policy alone failed
     */
    public Outcome accept(LogRecord r) {
        if (beside.finished()) {
            throw new IllegalStateException("the replay has finished: no request can be accepted");
        }
        requests++;
        long now = r.timeNanos();
        firstNanos = Math.min(firstNanos, now);
        lastNanos = Math.max(lastNanos, now);
        clock.setNanos(now);
        if (r.prepared == null) {
            prepare(r);
        }
        Prepared p = r.prepared;
        r.prepared = null; // what is decided holds no more than its record
        Rule[] matched = p.rules;
        if (matched.length == 0) {
            unlimited++;
            return Outcome.UNLIMITED;
        }
        if (matched.length > asks.length) {
            asks = new Ask[matched.length];
            asked = new RouteRule[matched.length];
        }
        int n = 0;
        boolean reject = false;
        for (int i = 0; i < matched.length && !reject; i++) {
            Rule rule = matched[i];
            KeyResolver.Resolved key = p.keys[i];
            if (key.present()) {
                asks[n] = policies.ask(rule.rule, key.key(), p.peerTrusted, r::header);
                asked[n++] = rule.rule;
            } else if (key.malformed() || rule.rule.onMissingKey() == OnMissingKey.REJECT) {
                rule.stats.countMissingKeyRejected();
                reject = true; // later rules are not asked (each policy alone saw the request in prepare)
            } else {
                rule.stats.countMissingKeySkipped();
            }
        }
        if (reject) {
            rejected++;
            return Outcome.REJECTED;
        }
        if (n == 0) {
            unlimited++;
            return Outcome.UNLIMITED;
        }
        Decisions decisions = decider.begin(Door.FILTER, Decider.NO_BUDGET, null, null);
        boolean stopped = false;
        for (int i = 0; i < n && !stopped; i++) {
            Ask ask = asks[i];
            // complete at once: the local limiter decides in place; the last rule is a plain decision (nothing can
            // give it back here: no budget, no settle, and no later rule)
            Answer answer = (i == n - 1 ? decisions.decideLast(ask) : decisions.decide(ask)).join();
            statsOf(ask.policy().name()).decided(ask.key(), answer.admitted(), now);
            stopped = RouteRules.stops(asked[i], answer);
        }
        if (stopped) {
            decisions.close(GridLimitMetrics.GiveBackReason.DENIED);
            denied++;
            return Outcome.DENIED;
        }
        decisions.keep();
        admitted++;
        return Outcome.ADMITTED;
    }

    /** The counts of a policy chosen for a rule (the route's own, or a plan's). */
    private PolicyStats statsOf(String policy) {
        if (lastStats != null && lastStats.name().equals(policy)) {
            return lastStats;
        }
        lastStats = stats.get(policy);
        return lastStats;
    }

    /**
     * The route rules of a method and raw path, cached by both (a method's cache is emptied when it holds
     * {@value #MATCH_CACHE_SIZE} paths).
     */
    private Rule[] rulesOf(String method, String path) {
        Map<String, Rule[]> byPath = matchCache.computeIfAbsent(method, m -> new HashMap<>());
        Rule[] rules = byPath.get(path);
        if (rules == null) {
            if (byPath.size() >= MATCH_CACHE_SIZE) {
                byPath.clear();
            }
            rules = routes.match(method, path).stream()
                    .map(rule -> new Rule(rule, stats.get(rule.policy().name()),
                            alternatives.get(rule.policy().name())))
                    .toArray(Rule[]::new);
            byPath.put(path, rules);
        }
        return rules;
    }

    /** A matched route rule with the counts and the alternatives of its own policy. */
    record Rule(RouteRule rule, PolicyStats stats, Alternatives alternatives) {
    }

    /** @return requests replayed */
    public long requests() {
        return requests;
    }

    /** @return requests no rule applied to (exempt, no route, or every rule skipped for a missing key) */
    public long unlimited() {
        return unlimited;
    }

    /** @return requests every asked rule admitted (or denied only in shadow mode) */
    public long admitted() {
        return admitted;
    }

    /** @return requests a rule denied (answered 429) */
    public long denied() {
        return denied;
    }

    /** @return requests answered 400 for a missing or malformed key */
    public long rejected() {
        return rejected;
    }

    /** @return the earliest replayed time in epoch nanoseconds, or {@link Long#MAX_VALUE} when none */
    public long firstNanos() {
        return firstNanos;
    }

    /** @return the latest replayed time in epoch nanoseconds, or {@link Long#MIN_VALUE} when none */
    public long lastNanos() {
        return lastNanos;
    }

    /** @return each configured policy's counts, in declared order */
    public List<PolicyStats> policies() {
        return List.copyOf(stats.values());
    }

    /**
     * Ends the replay: each policy alone has decided every request accepted ({@link AlternativesThread#finish}), and
     * no request can be accepted afterwards. Idempotent; {@link #alternatives} calls it.
     *
     * @throws IllegalStateException if deciding a policy alone failed, or after {@link #close()}
     */
    public void finish() {
        beside.finish();
    }

    /**
     * The policy alone under each algorithm, once every request accepted so far is decided by it ({@link #finish}).
     *
     * @param policy a configured policy name
     * @return its alternatives
     * @throws IllegalStateException if deciding the policy alone failed
     */
    public Alternatives alternatives(String policy) {
        finish();
        return alternatives.get(policy);
    }

    /**
     * Stops the thread deciding each policy alone (its counts are final only after {@link #finish}) and the
     * decider's timer thread (never started: no decision has a budget).
     */
    @Override
    public void close() {
        try {
            beside.close();
        } finally {
            decider.close();
        }
    }
}
