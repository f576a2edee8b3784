package io.gridlimit.micronaut.catalog;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.micronaut.PolicySelector;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.PlanProperties;
import io.gridlimit.micronaut.config.RouteProperties;
import io.gridlimit.micronaut.config.RouteRule;
import io.gridlimit.micronaut.decide.Ask;
import io.gridlimit.micronaut.key.ClientIpResolver;
import io.gridlimit.micronaut.metrics.CatalogMetrics;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which policy decides a request (docs/SPEC.md §11), resolved on this replica from local copies only: no network
 * round trip, never blocking, so it runs on the event loop.
 * <ol>
 *   <li><b>Plan.</b> A route with {@code plan: <name>} reads the request's plan value ({@link PlanProperties}: a
 *   header believed only from a trusted proxy, or the application's {@link PolicySelector}) and maps it to a
 *   policy; no value, or one the plan does not map, takes the route's own {@code policy} (counted,
 *   {@link CatalogMetrics#PLAN_DEFAULTS}).</li>
 *   <li><b>Override.</b> An override of (that policy, the request's key) names the policy that decides the key
 *   instead, on its own state.</li>
 *   <li><b>Catalog.</b> The catalog's current version of the policy chosen; configuration's when the catalog lacks
 *   it (not yet seeded, or the catalog is off).</li>
 * </ol>
 * At startup (before the server takes requests) it checks the plans (a bad plan stops the boot, naming the
 * property and the value), makes the Hazelcast limiter's decisions carry catalog versions, seeds every configured
 * policy into the catalog with this replica's configuration generation ({@link PolicyDisagreements}: the catalog's
 * record stands unless a lower generation seeded it, and a disagreement is logged, counted and shown in readiness)
 * and registers which policies its routes and plans name, so that the admin API refuses to delete them.
 * Thread-safe.
 */
@Context
public class PolicySource {
    private static final Logger LOG = LoggerFactory.getLogger(PolicySource.class);

    private final GridLimitConfig config;
    private final @Nullable PolicyCatalog catalog;
    /** The admin API's view of {@link #catalog}, or null while it is off. */
    private final @Nullable PolicyAdmin admin;
    private final Map<String, Plan> plansByRoute = new LinkedHashMap<>();
    private final ClientIpResolver clientIp;
    private final @Nullable PolicySelector selector;
    private final CatalogMetrics metrics;
    /** Most renamed policies kept per state name ({@link #onStateOf}). */
    private static final int MAX_RENAMED = 1024;
    private final Map<String, Map<Policy, Policy>> renamedByState = new java.util.concurrent.ConcurrentHashMap<>();
    /** The policies this replica's routes, annotations and plans name: they stay limited whatever the catalog holds. */
    private final Set<String> routed;

    /** A checked plan. */
    private record Plan(String name, @Nullable String header, boolean selector, Map<String, Policy> policies) {
    }

    /**
     * @param config the checked configuration
     * @param limiters the application's limiter, resolved after the plans are checked (so a bad plan starts no
     *     grid): the catalog is used only with the Hazelcast one
     * @param catalogs the catalog, created only when used
     * @param properties {@code gridlimit.catalog.*}
     * @param plans the plans under {@code gridlimit.plans}
     * @param routes the route rules as written (their {@code plan})
     * @param clientIp decides whether a peer is a trusted proxy
     * @param selectors the application's plan selector, if any
     * @param metrics the catalog's meters
     * @param annotated the rules doors declare (the {@code @RateLimited} ones), whose policies are registered as
     *     references too
     * @param disagreements seeds the configured policies and reports where they disagree with the catalog
     * @throws ConfigurationException naming each bad plan property and value
     */
    public PolicySource(GridLimitConfig config, BeanProvider<RateLimiter> limiters, BeanProvider<PolicyCatalog> catalogs,
                        CatalogProperties properties, Collection<PlanProperties> plans,
                        Collection<RouteProperties> routes, ClientIpResolver clientIp,
                        BeanProvider<PolicySelector> selectors, CatalogMetrics metrics,
                        BeanProvider<DeclaredRules> annotated,
                        PolicyDisagreements disagreements) {
        this.config = config;
        this.clientIp = clientIp;
        this.metrics = metrics;
        this.selector = selectors.isPresent() ? selectors.get() : null;
        checkPlans(plans, routes);
        Map<String, Set<String>> refs = references(annotated.isPresent() ? annotated.get().rules() : List.of());
        this.routed = Set.copyOf(refs.keySet());
        PolicyCatalog c = null;
        Optional<GridOperations> grid = properties.enabled() ? GridOperations.of(limiters.get()) : Optional.empty();
        if (grid.isPresent()) {
            c = catalogs.get();
            grid.get().useCatalog(c);
            disagreements.watch(c, routed);
            if (!disagreements.seed()) {
                c.onReconnect(disagreements::seed); // a client not yet connected seeds when it connects
            }
            c.registerReferences(refs);
            metrics.track(c);
        }
        this.catalog = c;
        this.admin = c == null ? null : new PolicyAdmin(c);
    }

    private void checkPlans(Collection<PlanProperties> plans, Collection<RouteProperties> routes) {
        Set<String> errors = new LinkedHashSet<>();
        Map<String, Plan> checked = new TreeMap<>();
        for (PlanProperties p : plans) {
            String path = "gridlimit.plans." + p.name();
            String header = p.header() == null ? null : p.header().trim();
            if ((header != null) == p.selector()) {
                errors.add(path + ": set exactly one of header (a header a trusted proxy writes) and selector: true "
                        + "(the application's PolicySelector bean), got " + (header == null ? "neither" : "both"));
            }
            if (header != null && !header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                errors.add(path + ".header: '" + p.header() + "' is not a header name (RFC 9110 §5.1 token)");
            }
            if (p.selector() && selector == null) {
                errors.add(path + ".selector: 'true' needs a bean implementing io.gridlimit.micronaut.PolicySelector,"
                        + " and the application has none");
            }
            Map<String, Policy> targets = new LinkedHashMap<>();
            if (p.policies() == null || p.policies().isEmpty()) {
                errors.add(path + ".policies: missing: map each plan value to a policy under gridlimit.policies");
            } else {
                p.policies().forEach((value, policy) -> {
                    Optional<Policy> found = config.policy(policy == null ? null : policy.trim());
                    if (found.isEmpty()) {
                        errors.add(path + ".policies." + value + ": '" + policy + "' names no policy under "
                                + "gridlimit.policies (known: " + String.join(", ", config.policies().keySet())
                                + ")");
                    } else {
                        targets.put(value, found.get());
                    }
                });
            }
            checked.put(p.name(), new Plan(p.name(), header, p.selector(), Map.copyOf(targets)));
        }
        for (RouteProperties r : routes) {
            if (r.plan() == null) {
                continue;
            }
            Plan plan = checked.get(r.plan().trim());
            String path = "gridlimit.routes[" + r.index() + "].plan";
            if (plan == null) {
                errors.add(path + ": '" + r.plan() + "' names no plan under gridlimit.plans (known: "
                        + (checked.isEmpty() ? "none" : String.join(", ", checked.keySet())) + ")");
            } else {
                plansByRoute.put("gridlimit.routes[" + r.index() + "]", plan);
            }
        }
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
    }

    private Map<String, Set<String>> references(Collection<RouteRule> annotations) {
        Map<String, Set<String>> refs = new TreeMap<>(); // sets: one method may hold several routes (GET, HEAD)
        List<RouteRule> rules = new ArrayList<>(config.routes());
        rules.addAll(annotations);
        for (RouteRule rule : rules) {
            refs.computeIfAbsent(rule.policy().name(), k -> new LinkedHashSet<>()).add(rule.origin());
            Plan plan = plansByRoute.get(rule.origin());
            if (plan != null) {
                plan.policies().values().forEach(p -> refs.computeIfAbsent(p.name(), k -> new LinkedHashSet<>())
                        .add(rule.origin() + " (plan " + plan.name() + ")"));
            }
        }
        return refs;
    }

    /** @return the catalog in use, or null (a replaced limiter, or {@code gridlimit.catalog.enabled: false}) */
    public @Nullable PolicyCatalog catalog() {
        return catalog;
    }

    /**
     * What an admin API does with the catalog in use: read, list, put, delete, overrides (docs/SPEC.md §11).
     *
     * @return the catalog's admin, or empty while the catalog is off ({@code gridlimit.catalog.enabled: false}, or
     *     the limiter is not the grid's)
     */
    public Optional<PolicyAdmin> admin() {
        return Optional.ofNullable(admin);
    }

    /**
     * What a route rule's request asks the {@link io.gridlimit.micronaut.decide.Decider}: the policy chosen for it
     * ({@link #resolve(RouteRule, String, HttpRequest)}: plan, override, catalog, resolved once here) on the state of
     * the rule's own policy ({@link #onStateOf}), with the rule's cost.
     *
     * @param rule the matching rule
     * @param key the request's grid key for the rule
     * @param request the request (for the plan)
     * @return the ask, never null
     */
    public Ask ask(RouteRule rule, String key, HttpRequest<?> request) {
        Policy chosen = resolve(rule, key, request);
        return new Ask(chosen, onStateOf(chosen, rule.policy().name()), key, rule.cost());
    }

    /**
     * What a check of a named policy asks the {@link io.gridlimit.micronaut.decide.Decider} (the decision API): the
     * key's override or the catalog's current version ({@link #resolve(Policy, String)}) on the state of the policy
     * asked for ({@link #onStateOf}).
     *
     * @param asked the policy the caller named
     * @param key the grid key
     * @param cost the cost, in [1, 10^15]
     * @return the ask, never null
     */
    public Ask ask(Policy asked, String key, long cost) {
        Policy chosen = resolve(asked, key);
        return new Ask(chosen, onStateOf(chosen, asked.name()), key, cost);
    }

    /**
     * The policy that decides a route rule's request (the class note: plan, override, catalog).
     *
     * @param rule the matching rule
     * @param key the request's grid key for the rule
     * @param request the request (for the plan)
     * @return the policy, never null
     */
    public Policy resolve(RouteRule rule, String key, HttpRequest<?> request) {
        return resolve(rule, key, () -> clientIp.peerIsTrusted(request), name -> request.getHeaders().getAll(name),
                request);
    }

    /**
     * What a route rule's request asks, for a door that has no {@link HttpRequest} (the offline replay, issue 24):
     * as {@link #ask(RouteRule, String, HttpRequest)}, the plan's header read from {@code headers} only when
     * {@code peerTrusted} says the peer is a trusted proxy (SPEC §6, §11); a {@code selector: true} plan has no
     * request to ask the {@link PolicySelector} about and takes the route's own policy.
     *
     * @param rule the matching rule
     * @param key the request's grid key for the rule
     * @param peerTrusted whether the request's socket peer is a trusted proxy
     * @param headers a header's lines by name (any case), empty when absent, never null
     * @return the ask, never null
     */
    public Ask ask(RouteRule rule, String key, boolean peerTrusted, Function<String, List<String>> headers) {
        Policy chosen = resolve(rule, key, () -> peerTrusted, headers, null);
        return new Ask(chosen, onStateOf(chosen, rule.policy().name()), key, rule.cost());
    }

    private Policy resolve(RouteRule rule, String key, BooleanSupplier peerTrusted,
                           Function<String, List<String>> headers, @Nullable HttpRequest<?> request) {
        Policy chosen = rule.policy();
        Plan plan = plansByRoute.isEmpty() ? null : plansByRoute.get(rule.origin());
        if (plan != null) {
            chosen = select(plan, peerTrusted, headers, request, chosen);
        }
        return resolve(chosen, key);
    }

    private Policy select(Plan plan, BooleanSupplier peerTrusted, Function<String, List<String>> headers,
                          @Nullable HttpRequest<?> request, Policy fallback) {
        String value = null;
        if (plan.header() != null) {
            if (peerTrusted.getAsBoolean()) {
                List<String> lines = headers.apply(plan.header()).stream().map(String::trim)
                        .filter(v -> !v.isEmpty()).toList();
                value = lines.size() == 1 ? lines.get(0) : null; // two values are no believable value
            }
        } else if (selector != null && request != null) {
            try {
                value = selector.select(plan.name(), request);
            } catch (RuntimeException e) {
                LOG.debug("PolicySelector failed for plan '{}': {}", plan.name(), e.toString());
            }
        }
        Policy target = value == null ? null : plan.policies().get(value);
        if (target == null) {
            metrics.planDefault(plan.name(), value != null);
            return fallback;
        }
        return target;
    }

    /**
     * The policy that decides a key under a named policy: its override, else the catalog's current version, else
     * the given one (for the decision API and after a plan).
     *
     * @param policy the policy asked for (configuration's or the catalog's)
     * @param key the grid key
     * @return the policy, never null
     */
    public Policy resolve(Policy policy, String key) {
        PolicyCatalog c = catalog;
        if (c == null) {
            return policy;
        }
        String target = c.overrideFor(policy.name(), key);
        if (target != null) {
            Policy other = current(target).orElse(null);
            if (other != null) {
                return other;
            }
        }
        Policy current = c.policy(policy.name());
        return current != null ? current : policy;
    }

    /**
     * The policy to send to the grid for a decision by {@code decider} of a key whose state lives under
     * {@code stateName} (the route's own policy, or the policy a decision-API call names): {@code decider} itself
     * when it has that name, else its parameters under that name, with no catalog version. The key thus keeps one
     * state whatever plan or override chose the parameters, and setting, changing or removing an override, or a
     * request switching plans, is carried over by the owner as a change of parameters (docs/SPEC.md §4, §11): the
     * key never starts fresh under the other policy, so it is never admitted beyond the old or the new limit within
     * a window. Allocates only the first time a pair is asked (cached, bounded).
     *
     * @param decider the policy that decides ({@link #resolve(RouteRule, String, HttpRequest)})
     * @param stateName the name whose map holds the key's state
     * @return the policy to send, never null
     */
    public Policy onStateOf(Policy decider, String stateName) {
        if (decider.name().equals(stateName)) {
            return decider;
        }
        Map<Policy, Policy> renamed = renamedByState.computeIfAbsent(stateName,
                n -> new java.util.concurrent.ConcurrentHashMap<>());
        Policy p = renamed.get(decider);
        if (p == null) {
            if (renamed.size() >= MAX_RENAMED) {
                renamed.clear(); // old versions of changed policies: rebuilt on demand
            }
            p = renamed.computeIfAbsent(decider, d -> renamed(d, stateName));
        }
        return p;
    }

    private static Policy renamed(Policy p, String name) {
        Policy.Builder b = Policy.builder(name);
        if (p.isComposite()) {
            p.bands().forEach(b::band);
        } else {
            b.single(p.bands().get(0));
        }
        return b.build();
    }

    /**
     * The current policy of a name: the catalog's, else configuration's. A policy the admin API deleted is gone,
     * except where this replica's routes name it (the deletion met no live reference, docs/SPEC.md §11): those
     * routes are decided with the configuration, never left unlimited, and so is the decision API here, so that
     * both share the key's quota.
     *
     * @param name a policy name
     * @return the policy, or empty when neither knows it, or the admin API deleted it and no route here names it
     */
    public Optional<Policy> current(String name) {
        PolicyCatalog c = catalog;
        if (c != null) {
            Optional<io.gridlimit.grid.catalog.PolicyRecord> r = c.anyRecord(name);
            if (r.isPresent() && (r.get().policy() != null || !routed.contains(name))) {
                return Optional.ofNullable(r.get().policy()); // deleted through the admin API: gone
            }
        }
        return config.policy(name);
    }
}
