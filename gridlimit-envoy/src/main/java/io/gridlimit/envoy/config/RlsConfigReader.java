package io.gridlimit.envoy.config;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads envoyproxy/ratelimit's configuration files unchanged (its README, "The configuration format") and maps
 * each {@code rate_limit} onto a GridLimit policy (docs/SPEC.md §12). Strict: every problem is collected with the
 * file, the domain and the descriptor path, and {@link #read} throws them all at once; nothing is silently
 * ignored.
 *
 * <ul>
 *   <li>A file holds one YAML document: {@code domain} (non-empty, unique across files) and {@code descriptors}.
 *       A path that is a directory stands for its {@code *.yaml} and {@code *.yml} files, the extension in any
 *       case (not those whose name starts with {@code .}), in name order.</li>
 *   <li>A descriptor: {@code key} (required), {@code value} (optional; absent or empty matches any value),
 *       {@code rate_limit}, {@code descriptors}, {@code shadow_mode}. No two descriptors of one level share key
 *       and value.</li>
 *   <li>{@code rate_limit}: {@code unit} (second, minute, hour, day, week, month, year; any case) and
 *       {@code requests_per_unit} (an integer in [1, 2^32 - 1]: 0 is outside SPEC §1), or {@code unlimited: true}
 *       alone; optional {@code name} and {@code replaces: [{name: …}]} (a name some rule of the domain has, not its
 *       own); optional extension {@code gridlimit: {algorithm: …, capacity: …}}: any GridLimit algorithm but
 *       {@code calendar} (a unit is a fixed length) instead of the default fixed window, and for a token bucket or GCRA its burst (default {@code requests_per_unit}),
 *       refilling {@code requests_per_unit} per unit.</li>
 *   <li>Refused (envoyproxy/ratelimit features GridLimit does not implement): wildcard values (any {@code *}),
 *       {@code share_threshold}, {@code quota_mode}, {@code detailed_metric} and {@code value_to_metric} set to
 *       true, {@code metadata}; any other field.</li>
 * </ul>
 *
 * Scalars are read as written (no YAML 1.1 type guessing: {@code value: 1.50} is the text {@code 1.50}, as
 * envoyproxy/ratelimit reads it into a string); booleans are {@code true} or {@code false}, integers decimal
 * digits. A plain YAML null ({@code null}, {@code ~}) and an explicitly tagged value ({@code !!int 5}) are refused
 * where they stand: envoyproxy/ratelimit reads {@code value: null} as "any value", a reader may take it for the text
 * {@code null}, and GridLimit never picks one silently. Not thread-safe: one instance per boot.
 */
public final class RlsConfigReader {
    /** The configuration property that lists the files. */
    public static final String PROPERTY = "gridlimit.envoy-rls.config-files";
    /** Largest {@code requests_per_unit} (and extension capacity): the proto's uint32. */
    public static final long MAX_REQUESTS_PER_UNIT = 4_294_967_295L;

    private static final Set<String> ROOT_FIELDS = Set.of("domain", "descriptors");
    private static final Set<String> DESCRIPTOR_FIELDS = Set.of("key", "value", "rate_limit", "descriptors",
            "shadow_mode", "detailed_metric", "value_to_metric", "share_threshold", "quota_mode", "metadata");
    private static final Set<String> RATE_LIMIT_FIELDS = Set.of("unit", "requests_per_unit", "unlimited", "name",
            "replaces", "gridlimit");
    private static final Set<String> EXTENSION_FIELDS = Set.of("algorithm", "capacity");
    private static final Pattern POLICY_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,4096}");

    private final List<String> errors = new ArrayList<>();
    private final Map<String, DraftDomain> drafts = new LinkedHashMap<>();
    private final List<Pending> pending = new ArrayList<>();

    /**
     * Reads every file and maps its rules.
     *
     * @param paths the configured paths ({@value #PROPERTY}), files or directories
     * @return the configuration, never null
     * @throws RlsConfigException naming every problem with its file, domain and descriptor path
     */
    public static RlsConfig read(List<String> paths) {
        return new RlsConfigReader().readAll(paths);
    }

    private RlsConfig readAll(List<String> paths) {
        if (paths.isEmpty()) {
            errors.add(PROPERTY + ": is empty; list the envoyproxy/ratelimit YAML files (or directories of them) "
                    + "to serve");
        }
        for (int i = 0; i < paths.size(); i++) {
            String where = PROPERTY + "[" + i + "]";
            if (paths.get(i).isBlank()) {
                // Path.of("") is the working directory: never read it by accident
                errors.add(where + ": is empty; write a file or directory path");
                continue;
            }
            Path path = Path.of(paths.get(i).trim());
            if (Files.isDirectory(path)) {
                List<Path> files;
                try (Stream<Path> list = Files.list(path)) {
                    files = list.filter(p -> !p.getFileName().toString().startsWith("."))
                            .filter(p -> p.getFileName().toString().matches("(?i).*\\.ya?ml"))
                            .filter(Files::isRegularFile).sorted().toList();
                } catch (IOException e) {
                    errors.add(where + ": cannot list directory '" + path + "': " + e.getMessage());
                    continue;
                }
                if (files.isEmpty()) {
                    errors.add(where + ": directory '" + path + "' holds no .yaml or .yml file");
                }
                files.forEach(this::readFile);
            } else if (Files.isRegularFile(path)) {
                readFile(path);
            } else {
                errors.add(where + ": '" + paths.get(i) + "' is neither a file nor a directory");
            }
        }
        checkReplaces();
        Map<Pending, RlsRule> named = names();
        if (!errors.isEmpty()) {
            throw new RlsConfigException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
        Map<String, RlsDomain> domains = new LinkedHashMap<>();
        List<RlsRule> rules = new ArrayList<>();
        for (DraftDomain d : drafts.values()) {
            domains.put(d.name(), new RlsDomain(d.name(), d.file(), build(d.descriptors(), named, rules)));
        }
        return new RlsConfig(domains, rules);
    }

    private void readFile(Path file) {
        String where = file.toString();
        List<Object> documents = new ArrayList<>();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (Object doc : yaml().loadAll(in)) {
                if (doc != null && !(doc instanceof String s && s.isEmpty())) {
                    documents.add(doc);
                }
            }
        } catch (IOException e) {
            errors.add(where + ": cannot be read: " + e.getMessage());
            return;
        } catch (YAMLException e) {
            errors.add(where + ": is not valid YAML: " + e.getMessage().replace('\n', ' '));
            return;
        }
        if (documents.size() != 1) {
            errors.add(where + ": holds " + documents.size() + " YAML documents; write exactly one domain per file");
            return;
        }
        if (!(documents.get(0) instanceof Map<?, ?> root)) {
            errors.add(where + ": is not a map with domain and descriptors");
            return;
        }
        unknown(where + ": ", root, ROOT_FIELDS, "");
        String domain = scalar(where, "domain", root.get("domain"));
        if (domain == null || domain.isEmpty()) {
            errors.add(where + ": domain is missing or empty");
            return;
        }
        DraftDomain earlier = drafts.get(domain);
        if (earlier != null) {
            errors.add(where + (earlier.file().equals(where) ? ": is read twice (listed again in " + PROPERTY
                    + ", or inside a listed directory); list each file once"
                    : ": domain '" + domain + "' is also defined in " + earlier.file()
                    + "; each domain lives in one file"));
            return;
        }
        String context = where + ": domain '" + domain + "'";
        Map<String, Draft> top = level(context, domain, root.get("descriptors"), "descriptors", List.of());
        drafts.put(domain, new DraftDomain(domain, where, top));
    }

    /** Reads one descriptor list. */
    private Map<String, Draft> level(String context, String domain, @Nullable Object list, String listPath,
                                     List<Segment> parents) {
        Map<String, Draft> out = new LinkedHashMap<>();
        if (list == null || (list instanceof String s && s.isEmpty()) || yamlNull(context, listPath, list)) {
            return out;
        }
        if (!(list instanceof List<?> items)) {
            errors.add(context + ", " + listPath + ": is not a list of descriptors");
            return out;
        }
        for (int i = 0; i < items.size(); i++) {
            String at = listPath + "[" + i + "]";
            if (!(items.get(i) instanceof Map<?, ?> d)) {
                errors.add(context + ", " + at + ": is not a map (key, value, rate_limit, descriptors)");
                continue;
            }
            String key = scalar(context + ", " + at, "key", d.get("key"));
            String value = scalar(context + ", " + at, "value", d.get("value"));
            if (value != null && value.isEmpty()) {
                value = null;
            }
            Segment segment = new Segment(key == null ? "?" : key, value);
            List<Segment> path = new ArrayList<>(parents);
            path.add(segment);
            String here = context + ", descriptor " + display(path) + " (" + at + ")";
            unknown(here + ": ", d, DESCRIPTOR_FIELDS, "");
            if (key == null || key.isEmpty()) {
                errors.add(here + ": key is missing or empty");
                continue;
            }
            if (value != null && value.contains("*")) {
                errors.add(here + ": value '" + value + "' is a wildcard; GridLimit matches values exactly "
                        + "(list each value, or leave value out to limit every value separately)");
            }
            for (String flag : List.of("share_threshold", "quota_mode", "detailed_metric", "value_to_metric")) {
                Boolean b = bool(here, flag, d.get(flag));
                if (Boolean.TRUE.equals(b)) {
                    errors.add(here + ": " + flag + ": true is not supported by GridLimit ("
                            + (flag.equals("share_threshold") ? "it applies to wildcard values, which are refused"
                            : flag.equals("quota_mode") ? "no quota mode"
                            : "its metrics have no per-descriptor series") + "); remove it");
                }
            }
            if (d.containsKey("metadata")) {
                errors.add(here + ": metadata is not supported by GridLimit (no dynamic metadata is returned); "
                        + "remove it");
            }
            boolean shadow = Boolean.TRUE.equals(bool(here, "shadow_mode", d.get("shadow_mode")));
            Object rule = null;
            if (d.get("rate_limit") != null) {
                rule = rule(here, domain, path, d.get("rate_limit"), shadow);
            } else if (shadow) {
                errors.add(here + ": shadow_mode: true without a rate_limit has nothing to shadow");
            }
            Map<String, Draft> children = level(context, domain, d.get("descriptors"), at + ".descriptors", path);
            String id = RlsNode.id(key, value);
            if (out.containsKey(id)) {
                errors.add(here + ": another descriptor of this level has the same key and value");
                pending.remove(rule);
                continue;
            }
            out.put(id, new Draft(key, value, rule, children));
        }
        return out;
    }

    /** @return an unlimited {@link RlsRule}, a {@link Pending} limited rule (named later), or null when refused */
    private @Nullable Object rule(String here, String domain, List<Segment> path, Object block, boolean shadow) {
        if (yamlNull(here, "rate_limit", block)) {
            return null;
        }
        if (!(block instanceof Map<?, ?> r)) {
            errors.add(here + ": rate_limit is not a map (unit, requests_per_unit)");
            return null;
        }
        unknown(here + ": ", r, RATE_LIMIT_FIELDS, "rate_limit.");
        String name = scalar(here, "rate_limit.name", r.get("name"));
        if (name != null && name.isEmpty()) {
            name = null;
        }
        List<String> replaces = replaces(here, r.get("replaces"), name);
        int before = errors.size();
        if (Boolean.TRUE.equals(bool(here, "rate_limit.unlimited", r.get("unlimited")))) {
            for (String f : List.of("unit", "requests_per_unit", "gridlimit")) {
                if (r.containsKey(f)) {
                    errors.add(here + ": rate_limit.unlimited: true takes no " + f);
                }
            }
            return errors.size() > before ? null
                    : new RlsRule(domain, display(path), null, null, 0, true, shadow, name, replaces);
        }
        String unitText = scalar(here, "rate_limit.unit", r.get("unit"));
        RlsUnit unit = unitText == null ? null : RlsUnit.parse(unitText);
        if (unit == null) {
            errors.add(here + ": rate_limit.unit: " + (unitText == null ? "is missing" : "'" + unitText
                    + "' is not a unit") + " (second, minute, hour, day, week, month or year)");
        }
        Long rpu = integer(here, "rate_limit.requests_per_unit", r.get("requests_per_unit"));
        if (rpu == null && !r.containsKey("requests_per_unit")) {
            errors.add(here + ": rate_limit.requests_per_unit is missing");
        } else if (rpu != null && (rpu < 1 || rpu > MAX_REQUESTS_PER_UNIT)) {
            errors.add(here + ": rate_limit.requests_per_unit: '" + String.valueOf(r.get("requests_per_unit")).trim()
                    + "' is outside [1, "
                    + MAX_REQUESTS_PER_UNIT + "]" + (rpu == 0 ? " (SPEC §1: a limit is at least 1; to refuse "
                    + "every request of this descriptor, deny it in Envoy, e.g. with an RBAC filter)" : ""));
            rpu = null;
        }
        Algorithm algorithm = Algorithm.FIXED_WINDOW;
        Long capacity = null;
        Object ext = r.get("gridlimit");
        if (ext != null && !yamlNull(here, "rate_limit.gridlimit", ext)) {
            if (!(ext instanceof Map<?, ?> e)) {
                errors.add(here + ": rate_limit.gridlimit is not a map (algorithm, capacity)");
            } else {
                unknown(here + ": ", e, EXTENSION_FIELDS, "rate_limit.gridlimit.");
                String a = scalar(here, "rate_limit.gridlimit.algorithm", e.get("algorithm"));
                if (a == null) {
                    errors.add(here + ": rate_limit.gridlimit.algorithm is missing");
                } else {
                    try {
                        algorithm = Algorithm.fromConfigName(a);
                    } catch (IllegalArgumentException x) {
                        errors.add(here + ": rate_limit.gridlimit.algorithm: " + x.getMessage());
                    }
                    if (algorithm == Algorithm.CALENDAR) {
                        errors.add(here + ": rate_limit.gridlimit.algorithm: 'calendar' is not served to Envoy: a "
                                + "rule's unit is a fixed length (docs/SPEC.md §12); limit calendar quotas in a "
                                + "service's configuration (gridlimit.policies, docs/SPEC.md §14)");
                        algorithm = Algorithm.FIXED_WINDOW;
                    }
                }
                if (e.containsKey("capacity")) {
                    capacity = integer(here, "rate_limit.gridlimit.capacity", e.get("capacity"));
                    if (!algorithm.isBucket()) {
                        errors.add(here + ": rate_limit.gridlimit.capacity is for token-bucket and gcra only; "
                                + algorithm.configName() + " takes requests_per_unit per unit");
                    } else if (capacity != null && (capacity < 1 || capacity > MAX_REQUESTS_PER_UNIT)) {
                        errors.add(here + ": rate_limit.gridlimit.capacity: '" + String.valueOf(e.get("capacity"))
                                .trim() + "' is outside [1, "
                                + MAX_REQUESTS_PER_UNIT + "]");
                    }
                }
            }
        }
        if (errors.size() > before || unit == null || rpu == null) {
            return null;
        }
        String placeholder = "x";
        Band band;
        try {
            band = switch (algorithm) {
                case FIXED_WINDOW -> Band.fixedWindow(placeholder, rpu, unit.length());
                case SLIDING_WINDOW_LOG -> Band.slidingWindowLog(placeholder, rpu, unit.length());
                case SLIDING_WINDOW_COUNTER -> Band.slidingWindowCounter(placeholder, rpu, unit.length());
                case TOKEN_BUCKET -> Band.tokenBucket(placeholder, capacity == null ? rpu : capacity, rpu,
                        unit.length());
                case GCRA -> Band.gcra(placeholder, capacity == null ? rpu : capacity, rpu, unit.length());
                case CALENDAR -> throw new IllegalStateException("calendar is refused above");
            };
        } catch (IllegalArgumentException x) {
            errors.add(here + ": rate_limit: " + x.getMessage());
            return null;
        }
        Pending p = new Pending(domain, List.copyOf(path), band, unit, rpu, shadow, name, replaces);
        pending.add(p);
        return p; // the rule is built once every policy name is known (names())
    }

    private List<String> replaces(String here, @Nullable Object value, @Nullable String own) {
        List<String> out = new ArrayList<>();
        if (value == null || (value instanceof String s && s.isEmpty()) || yamlNull(here, "rate_limit.replaces", value)) {
            return out;
        }
        if (!(value instanceof List<?> list)) {
            errors.add(here + ": rate_limit.replaces is not a list of {name: …}");
            return out;
        }
        for (int i = 0; i < list.size(); i++) {
            String at = "rate_limit.replaces[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                errors.add(here + ": " + at + " is not a map with a name");
                continue;
            }
            unknown(here + ": ", m, Set.of("name"), at + ".");
            String n = scalar(here, at + ".name", m.get("name"));
            if (n == null || n.isEmpty()) {
                errors.add(here + ": " + at + ".name is missing or empty");
            } else if (n.equals(own)) {
                errors.add(here + ": " + at + ".name '" + n + "' is this rule's own name");
            } else {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Gives each rule its policy name: {@code <domain>.<key>[_<value>]...} (envoyproxy/ratelimit's full key) when
     * that is a valid policy name and no other rule has it; otherwise its valid characters (others as {@code -}),
     * at most 55 of them, then {@code -} and 8 hex digits of the SHA-256 of the domain and path. Configured
     * policies ({@code gridlimit.policies}) cannot contain {@code .}, so these never meet them.
     */
    private Map<Pending, RlsRule> names() {
        Map<String, Integer> count = new HashMap<>();
        for (Pending p : pending) {
            count.merge(p.fullKey(), 1, Integer::sum);
        }
        Set<String> used = new LinkedHashSet<>();
        Map<Pending, RlsRule> rules = new java.util.IdentityHashMap<>();
        for (Pending p : pending) {
            String full = p.fullKey();
            String name = full;
            if (!POLICY_NAME.matcher(full).matches() || count.get(full) > 1) {
                String clean = full.replaceAll("[^A-Za-z0-9._-]", "-");
                name = clean.substring(0, Math.min(55, clean.length())) + "-" + hash(p.domain() + "\0"
                        + display(p.path()));
            }
            if (!used.add(name)) {
                errors.add("domain '" + p.domain() + "', descriptor " + display(p.path())
                        + ": its policy name '" + name + "' is taken by another rule; rename a key or value");
                continue;
            }
            Policy policy = Policy.builder(name).single(p.band().withName(name)).build();
            rules.put(p, new RlsRule(p.domain(), display(p.path()), policy, p.unit(), p.requestsPerUnit(), false,
                    p.shadow(), p.name(), p.replaces()));
        }
        return rules;
    }

    private static Map<String, RlsNode> build(Map<String, Draft> level, Map<Pending, RlsRule> named,
                                              List<RlsRule> rules) {
        Map<String, RlsNode> out = new LinkedHashMap<>();
        for (Map.Entry<String, Draft> e : level.entrySet()) {
            Draft d = e.getValue();
            RlsRule rule = d.rule() instanceof Pending p ? named.get(p) : (RlsRule) d.rule();
            if (rule != null) {
                rules.add(rule);
            }
            out.put(e.getKey(), new RlsNode(d.key(), d.value(), rule, build(d.children(), named, rules)));
        }
        return out;
    }

    /**
     * Every name a replaces list gives must be the name of some rule of the same domain, and no rule may replace
     * itself through others (a cycle: when all its rules match one request, none of their limits would apply).
     */
    private void checkReplaces() {
        Map<String, Set<String>> namesByDomain = new HashMap<>();
        List<Object[]> refs = new ArrayList<>();
        for (DraftDomain d : drafts.values()) {
            walk(d.descriptors(), d.name(), namesByDomain, refs);
        }
        for (Object[] ref : refs) {
            String domain = (String) ref[0];
            if (!namesByDomain.getOrDefault(domain, Set.of()).contains((String) ref[2])) {
                errors.add("domain '" + domain + "', descriptor " + ref[1] + ": rate_limit.replaces names '"
                        + ref[2] + "', which no rate_limit of the domain has");
            }
        }
        Map<String, Map<String, Set<String>>> edges = new LinkedHashMap<>();
        for (Object[] ref : refs) {
            if (ref[3] != null) {
                edges.computeIfAbsent((String) ref[0], k -> new LinkedHashMap<>())
                        .computeIfAbsent((String) ref[3], k -> new LinkedHashSet<>()).add((String) ref[2]);
            }
        }
        edges.forEach((domain, graph) -> {
            Set<String> done = new LinkedHashSet<>();
            for (String start : graph.keySet()) {
                List<String> cycle = cycle(start, graph, new ArrayList<>(), done);
                if (cycle != null) {
                    errors.add(drafts.get(domain).file() + ": domain '" + domain + "': rate_limit.replaces make "
                            + "a cycle (" + String.join(" replaces ", cycle) + "): when its rules all match one request, none of their limits applies; "
                            + "remove one of the replaces");
                }
            }
        });
    }

    /** @return the first cycle of names reachable from {@code name} (first name repeated at the end), or null */
    private static @Nullable List<String> cycle(String name, Map<String, Set<String>> graph, List<String> path,
                                                Set<String> done) {
        int at = path.indexOf(name);
        if (at >= 0) {
            List<String> c = new ArrayList<>(path.subList(at, path.size()));
            c.add(name);
            return c;
        }
        if (done.contains(name)) {
            return null;
        }
        path.add(name);
        for (String next : graph.getOrDefault(name, Set.of())) {
            List<String> c = cycle(next, graph, path, done);
            if (c != null) {
                path.remove(path.size() - 1);
                done.addAll(c);
                return c;
            }
        }
        path.remove(path.size() - 1);
        done.add(name);
        return null;
    }

    private static void walk(Map<String, Draft> level, String domain, Map<String, Set<String>> names,
                             List<Object[]> refs) {
        for (Draft d : level.values()) {
            String name = d.rule() instanceof Pending p ? p.name() : d.rule() instanceof RlsRule r ? r.name() : null;
            List<String> replaces = d.rule() instanceof Pending p ? p.replaces()
                    : d.rule() instanceof RlsRule r ? r.replaces() : List.of();
            String path = d.rule() instanceof Pending p ? display(p.path())
                    : d.rule() instanceof RlsRule r ? r.path() : "";
            if (name != null) {
                names.computeIfAbsent(domain, k -> new LinkedHashSet<>()).add(name);
            }
            for (String n : replaces) {
                refs.add(new Object[] {domain, path, n, name});
            }
            walk(d.children(), domain, names, refs);
        }
    }

    private void unknown(String here, Map<?, ?> map, Set<String> known, String prefix) {
        for (Object k : map.keySet()) {
            if (!known.contains(String.valueOf(k))) {
                errors.add(here + prefix + k + ": unknown field (known: " + String.join(", ",
                        known.stream().sorted().toList()) + ")");
            }
        }
    }

    /**
     * A text field: null when absent; a list, a map, YAML's null or an explicitly tagged value there is refused
     * (never read as "no value", nor as the text {@code null}).
     */
    private @Nullable String scalar(String here, String field, @Nullable Object value) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        if (!yamlNull(here, field, value) && !tagged(here, field, value, "one text")) {
            errors.add(here + ": " + field + " is a " + (value instanceof List ? "list" : "map") + "; write one text");
        }
        return null;
    }

    /**
     * Refuses a plain {@code null}, {@code Null}, {@code NULL} or {@code ~}: envoyproxy/ratelimit (Go's YAML) reads
     * it as "not set", a reader of the file may read it as the text; neither is silently chosen.
     *
     * @return whether {@code value} is YAML's null (then an error is recorded)
     */
    private boolean yamlNull(String here, String field, Object value) {
        if (!(value instanceof YamlNull n)) {
            return false;
        }
        errors.add(here + ": " + field + ": '" + n.text() + "' is YAML's null; leave the field out, or quote it ('"
                + n.text() + "') to mean the text");
        return true;
    }

    /** @return whether {@code value} came from an explicit tag such as {@code !!int} (then an error is recorded) */
    private boolean tagged(String here, String field, Object value, String expected) {
        if (value instanceof String || value instanceof List || value instanceof Map || value instanceof YamlNull) {
            return false;
        }
        errors.add(here + ": " + field + ": '" + value + "' has an explicit YAML tag (read as "
                + value.getClass().getSimpleName() + "); write " + expected + " without a tag");
        return true;
    }

    private @Nullable Boolean bool(String here, String field, @Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String s && s.matches("(?i)true|false")) {
            return Boolean.parseBoolean(s);
        }
        if (yamlNull(here, field, value) || tagged(here, field, value, "true or false")) {
            return null;
        }
        errors.add(here + ": " + field + ": '" + value + "' is not true or false");
        return null;
    }

    private @Nullable Long integer(String here, String field, @Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String s && DIGITS.matcher(s.trim()).matches()) {
            java.math.BigInteger v = new java.math.BigInteger(s.trim());
            return v.compareTo(java.math.BigInteger.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE : v.longValue();
        }
        if (yamlNull(here, field, value) || tagged(here, field, value, "a whole number")) {
            return null;
        }
        errors.add(here + ": " + field + ": '" + value + "' is not a whole number");
        return null;
    }

    private static String display(List<Segment> path) {
        StringBuilder b = new StringBuilder();
        for (Segment s : path) {
            if (b.length() > 0) {
                b.append('/');
            }
            b.append(s.key());
            if (s.value() != null) {
                b.append('=').append(s.value());
            }
        }
        return b.toString();
    }

    private static String hash(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /**
     * Every scalar is read as the text written (no implicit int, bool or float types), except a plain YAML null
     * ({@code null}, {@code Null}, {@code NULL}, {@code ~}), which becomes a {@link YamlNull} so that it is refused
     * where it is written. An empty plain scalar stays the empty text.
     */
    private static Yaml yaml() {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        options.setAllowRecursiveKeys(false);
        DumperOptions dumper = new DumperOptions();
        SafeConstructor constructor = new SafeConstructor(options) {
            {
                this.yamlConstructors.put(NULL_TAG, new AbstractConstruct() {
                    @Override
                    public Object construct(Node node) {
                        return new YamlNull(((ScalarNode) node).getValue());
                    }
                });
            }
        };
        return new Yaml(constructor, new Representer(dumper), dumper, options, new Resolver() {
            @Override
            protected void addImplicitResolvers() {
                addImplicitResolver(NULL_TAG, YAML_NULL, "~nN");
            }
        });
    }

    private static final Tag NULL_TAG = new Tag("tag:gridlimit.io,2026:yaml-null");
    private static final Pattern YAML_NULL = Pattern.compile("^(?:~|null|Null|NULL)$");

    /** A plain YAML null as written ({@code null}, {@code Null}, {@code NULL} or {@code ~}). */
    private record YamlNull(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    private record Segment(String key, @Nullable String value) {
    }

    /** A descriptor while files are read: its rule is an unlimited {@link RlsRule}, a {@link Pending} or null. */
    private record Draft(String key, @Nullable String value, @Nullable Object rule, Map<String, Draft> children) {
    }

    private record DraftDomain(String name, String file, Map<String, Draft> descriptors) {
    }

    private record Pending(String domain, List<Segment> path, Band band, RlsUnit unit, long requestsPerUnit,
                           boolean shadow, @Nullable String name, List<String> replaces) {
        String fullKey() {
            StringBuilder b = new StringBuilder(domain);
            for (Segment s : path) {
                b.append('.').append(s.key());
                if (s.value() != null) {
                    b.append('_').append(s.value());
                }
            }
            return b.toString();
        }
    }
}
