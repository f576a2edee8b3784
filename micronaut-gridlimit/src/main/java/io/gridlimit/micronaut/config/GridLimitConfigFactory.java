package io.gridlimit.micronaut.config;

import inet.ipaddr.IPAddress;
import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.conventions.StringConvention;
import io.micronaut.http.HttpMethod;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the {@link GridLimitConfig} once, at startup ({@link Context}), from the bound
 * {@code gridlimit.*} properties, and stops the boot on the first pass over them with one
 * {@link io.micronaut.context.exceptions.ConfigurationException} whose message names every bad property path and
 * value: unknown algorithm; zero, negative, out-of-range or non-numeric values; a route naming an unknown policy;
 * a malformed CIDR; an empty band list; a header key source without a name; bad enum values.
 *
 * <p>Ranges (SPEC §1): capacity, refill tokens and limit in [1, 10^15] (a sliding-window-log limit in
 * [1, 100 000]); refill period and window in [1 ms, 365 days]; cost in [1, 10^15] and at most every band's quota;
 * grid timeout in [1 ms, 1 h]; ipv6-prefix in [1, 128]; port in [1, 65535]; {@code local.max-keys} in
 * [1, 100 000 000]; {@code local.expected-replicas} in [1, 10 000]; {@code hazelcast.max-keys-per-member} in
 * [1 000, 100 000 000]; {@code hazelcast.min-cluster-size} in [0, 1 000].
 */
