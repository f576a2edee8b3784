package io.gridlimit.envoy.config;

import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The domains read from {@code gridlimit.envoy-rls.config-files} ({@link RlsConfigReader}), and the lookup of a
 * request's descriptor in them, as envoyproxy/ratelimit matches (docs/SPEC.md §12): level by level, the entry's
 * {@code (key, value)} first, then the level's wildcards of the key, then its key alone; a rule applies only when
 * the descriptor's last entry reaches a descriptor that has one (as many entries as nesting levels). Immutable and
 * thread-safe.
 */
public final class RlsConfig {
    /** Prefix of every grid key of an Envoy rule, before the SHA-256 of the descriptor's entries. */
    public static final String KEY_PREFIX = "rls:";

    private final Map<String, RlsDomain> domains;
    private final List<RlsRule> rules;
    private final List<String> warnings;
    private final String digest;

    /**
     * @param domains the domains by name
     * @param rules every rule of every domain, in file and declaration order
     * @param warnings the boot warnings of the read, in the order found
     * @param digest the lower-case hex SHA-256 of the files' names and contents ({@link RlsFiles})
     */
    public RlsConfig(Map<String, RlsDomain> domains, List<RlsRule> rules, List<String> warnings, String digest) {
        this.domains = Map.copyOf(domains);
        this.rules = List.copyOf(rules);
        this.warnings = List.copyOf(warnings);
        this.digest = java.util.Objects.requireNonNull(digest, "digest");
    }

    /**
     * @return the lower-case hex SHA-256 (64 digits) of the names and contents of the files this set was read from,
     *     as {@link RlsFiles#digest(List)} computes it (docs/SPEC.md §12, "Reload")
     */
    public String digest() {
        return digest;
    }

    /**
     * @return what was loaded as envoyproxy/ratelimit reads it but leaves a route less protected than it may seem
     *     ({@code value: ~}, {@code unlimited: true} beside a rate, {@code replaces} naming no rule or forming a
     *     cycle), each naming file, domain and descriptor path; logged at WARN at boot; unmodifiable
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The policy that decides a domain's per-request limit overrides of one unit (docs/SPEC.md §12, "Overrides"):
     * {@code <domain>.limit-<unit>} (hashed like a rule's when the domain is no valid policy name); no rule ever
     * has it.
     *
     * @param domain a domain
     * @param unit the override's unit
     * @return the policy name, never null
     */
    public static String overridePolicyName(String domain, RlsUnit unit) {
        return RlsDomainBuilder.overrideName(domain, unit);
    }

    /** @return the domains by name, unmodifiable */
    public Map<String, RlsDomain> domains() {
        return domains;
    }

    /** @return every rule, in file and declaration order, unmodifiable */
    public List<RlsRule> rules() {
        return rules;
    }

    /** @return the policies of the limited rules, in declaration order */
    public List<Policy> policies() {
        List<Policy> out = new ArrayList<>();
        for (RlsRule r : rules) {
            if (r.policy() != null) {
                out.add(r.policy());
            }
        }
        return out;
    }

    /**
     * Finds the rule of one descriptor ({@link #match}).
     *
     * @param domain the domain (must be known: see {@link #domains()})
     * @param keys the descriptor's entry keys, in order, at least one
     * @param values the descriptor's entry values, same length
     * @return the rule the descriptor selects, or null when it selects none (no limit applies)
     */
    public @Nullable RlsRule lookup(RlsDomain domain, List<String> keys, List<String> values) {
        RlsMatch m = match(domain, keys, values);
        return m == null ? null : m.rule();
    }

    /**
     * Finds the rule of one descriptor as envoyproxy/ratelimit does (docs/SPEC.md §12, "Matching"): at each level
     * the entry's {@code (key, value)}, else the first of the level's wildcards of that key (declaration order) that
     * matches the value, else the key alone; the rule is the one of the descriptor the last entry reaches. An entry
     * matched through a {@code share_threshold} wildcard puts the pattern in place of its value in the grid key.
     *
     * @param domain the domain (must be known: see {@link #domains()})
     * @param keys the descriptor's entry keys, in order, at least one
     * @param values the descriptor's entry values, same length
     * @return the rule and the entries of its grid key, or null when it selects none (no limit applies)
     */
    public @Nullable RlsMatch match(RlsDomain domain, List<String> keys, List<String> values) {
        Map<String, RlsNode> level = domain.descriptors();
        List<RlsNode> wildcards = domain.wildcards();
        List<String> keyValues = values;
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            String value = values.get(i);
            RlsNode node = level.get(RlsNode.id(key, value));
            if (node == null) {
                for (RlsNode w : wildcards) {
                    if (w.key().equals(key) && w.wildcard().matches(value)) {
                        node = w;
                        if (w.share()) {
                            if (keyValues == values) {
                                keyValues = new ArrayList<>(values);
                            }
                            keyValues.set(i, w.value()); // one counter for every value it matches
                        }
                        break;
                    }
                }
            }
            if (node == null) {
                node = level.get(RlsNode.id(key, null));
            }
            if (node == null) {
                return null;
            }
            if (i == keys.size() - 1) {
                return node.rule() == null ? null : new RlsMatch(node.rule(), keys, keyValues);
            }
            level = node.children();
            wildcards = node.wildcards();
        }
        return null;
    }

    /**
     * The grid key of a descriptor under its rule: {@value #KEY_PREFIX} and the lower-case hex SHA-256 of its
     * entries, each key and value prefixed by its length in UTF-8 bytes, so no two different descriptors share a
     * key and no key exceeds 68 bytes whatever the values (raw values are never stored or logged).
     *
     * @param keys the entry keys
     * @param values the entry values
     * @return the grid key, never null
     */
    public static String gridKey(List<String> keys, List<String> values) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        for (int i = 0; i < keys.size(); i++) {
            part(sha, keys.get(i));
            part(sha, values.get(i));
        }
        return KEY_PREFIX + HexFormat.of().formatHex(sha.digest());
    }

    private static void part(MessageDigest sha, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
        sha.update(bytes);
    }
}
