package io.gridlimit.envoy.config;

import io.gridlimit.api.Policy;
import io.gridlimit.envoy.config.RlsDrafts.Draft;
import io.gridlimit.envoy.config.RlsDrafts.DraftDomain;
import io.gridlimit.envoy.config.RlsDrafts.Pending;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static io.gridlimit.envoy.config.RlsDrafts.display;

/**
 * Turns the drafts of every file into the immutable configuration (docs/SPEC.md §12, "Mapping onto policies"):
 * first each limited rule's policy name, which depends on every other rule's, then each domain's tree of
 * {@link RlsNode}s. Stateless.
 */
final class RlsDomainBuilder {
    private static final Pattern POLICY_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private RlsDomainBuilder() {
    }

    /**
     * Gives each rule its policy name: {@code <domain>.<key>[_<value>]...} (envoyproxy/ratelimit's full key) when
     * that is a valid policy name and no other rule has it; otherwise its valid characters (others as {@code -}),
     * at most 55 of them, then {@code -} and 8 hex digits of the SHA-256 of the domain and path. Configured
     * policies ({@code gridlimit.policies}) cannot contain {@code .}, so these never meet them (docs/SPEC.md §12,
     * "Mapping onto policies"). Each policy has the rule's one band, renamed to the policy's name; a block list
     * ({@code requests_per_unit: 0}) is named the same way but has no policy.
     *
     * @param pending the limited rules read, in declaration order
     * @param domains every domain read (their override names are reserved)
     * @param errors the reader's error list, which a name two rules end up with is added to
     *               ({@code domain 'd', descriptor <path>: its policy name '<name>' is taken by another rule; …});
     *               the later rule is then left unnamed
     * @return each named rule by its pending rule (by identity), never null
     */
    static Map<Pending, RlsRule> names(List<Pending> pending, Collection<String> domains, List<String> errors) {
        Map<String, Integer> count = new HashMap<>();
        for (Pending p : pending) {
            count.merge(p.fullKey(), 1, Integer::sum);
        }
        for (String domain : domains) {
            for (RlsUnit u : RlsUnit.values()) {
                // reserved for every domain's per-request overrides, whether or not it has limited rules (domain
                // "a.b"'s overrides must never decide on domain "a"'s rule "b.limit-second"): a rule with such a
                // full key is hashed instead
                count.merge(overrideName(domain, u), 2, Integer::sum);
            }
        }
        Set<String> used = new LinkedHashSet<>();
        Map<Pending, RlsRule> rules = new IdentityHashMap<>();
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
            Policy policy = p.band() == null ? null : Policy.builder(name).single(p.band().withName(name)).build();
            rules.put(p, new RlsRule(p.domain(), display(p.path()), policy, name, p.unit(), p.requestsPerUnit(),
                    policy == null ? RlsRule.Kind.BLOCKED : RlsRule.Kind.LIMITED, p.shadow(), p.quotaMode(), p.name(),
                    p.replaces(), RlsDrafts.statsLevels(p.path())));
        }
        return rules;
    }

    /**
     * The policy of a domain's per-request limit overrides of one unit (docs/SPEC.md §12, "Overrides"):
     * {@code <domain>.limit-<unit>} when that is a valid policy name, else the domain's valid characters (others as
     * {@code -}, at most 40), {@code -}, 8 hex digits of the SHA-256 of the domain, and {@code .limit-<unit>}. Rules
     * never take these names ({@link #names} hashes a rule whose full key is one of them), and hashed rule names end
     * in hex digits, never in a unit.
     *
     * @param domain a domain
     * @param unit the override's unit
     * @return the policy name, valid, at most 63 characters
     */
    static String overrideName(String domain, RlsUnit unit) {
        String suffix = ".limit-" + unit.name().toLowerCase(java.util.Locale.ROOT);
        String plain = domain + suffix;
        if (POLICY_NAME.matcher(plain).matches()) {
            return plain;
        }
        String clean = domain.replaceAll("[^A-Za-z0-9._-]", "-");
        return clean.substring(0, Math.min(40, clean.length())) + "-" + hash(domain) + suffix;
    }

    /**
     * Builds every domain once every rule is named and no problem was found (docs/SPEC.md §12).
     *
     * @param drafts every domain read, in file order
     * @param named the named rules ({@link #names}), one for each pending rule of {@code drafts}
     * @param warnings the boot warnings of the read
     * @param digest the digest of the files read ({@link RlsFiles})
     * @return the configuration: the domains by name, every rule in file and declaration order (depth first), and
     *         the warnings
     */
    static RlsConfig config(Collection<DraftDomain> drafts, Map<Pending, RlsRule> named, List<String> warnings,
                            String digest) {
        Map<String, RlsDomain> domains = new LinkedHashMap<>();
        List<RlsRule> rules = new ArrayList<>();
        for (DraftDomain d : drafts) {
            List<RlsNode> wildcards = new ArrayList<>();
            Map<String, RlsNode> top = build(d.descriptors(), named, rules, wildcards);
            domains.put(d.name(), new RlsDomain(d.name(), d.file(), top, wildcards));
        }
        return new RlsConfig(domains, rules, warnings, digest);
    }

    /**
     * Builds one level of a domain's tree and, below it, every nested level.
     *
     * @param level the drafts of one level, by {@link RlsNode#id(String, String)}
     * @param named the named rules ({@link #names})
     * @param rules where each rule met is added, depth first in declaration order
     * @param wildcards where each node of the level whose value is a wildcard is added, in declaration order
     * @return the nodes by the same ids, in the same order, never null
     */
    private static Map<String, RlsNode> build(Map<String, Draft> level, Map<Pending, RlsRule> named,
                                              List<RlsRule> rules, List<RlsNode> wildcards) {
        Map<String, RlsNode> out = new LinkedHashMap<>();
        for (Map.Entry<String, Draft> e : level.entrySet()) {
            Draft d = e.getValue();
            RlsRule rule = d.rule() instanceof Pending p ? named.get(p) : (RlsRule) d.rule();
            if (rule != null) {
                rules.add(rule);
            }
            List<RlsNode> below = new ArrayList<>();
            Map<String, RlsNode> children = build(d.children(), named, rules, below);
            RlsNode node = new RlsNode(d.key(), d.value(), rule, children, below,
                    d.value() == null ? null : RlsWildcard.of(d.value()), d.share());
            out.put(e.getKey(), node);
            if (node.wildcard() != null) {
                wildcards.add(node);
            }
        }
        return out;
    }

    /**
     * @param text the domain, {@code \0} and the descriptor path
     * @return the first 4 bytes of the SHA-256 of {@code text} in UTF-8, as 8 lower-case hex digits
     * @throws IllegalStateException never in practice: every JVM has SHA-256
     */
    private static String hash(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
