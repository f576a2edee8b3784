package io.gridlimit.envoy.config;

import io.gridlimit.envoy.config.RlsDrafts.Draft;
import io.gridlimit.envoy.config.RlsDrafts.DraftDomain;
import io.gridlimit.envoy.config.RlsDrafts.Pending;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads envoyproxy/ratelimit's configuration files unchanged (its README, "The configuration format") and maps
 * each {@code rate_limit} onto a GridLimit policy (docs/SPEC.md §12). Strict: every problem is collected with the
 * file, the domain and the descriptor path, and {@link #read} throws them all at once; nothing is silently
 * ignored.
 *
 * <ul>
 *   <li>A file holds one YAML document: {@code domain} (non-empty, unique across files unless merged:
 *       {@link #read(List, boolean)}) and {@code descriptors}.
 *       A path that is a directory stands for its {@code *.yaml} and {@code *.yml} files, the extension in any
 *       case (not those whose name starts with {@code .}), in name order.</li>
 *   <li>A descriptor: {@code key} (required, no {@code *}), {@code value} (optional; absent or empty matches any
 *       value; holding {@code *}, a wildcard: {@link RlsWildcard}), {@code rate_limit}, {@code descriptors},
 *       {@code shadow_mode}, {@code share_threshold} (on a wildcard only). No two descriptors of one level share key
 *       and value.</li>
 *   <li>{@code rate_limit}: {@code unit} (second, minute, hour, day, week, month, year; any case) and
 *       {@code requests_per_unit} (an integer in [0, 2^32 - 1]: 0 is a block list, decided without the grid, as
 *       SPEC §1 has no limit 0), or {@code unlimited: true} (without a unit); optional {@code name} and
 *       {@code replaces: [{name: …}]} (not its own; a name no rule has replaces nothing); optional extension {@code gridlimit: {algorithm: …, capacity: …}}: any GridLimit algorithm but
 *       {@code calendar} (a unit is a fixed length) instead of the default fixed window, and for a token bucket
 *       or GCRA its burst (default {@code requests_per_unit}), refilling {@code requests_per_unit} per unit.</li>
 *   <li>Read without effect on decisions: {@code detailed_metric} and {@code value_to_metric} (they name
 *       envoyproxy/ratelimit's stats series), {@code metadata} (a map; GridLimit sends no dynamic metadata).
 *       {@code quota_mode} is served (docs/SPEC.md §12, "Decisions").</li>
 *   <li>Refused: a {@code *} in a key; any other field.</li>
 * </ul>
 *
 * Scalars are read as written (no YAML 1.1 type guessing: {@code value: 1.50} is the text {@code 1.50}, as
 * envoyproxy/ratelimit reads it into a string); booleans are {@code true} or {@code false}, integers decimal
 * digits. A plain YAML null ({@code null}, {@code ~}) and an explicitly tagged value ({@code !!int 5}) are refused
 * where they stand: envoyproxy/ratelimit reads {@code value: null} as "any value", a reader may take it for the text
 * {@code null}, and GridLimit never picks one silently; except in {@code value}, where envoyproxy/ratelimit's reading
 * (unset: any value) is taken with a boot warning ({@link RlsConfig#warnings()}). Boot warnings are also given for
 * {@code unlimited: true} beside a rate, and for {@code replaces} naming no rule or forming a cycle, each loaded as
 * envoyproxy/ratelimit reads it. Not thread-safe: one instance per boot.
 *
 * <p>This class reads the listed paths and each file's root; {@link RlsYaml} parses a file,
 * {@link RlsDescriptorReader} and {@link RlsRuleReader} validate its descriptors and their rules (through
 * {@link RlsFields}), {@link RlsReplaces} checks {@code replaces} across a domain, and {@link RlsDomainBuilder}
 * names the policies and builds the domains.
 */
public final class RlsConfigReader {
    /** The configuration property that lists the files. */
    public static final String PROPERTY = "gridlimit.envoy-rls.config-files";
    /** Largest {@code requests_per_unit} (and extension capacity): the proto's uint32. */
    public static final long MAX_REQUESTS_PER_UNIT = 4_294_967_295L;

    private static final Set<String> ROOT_FIELDS = Set.of("domain", "descriptors");

    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Map<String, DraftDomain> drafts = new LinkedHashMap<>();
    private final List<Pending> pending = new ArrayList<>();
    private final Set<String> filesRead = new HashSet<>();
    private final RlsFiles.Digest digest = new RlsFiles.Digest();
    private final boolean merge;
    private final RlsFields fields = new RlsFields(errors, warnings);
    private final RlsDescriptorReader descriptors = new RlsDescriptorReader(fields, errors,
            new RlsRuleReader(fields, errors, pending));

    private RlsConfigReader(boolean merge) {
        this.merge = merge;
    }

    /**
     * Reads every file and maps its rules; a domain lives in one file.
     *
     * @param paths the configured paths ({@value #PROPERTY}), files or directories
     * @return the configuration, never null
     * @throws RlsConfigException naming every problem with its file, domain and descriptor path
     */
    public static RlsConfig read(List<String> paths) {
        return read(paths, false);
    }

    /**
     * Reads every file and maps its rules.
     *
     * @param paths the configured paths ({@value #PROPERTY}), files or directories
     * @param merge whether files naming the same domain add their top-level descriptors to it (envoyproxy/ratelimit's
     *              {@code MERGE_DOMAIN_CONFIG}; a descriptor of the same key and value in two files is refused, as
     *              there); otherwise a domain lives in one file
     * @return the configuration, never null
     * @throws RlsConfigException naming every problem with its file, domain and descriptor path
     */
    public static RlsConfig read(List<String> paths, boolean merge) {
        return new RlsConfigReader(merge).readAll(paths);
    }

    /**
     * Reads each file the configured paths stand for ({@link RlsFiles#resolve}, docs/SPEC.md §12, "Settings"), once
     * each, digesting the bytes it parses ({@link RlsConfig#digest()}). Then the checks across rules run, and the
     * domains are built when nothing was refused.
     *
     * @param paths the configured paths, possibly empty (refused)
     * @return the configuration, never null
     * @throws RlsConfigException naming every problem, in the order found, joined with {@code ; }
     */
    private RlsConfig readAll(List<String> paths) {
        for (Path file : RlsFiles.resolve(paths, errors)) {
            readFile(file);
        }
        RlsReplaces.check(drafts, warnings);
        Map<Pending, RlsRule> named = RlsDomainBuilder.names(pending, drafts.keySet(), errors);
        if (!errors.isEmpty()) {
            throw new RlsConfigException("Invalid GridLimit configuration: " + String.join("; ", errors));
        }
        return RlsDomainBuilder.config(drafts.values(), named, warnings, digest.hex());
    }

    /**
     * Reads one file (docs/SPEC.md §12, "Configuration, read unchanged"): exactly one YAML document, a map of
     * {@code domain} (non-empty; a domain no other file has, and a file not read before) and {@code descriptors}.
     * Records every problem; a file whose domain is refused adds nothing.
     *
     * @param file a regular file, as listed or found in a listed directory
     */
    private void readFile(Path file) {
        String where = file.toString();
        if (!filesRead.add(where)) {
            errors.add(where + ": is read twice (listed again in " + PROPERTY + ", or inside a listed directory); list "
                    + "each file once");
            return;
        }
        byte[] bytes = RlsFiles.bytes(file, errors);
        digest.add(where, bytes);
        List<Object> documents = bytes == null ? null : RlsYaml.documents(file, bytes, errors);
        if (documents == null) {
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
        fields.unknown(where + ": ", root, ROOT_FIELDS, "");
        String domain = fields.scalar(where, "domain", root.get("domain"));
        if (domain == null || domain.isEmpty()) {
            errors.add(where + ": domain is missing or empty");
            return;
        }
        DraftDomain earlier = drafts.get(domain);
        if (earlier != null && !merge) {
            errors.add(where + ": domain '" + domain + "' is also defined in " + earlier.file()
                    + "; each domain lives in one file");
            return;
        }
        String context = where + ": domain '" + domain + "'";
        Map<String, Draft> top = descriptors.level(context, domain, root.get("descriptors"), "descriptors", List.of());
        if (earlier == null) {
            drafts.put(domain, new DraftDomain(domain, where, top));
            return;
        }
        // MERGE_DOMAIN_CONFIG: the top-level descriptors join the domain's; one of the same key and value is refused
        for (Map.Entry<String, Draft> e : top.entrySet()) {
            Draft d = e.getValue();
            if (earlier.descriptors().putIfAbsent(e.getKey(), d) != null) {
                forget(d);
                errors.add(context + ", descriptor " + RlsDrafts.display(List.of(new RlsDrafts.Segment(d.key(),
                        d.value()))) + ": is also defined in " + earlier.file() + " (merge-domain-config merges a "
                        + "domain's top-level descriptors, never one descriptor across files)");
            }
        }
        drafts.put(domain, new DraftDomain(domain, earlier.file() + ", " + where, earlier.descriptors()));
    }

    /**
     * Drops the rules of a refused descriptor and of every descriptor below it, so that they are never named.
     *
     * @param draft the refused descriptor
     */
    private void forget(Draft draft) {
        pending.removeIf(p -> p == draft.rule());
        draft.children().values().forEach(this::forget);
    }
}
