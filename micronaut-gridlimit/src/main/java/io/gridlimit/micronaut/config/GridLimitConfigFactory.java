package io.gridlimit.micronaut.config;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.config.sources.ConfigurationSources;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.exceptions.BeanContextException;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.NameUtils;
import io.micronaut.core.naming.conventions.StringConvention;
import io.micronaut.core.util.PathMatcher;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Builds the {@link GridLimitConfig} once, at startup ({@link Context}, before the grid starts): first the property
 * sources are checked as written ({@link ConfigurationSources}: a YAML file ignored for want of a parser, unknown
 * names, values of the wrong type; lists replaced whole), then Micronaut binds {@link GridLimitProperties},
 * {@link PolicyProperties} and {@link RouteProperties}, then this maps them onto grid-core's builders
 * ({@code Policy.builder}, {@code Band.*}: their ranges, SPEC §1, are checked there only, and their
 * {@link IllegalArgumentException} becomes a message naming the property path and the value) and checks what no
 * single value shows: a route naming no policy, a pattern that can never match (URI template syntax, a trailing
 * or double {@code /}, SPEC §7), a cost above a band's quota, {@code exempt} covering every path or
 * {@code trusted-proxies} every address without the setting that says it is meant, non-loopback {@code members}
 * of a member bound to the default interfaces, a missing cluster name. One {@link ConfigurationException}
 * "Invalid GridLimit configuration: {@code <path>: <what is wrong with 'value'>}; …" stops the boot.
 */