@Factory
public class GridLimitConfigFactory {
    private static final Duration MAX_GRID_TIMEOUT = Duration.ofHours(1);
    private static final Set<String> HTTP_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS",
            "PATCH", "TRACE", "CONNECT");

    /**
     * Checks and builds the configuration.
     *
     * @param properties the bound {@code gridlimit.*} settings
     * @param policies the bound {@code gridlimit.policies.*}
     * @param routes the bound {@code gridlimit.routes[*]}
     * @param environment read for the declared order of policies and bands
     * @return the checked configuration, never null
     * @throws io.micronaut.context.exceptions.ConfigurationException naming each bad property path and value
     */
    @Context
    public GridLimitConfig gridLimitConfig(GridLimitProperties properties, List<PolicyProperties> policies,
                                           List<RouteProperties> routes, Environment environment) {
        ConfigValues v = new ConfigValues();
        String p = GridLimitProperties.PREFIX;

        HeaderMode headers = v.enumValue(p + ".headers", properties.getHeaders(), HeaderMode.class, HeaderMode.BOTH);
        FailureMode failureMode = v.enumValue(p + ".failure-mode", properties.getFailureMode(), FailureMode.class,
                FailureMode.OPEN);
        Duration gridTimeout = v.duration(p + ".grid-timeout", properties.getGridTimeout(), Duration.ofMillis(1),
                MAX_GRID_TIMEOUT, GridLimitConfig.DEFAULT_GRID_TIMEOUT);

        List<String> exempt = properties.getExempt() == null ? GridLimitConfig.DEFAULT_EXEMPT
                : properties.getExempt();
        for (int i = 0; i < exempt.size(); i++) {
            String e = exempt.get(i);
            if (e == null || !e.trim().startsWith("/")) {
                v.error(p + ".exempt[" + i + "]", "'" + e + "' is not a path pattern starting with /");
            }
        }
        exempt = exempt.stream().map(s -> s == null ? "" : s.trim()).toList();

        ClientIpSettings clientIp = clientIp(v, properties.getClientIp());
        HazelcastSettings hazelcast = hazelcast(v, properties.getHazelcast());
        Long maxKeys = v.integer(p + ".local.max-keys", properties.getLocal().getMaxKeys(), 1,
                LocalFallbackSettings.MAX_MAX_KEYS, (long) LocalFallbackSettings.DEFAULT_MAX_KEYS);
        Long replicas = v.integer(p + ".local.expected-replicas", properties.getLocal().getExpectedReplicas(), 1,
                LocalFallbackSettings.MAX_EXPECTED_REPLICAS, (long) LocalFallbackSettings.DEFAULT_EXPECTED_REPLICAS);

        Map<String, Policy> byName = new LinkedHashMap<>();
        Set<String> shadow = new HashSet<>();
        List<PolicyProperties> ordered = inDeclaredOrder(policies, PolicyProperties::getName, environment,
                PolicyProperties.PREFIX);
        for (PolicyProperties pp : ordered) {
            Policy policy = policy(v, pp, environment);
            String path = PolicyProperties.PREFIX + "." + pp.getName();
            Boolean isShadow = v.bool(path + ".shadow", pp.getShadow(), false);
            if (policy != null) {
                byName.put(policy.name(), policy);
                if (Boolean.TRUE.equals(isShadow)) {
                    shadow.add(policy.name());
                }
            }
        }

        List<RouteRule> rules = new ArrayList<>();
        List<RouteProperties> sortedRoutes = new ArrayList<>(routes);
        sortedRoutes.sort(Comparator.comparingInt(RouteProperties::getIndex));
        Set<String> invalidPolicies = new HashSet<>();
        for (PolicyProperties pp : policies) {
            if (!byName.containsKey(pp.getName())) {
                invalidPolicies.add(pp.getName());
            }
        }
        for (RouteProperties rp : sortedRoutes) {
            RouteRule rule = route(v, rp, byName, shadow, invalidPolicies);
            if (rule != null) {
                rules.add(rule);
            }
        }
        v.throwIfAny();
        return new GridLimitConfig(headers, failureMode, gridTimeout, exempt, clientIp, hazelcast, byName, shadow,
                rules, new LocalFallbackSettings(maxKeys.intValue(), replicas.intValue()));
    }

    private static @Nullable ClientIpSettings clientIp(ConfigValues v, GridLimitProperties.ClientIp raw) {
        String p = GridLimitProperties.PREFIX + ".client-ip";
        List<IPAddress> trusted = new ArrayList<>();
        List<String> proxies = raw.getTrustedProxies() == null ? List.of() : raw.getTrustedProxies();
        for (int i = 0; i < proxies.size(); i++) {
            IPAddress a = v.cidr(p + ".trusted-proxies[" + i + "]", proxies.get(i));
            if (a != null) {
                trusted.add(a);
            }
        }
        Long prefix = v.integer(p + ".ipv6-prefix", raw.getIpv6Prefix(), 1, 128,
                (long) ClientIpSettings.DEFAULT_IPV6_PREFIX);
        return prefix == null ? null : new ClientIpSettings(trusted, prefix.intValue());
    }

    private static @Nullable HazelcastSettings hazelcast(ConfigValues v, GridLimitProperties.Hazelcast raw) {
        String p = GridLimitProperties.PREFIX + ".hazelcast";
        HazelcastMode mode = v.enumValue(p + ".mode", raw.getMode(), HazelcastMode.class, HazelcastMode.EMBEDDED);
        String clusterName = ConfigValues.isBlank(raw.getClusterName()) ? HazelcastSettings.DEFAULT_CLUSTER_NAME
                : raw.getClusterName().trim();
        Long port = v.integer(p + ".port", raw.getPort(), 1, 65_535, (long) HazelcastSettings.DEFAULT_PORT);
        List<String> members = new ArrayList<>();
        List<String> rawMembers = raw.getMembers() == null ? List.of("127.0.0.1") : raw.getMembers();
        for (int i = 0; i < rawMembers.size(); i++) {
            String m = rawMembers.get(i);
            if (ConfigValues.isBlank(m) || m.trim().chars().anyMatch(Character::isWhitespace)) {
                v.error(p + ".members[" + i + "]", "'" + m + "' is not a host or host:port");
            } else {
                members.add(m.trim());
            }
        }
        Path configFile = null;
        if (!ConfigValues.isBlank(raw.getConfigFile())) {
            try {
                configFile = Path.of(raw.getConfigFile().trim());
                if (!Files.isRegularFile(configFile) || !Files.isReadable(configFile)) {
                    v.error(p + ".config-file", "'" + raw.getConfigFile() + "' is not a readable file");
                    configFile = null;
                }
            } catch (InvalidPathException e) {
                v.error(p + ".config-file", "'" + raw.getConfigFile() + "' is not a file path");
            }
        }
        Long maxKeys = v.integer(p + ".max-keys-per-member", raw.getMaxKeysPerMember(),
                HazelcastSettings.MIN_MAX_KEYS_PER_MEMBER, HazelcastSettings.MAX_MAX_KEYS_PER_MEMBER,
                (long) HazelcastSettings.DEFAULT_MAX_KEYS_PER_MEMBER);
        Long minClusterSize = v.integer(p + ".min-cluster-size", raw.getMinClusterSize(), 0,
                HazelcastSettings.MAX_MIN_CLUSTER_SIZE, (long) HazelcastSettings.DEFAULT_MIN_CLUSTER_SIZE);
        if (mode == null || port == null || maxKeys == null || minClusterSize == null) {
            return null;
        }
        return new HazelcastSettings(mode, clusterName, port.intValue(), members, configFile, maxKeys.intValue(),
                minClusterSize.intValue());
    }

    private static @Nullable Policy policy(ConfigValues v, PolicyProperties pp, Environment environment) {
        String path = PolicyProperties.PREFIX + "." + pp.getName();
        Policy.Builder builder;
        try {
            builder = Policy.builder(pp.getName());
        } catch (IllegalArgumentException e) {
            v.error(path, "policy name '" + pp.getName() + "' must be 1 to 64 characters of [A-Za-z0-9._-]");
            return null;
        }
        boolean hasBands = !pp.getBands().isEmpty() || environment.containsProperty(path + ".bands");
        if (hasBands && !pp.fields().isEmpty()) {
            v.error(path, "set either algorithm (with its parameters) or bands, not both");
            return null;
        }
        if (!hasBands) {
            Band band = band(v, path, pp.getName(), pp.fields());
            if (band == null) {
                return null;
            }
            return builder.single(band).build();
        }
        if (pp.getBands().isEmpty()) {
            v.error(path + ".bands", "the band list is empty: give at least one band, e.g. "
                    + "bands: {burst: {algorithm: token-bucket, capacity: 10, refill-tokens: 1, refill-period: 1s}}");
            return null;
        }
        if (pp.getBands().size() > Policy.Builder.MAX_BANDS) {
            v.error(path + ".bands", pp.getBands().size() + " bands is more than " + Policy.Builder.MAX_BANDS);
            return null;
        }
        List<PolicyProperties.BandProperties> bands = inDeclaredOrder(pp.getBands(),
                PolicyProperties.BandProperties::getName, environment, path + ".bands");
        boolean ok = true;
        for (PolicyProperties.BandProperties bp : bands) {
            String bandPath = path + ".bands." + bp.getName();
            Band band = band(v, bandPath, bp.getName(), bp.fields());
            if (band == null) {
                ok = false;
            } else {
                builder.band(band);
            }
        }
        return ok ? builder.build() : null;
    }

    private static @Nullable Band band(ConfigValues v, String path, String name, PolicyProperties.BandFields f) {
        if (ConfigValues.isBlank(f.algorithm)) {
            v.error(path + ".algorithm", "missing: set one of token-bucket, gcra, leaky-bucket, fixed-window, "
                    + "sliding-window-log, sliding-window-counter (or bands for a composite policy)");
            return null;
        }
        Algorithm algorithm;
        try {
            algorithm = Algorithm.fromConfigName(f.algorithm);
        } catch (IllegalArgumentException e) {
            v.error(path + ".algorithm", e.getMessage());
            return null;
        }
        Duration minPeriod = Duration.ofNanos(Band.MIN_PERIOD_NANOS);
        Duration maxPeriod = Duration.ofNanos(Band.MAX_PERIOD_NANOS);
        try {
            if (algorithm.isBucket()) {
                notFor(v, path, algorithm, "limit", f.limit, "window", f.window);
                Long capacity = v.integer(path + ".capacity", f.capacity, 1, Band.MAX_QUANTITY, null);
                Long refillTokens = v.integer(path + ".refill-tokens", f.refillTokens, 1, Band.MAX_QUANTITY, null);
                Duration refillPeriod = v.duration(path + ".refill-period", f.refillPeriod, minPeriod, maxPeriod,
                        null);
                if (capacity == null || refillTokens == null || refillPeriod == null) {
                    return null;
                }
                return algorithm == Algorithm.GCRA ? Band.gcra(name, capacity, refillTokens, refillPeriod)
                        : Band.tokenBucket(name, capacity, refillTokens, refillPeriod);
            }
            notFor(v, path, algorithm, "capacity", f.capacity, "refill-tokens", f.refillTokens);
            notFor(v, path, algorithm, "refill-period", f.refillPeriod, null, null);
            long maxLimit = algorithm == Algorithm.SLIDING_WINDOW_LOG ? Band.MAX_LOG_LIMIT : Band.MAX_QUANTITY;
            Long limit = v.integer(path + ".limit", f.limit, 1, maxLimit, null);
            Duration window = v.duration(path + ".window", f.window, minPeriod, maxPeriod, null);
            if (limit == null || window == null) {
                return null;
            }
            return switch (algorithm) {
                case FIXED_WINDOW -> Band.fixedWindow(name, limit, window);
                case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(name, limit, window);
                default -> Band.slidingWindowCounter(name, limit, window);
            };
        } catch (IllegalArgumentException e) {
            v.error(path, e.getMessage());
            return null;
        }
    }

    private static void notFor(ConfigValues v, String path, Algorithm algorithm, String a, @Nullable String aValue,
                               @Nullable String b, @Nullable String bValue) {
        String takes = algorithm.isBucket() ? "capacity, refill-tokens and refill-period" : "limit and window";
        if (aValue != null) {
            v.error(path + "." + a, "'" + aValue + "' does not apply to " + algorithm.configName() + ", which takes "
                    + takes);
        }
        if (b != null && bValue != null) {
            v.error(path + "." + b, "'" + bValue + "' does not apply to " + algorithm.configName() + ", which takes "
                    + takes);
        }
    }

    private static @Nullable RouteRule route(ConfigValues v, RouteProperties rp, Map<String, Policy> policies,
                                             Set<String> shadow, Set<String> invalidPolicies) {
        String path = RouteProperties.PREFIX + "[" + rp.getIndex() + "]";
        boolean ok = true;
        String pattern = rp.getPattern() == null ? null : rp.getPattern().trim();
        if (ConfigValues.isBlank(pattern)) {
            v.error(path + ".pattern", "missing");
            ok = false;
        } else if (!pattern.startsWith("/")) {
            v.error(path + ".pattern", "'" + rp.getPattern() + "' does not start with /");
            ok = false;
        }
        Set<String> methods = new LinkedHashSet<>();
        List<String> rawMethods = rp.getMethods() == null ? List.of() : rp.getMethods();
        for (int i = 0; i < rawMethods.size(); i++) {
            String m = rawMethods.get(i) == null ? "" : rawMethods.get(i).trim().toUpperCase(Locale.ROOT);
            if (!HTTP_METHODS.contains(m) || HttpMethod.parse(m) == HttpMethod.CUSTOM) {
                v.error(path + ".methods[" + i + "]", "'" + rawMethods.get(i) + "' is not one of "
                        + String.join(", ", new java.util.TreeSet<>(HTTP_METHODS)));
                ok = false;
            } else {
                methods.add(m);
            }
        }
        Policy policy = null;
        String policyName = rp.getPolicy() == null ? null : rp.getPolicy().trim();
        if (ConfigValues.isBlank(policyName)) {
            v.error(path + ".policy", "missing");
            ok = false;
        } else {
            policy = policies.get(policyName);
            if (policy == null && !invalidPolicies.contains(policyName)) {
                v.error(path + ".policy", "'" + rp.getPolicy() + "' names no policy under gridlimit.policies"
                        + (policies.isEmpty() ? " (none is configured)" : " (known: "
                        + String.join(", ", policies.keySet()) + ")"));
            }
            ok &= policy != null;
        }
        List<KeySource> keys = new ArrayList<>();
        List<String> rawKeys = rp.getKey() == null || rp.getKey().isEmpty() ? List.of("client-ip") : rp.getKey();
        for (int i = 0; i < rawKeys.size(); i++) {
            try {
                keys.add(KeySource.parse(rawKeys.get(i)));
            } catch (IllegalArgumentException e) {
                v.error(path + ".key" + (rp.getKey() == null ? "" : "[" + i + "]"), e.getMessage());
                ok = false;
            }
        }
        Long cost = v.integer(path + ".cost", rp.getCost(), 1, RateLimiter.MAX_COST, 1L);
        OnMissingKey onMissing = v.enumValue(path + ".on-missing-key", rp.getOnMissingKey(), OnMissingKey.class,
                OnMissingKey.REJECT);
        if (cost != null && policy != null) {
            for (Band band : policy.bands()) {
                if (cost > band.quota()) {
                    v.error(path + ".cost", "'" + rp.getCost() + "' exceeds the quota " + band.quota() + " of "
                            + (policy.isComposite() ? "band '" + band.name() + "' of " : "") + "policy '"
                            + policy.name() + "': no request could ever pass");
                    ok = false;
                    break;
                }
            }
        }
        if (!ok || cost == null || onMissing == null) {
            return null;
        }
        return new RouteRule(path, pattern, methods, policy, shadow.contains(policy.name()), keys, cost, onMissing);
    }

    /**
     * Sorts bound beans into the order their names first appear in the property sources (YAML keeps the
     * declared order; SPEC §4's binding band depends on it). Names not found there (e.g. set only through
     * environment variables) follow, by name.
     */
    private static <T> List<T> inDeclaredOrder(List<T> beans, java.util.function.Function<T, String> name,
                                               Environment environment, String prefix) {
        List<String> declared = new ArrayList<>();
        for (String key : environment.getProperties(prefix, StringConvention.RAW).keySet()) {
            int dot = key.indexOf('.');
            String first = dot < 0 ? key : key.substring(0, dot);
            if (!declared.contains(first)) {
                declared.add(first);
            }
        }
        List<T> sorted = new ArrayList<>(beans);
        sorted.sort(Comparator.<T>comparingInt(b -> {
            int i = declared.indexOf(name.apply(b));
            return i < 0 ? Integer.MAX_VALUE : i;
        }).thenComparing(name));
        return sorted;
    }
}
