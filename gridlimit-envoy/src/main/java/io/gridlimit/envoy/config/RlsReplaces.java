package io.gridlimit.envoy.config;

import io.gridlimit.envoy.config.RlsDrafts.Draft;
import io.gridlimit.envoy.config.RlsDrafts.DraftDomain;
import io.gridlimit.envoy.config.RlsDrafts.Pending;
import io.micronaut.core.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.gridlimit.envoy.config.RlsDrafts.display;

/**
 * The checks of {@code rate_limit.replaces} that need every rule of a domain, run once every file is read
 * (docs/SPEC.md §12): a replaced name that is no rule's of the domain, and names replacing each other in a cycle
 * (a chain is no cycle), are loaded as envoyproxy/ratelimit resolves them (nothing replaced; every replaced rule
 * dropped), each with a boot warning; stateless.
 */
final class RlsReplaces {
    private RlsReplaces() {
    }

    /**
     * Warns of every name a replaces list gives that is no rule's of the same domain (it replaces nothing), and of
     * every cycle of names (when all its rules match one request, every one of them is replaced: none of their
     * limits applies), as {@code <file>: domain 'd', descriptor <path>: rate_limit.replaces names '<name>', …} and
     * {@code <file>: domain 'd': rate_limit.replaces make a cycle (a replaces b replaces a): …}.
     *
     * @param drafts every domain read, by name, in file order
     * @param warnings the reader's boot warnings, which each is added to
     */
    static void check(Map<String, DraftDomain> drafts, List<String> warnings) {
        Map<String, Set<String>> namesByDomain = new HashMap<>();
        List<Object[]> refs = new ArrayList<>();
        for (DraftDomain d : drafts.values()) {
            walk(d.descriptors(), d.name(), namesByDomain, refs);
        }
        for (Object[] ref : refs) {
            String domain = (String) ref[0];
            if (!namesByDomain.getOrDefault(domain, Set.of()).contains((String) ref[2])) {
                warnings.add(drafts.get(domain).file() + ": domain '" + domain + "', descriptor " + ref[1]
                        + ": rate_limit.replaces names '" + ref[2] + "', which no rate_limit of the domain has: it "
                        + "replaces nothing (as envoyproxy/ratelimit reads it)");
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
                    warnings.add(drafts.get(domain).file() + ": domain '" + domain + "': rate_limit.replaces "
                            + "make a cycle (" + String.join(" replaces ", cycle) + "): when its rules all match one "
                            + "request, none of their limits applies (envoyproxy/ratelimit's resolution: every "
                            + "replaced rule is dropped)");
                }
            }
        });
    }

    /**
     * A depth-first search of one domain's replaces graph.
     *
     * @param name the name to search from
     * @param graph each rule name to the names it replaces, in declaration order
     * @param path the names on the search's current path, restored on return
     * @param done the names already searched (every name of a cycle found is added), never searched again
     * @return the first cycle of names reachable from {@code name} (first name repeated at the end), or null
     */
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

    /**
     * Collects, below one level of a domain's tree, every rule's name and every replaces reference.
     *
     * @param level the descriptors of one level
     * @param domain their domain
     * @param names where each rule name is added, by domain
     * @param refs where each reference is added as {@code {domain, descriptor path, replaced name, own name or
     *             null}}
     */
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
}