@Factory
public class GridLimitConfigFactory {
    private static final Set<String> HTTP_METHODS = new TreeSet<>(Set.of("GET", "HEAD", "POST", "PUT", "DELETE",
            "OPTIONS", "PATCH", "TRACE", "CONNECT"));
    private static final List<String> EVERY_PATH = List.of("/a", "/a/b", "/a/b/c.d", "/.well-known/x");
    /**
     * Checks and builds the configuration.
     *
     * @param context the starting application context (its property sources and bean definitions)
     * @return the checked configuration, never null
     * @throws ConfigurationException naming each bad property path and value
     */
    @Context
    public GridLimitConfig gridLimitConfig(ApplicationContext context) {
        ConfigurationSources.Check check = ConfigurationSources.check(context);
        if (!check.ignored().isEmpty()) {
            LoggerFactory.getLogger(GridLimitConfigFactory.class).warn("ignored environment variables or system "
                    + "properties that name no GridLimit setting: {}", check.ignored());
        }
        failIfAny(check.errors());
        try {
            return new Mapping(context).config(context.getBean(GridLimitProperties.class),
                    context.getBeansOfType(PolicyProperties.class), context.getBeansOfType(RouteProperties.class));
        } catch (BeanContextException e) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + e.getMessage(), e);
        }
    }

    private static void failIfAny(Collection<String> errors) {
        if (!errors.isEmpty()) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
    }

    /** One mapping pass: collects the errors of the whole configuration, then throws once. */
    private static final class Mapping {
        private final ApplicationContext context;
        private final Set<String> errors = new LinkedHashSet<>();

        Mapping(ApplicationContext context) {
            this.context = context;
        }

        private String raw(String path, @Nullable Object typed) {
            return context.getProperty(path, String.class).orElse(String.valueOf(typed));
        }

        GridLimitConfig config(GridLimitProperties p, Collection<PolicyProperties> policyBeans,
                               Collection<RouteProperties> routeBeans) {
            if (p.gridTimeout().compareTo(Duration.ofMillis(1)) < 0 || p.gridTimeout().compareTo(Duration.ofHours(1)) > 0) {
                errors.add("gridlimit.grid-timeout: '" + raw("gridlimit.grid-timeout", p.gridTimeout())
                        + "' is out of range [1ms, 1h]");
            }
            List<String> exempt = p.exempt() == null ? GridLimitConfig.DEFAULT_EXEMPT : p.exempt();
            for (int i = 0; i < exempt.size(); i++) {
                String path = "gridlimit.exempt[" + i + "]";
                String e = String.valueOf(exempt.get(i)).trim();
                if (!p.exemptAllAcknowledged() && EVERY_PATH.stream().allMatch(x -> PathMatcher.ANT.matches(e, x))) {
                    errors.add(path + ": '" + exempt.get(i) + "' exempts every path, so no rule would ever apply; "
                            + "set gridlimit.exempt-all-acknowledged: true if that is meant");
                }
                pattern(path, exempt.get(i));
            }
            Map<String, Policy> policies = new LinkedHashMap<>();
            Set<String> shadow = new HashSet<>();
            Set<String> refused = new HashSet<>();
            for (PolicyProperties pp : declared(policyBeans, PolicyProperties::name, "gridlimit.policies")) {
                Policy policy = policy(pp);
                if (policy == null) {
                    refused.add(pp.name());
                } else {
                    policies.put(policy.name(), policy);
                    if (pp.shadow()) {
                        shadow.add(policy.name());
                    }
                }
            }
            List<RouteRule> rules = new ArrayList<>();
            routeBeans.stream().sorted(Comparator.comparingInt(RouteProperties::index)).forEach(r -> {
                RouteRule rule = route(r, policies, shadow, refused);
                if (rule != null) {
                    rules.add(rule);
                }
            });
            errors.addAll(context.getBean(LeaseProperties.class).problems(this::raw));
            errors.addAll(context.getBean(HttpProperties.class).problems((path, d) -> context.getProperty(path,
                    String.class).orElse(HttpProperties.shortForm(d))));
            ClientIpSettings clientIp = NetworkSettings.clientIp(p.clientIp(), errors);
            HazelcastSettings hazelcast = NetworkSettings.hazelcast(p.hazelcast(), errors,
                    context.getProperty("micronaut.application.name", String.class).orElse(null));
            failIfAny(errors);
            return new GridLimitConfig(p.headers(), p.failureMode(), p.gridTimeout(),
                    exempt.stream().map(String::trim).toList(), clientIp, hazelcast, policies, shadow, rules,
                    new LocalFallbackSettings(p.local().maxKeys(), p.local().expectedReplicas()));
        }

        /** Refuses a path pattern that is empty or that a normalised path (SPEC §7) can never match. */
        private @Nullable String pattern(String path, @Nullable String text) {
            String t = text == null ? "" : text.trim();
            String wrong = t.isEmpty() ? "is empty"
                    : !t.startsWith("/") ? "does not start with /"
                    : t.contains("{") || t.contains("}") ? "is URI template syntax, which an Ant pattern never "
                    + "matches (write * for a {name} segment)"
                    : t.length() > 1 && t.endsWith("/") ? "ends with /, which a normalised path never does"
                    : t.contains("//") ? "contains //, which a normalised path never does" : null;
            if (wrong != null) {
                errors.add(path + ": '" + (text == null ? "" : text) + "' " + wrong);
            }
            return wrong == null ? t : null;
        }

        /** Sorts beans into the order their names first appear in the property sources (SPEC §4 binding band). */
        private <T> List<T> declared(Collection<T> beans, Function<T, String> name, String prefix) {
            List<String> order = context.getProperties(prefix, StringConvention.RAW).keySet().stream()
                    .map(k -> k.split("\\.")[0]).distinct().toList();
            return beans.stream().sorted(Comparator.<T>comparingInt(b -> order.contains(name.apply(b))
                    ? order.indexOf(name.apply(b)) : Integer.MAX_VALUE).thenComparing(name)).toList();
        }

        /** Configuration's side of the one mapping ({@link PolicyDefinitions}): bands in declared order. */
        private @Nullable Policy policy(PolicyProperties p) {
            String path = "gridlimit.policies." + p.name();
            Map<String, PolicyDefinitions.Definition> bands = null;
            if (p.bands() != null && !p.bands().isEmpty()) {
                bands = new LinkedHashMap<>();
                for (PolicyProperties.Band b : declared(p.bands(), PolicyProperties.Band::name, path + ".bands")) {
                    bands.put(b.name(), new PolicyDefinitions.Definition(b.algorithm(), b.capacity(),
                            b.refillTokens(), b.refillPeriod(), b.limit(), b.window(), null, b.maxDebt(), b.period(),
                            b.zone(), b.weekStart(), b.anchor()));
                }
            }
            return PolicyDefinitions.policy(path, p.name(), new PolicyDefinitions.Definition(p.algorithm(),
                    p.capacity(), p.refillTokens(), p.refillPeriod(), p.limit(), p.window(), bands, p.maxDebt(),
                    p.period(), p.zone(), p.weekStart(), p.anchor()), this::raw, errors);
        }

        private @Nullable RouteRule route(RouteProperties r, Map<String, Policy> policies, Set<String> shadow,
                                          Set<String> refused) {
            String path = "gridlimit.routes[" + r.index() + "]";
            int before = errors.size();
            String pattern = r.pattern() == null ? null : pattern(path + ".pattern", r.pattern());
            if (r.pattern() == null) {
                errors.add(path + ".pattern: missing");
            }
            List<String> methods = r.methods() == null ? List.of() : r.methods();
            for (int i = 0; i < methods.size(); i++) {
                if (!HTTP_METHODS.contains(String.valueOf(methods.get(i)).trim().toUpperCase(java.util.Locale.ROOT))) {
                    errors.add(path + ".methods[" + i + "]: '" + methods.get(i) + "' is not one of " + HTTP_METHODS);
                }
            }
            Policy policy = r.policy() == null ? null : policies.get(r.policy().trim());
            if (r.policy() == null) {
                errors.add(path + ".policy: missing");
            } else if (policy == null && !refused.contains(r.policy().trim())) {
                errors.add(path + ".policy: '" + r.policy() + "' names no policy under gridlimit.policies (known: "
                        + (policies.isEmpty() ? "none" : String.join(", ", policies.keySet())) + ")");
            }
            List<KeySource> keys = new ArrayList<>();
            List<String> rawKeys = r.key() == null || r.key().isEmpty() ? List.of("client-ip") : r.key();
            for (int i = 0; i < rawKeys.size(); i++) {
                try {
                    keys.add(KeySource.parse(rawKeys.get(i)));
                } catch (IllegalArgumentException e) {
                    errors.add(path + ".key" + (r.key() == null ? "" : "[" + i + "]") + ": " + e.getMessage());
                }
            }
            for (Band band : policy == null ? List.<Band>of() : policy.bands()) {
                if (r.cost() > band.quota()) {
                    errors.add(path + ".cost: '" + r.cost() + "' exceeds the quota " + band.quota() + " of "
                            + (policy.isComposite() ? "band '" + band.name() + "' of " : "") + "policy '"
                            + policy.name() + "': no request could ever pass");
                    break;
                }
            }
            if (errors.size() > before || policy == null) {
                return null;
            }
            try {
                return new RouteRule(path, pattern, new LinkedHashSet<>(methods.stream().map(m -> m.trim()
                        .toUpperCase(java.util.Locale.ROOT)).toList()), policy, shadow.contains(policy.name()), keys,
                        r.cost(), r.onMissingKey());
            } catch (IllegalArgumentException e) {
                errors.add(path + ".cost: '" + r.cost() + "' is refused: " + e.getMessage());
                return null;
            }
        }

    }
}
