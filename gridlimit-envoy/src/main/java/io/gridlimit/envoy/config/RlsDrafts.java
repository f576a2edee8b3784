package io.gridlimit.envoy.config;

import io.gridlimit.api.Band;
import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Map;

/**
 * What {@link RlsConfigReader} holds while files are read, before every policy name is known (docs/SPEC.md §12):
 * each domain's tree of {@link Draft} descriptors, whose limited rules are {@link Pending} until
 * {@link RlsDomainBuilder#names} names them. Values of one read (their maps are the reader's own, mutable
 * while it reads): never shared across threads.
 */
final class RlsDrafts {
    private RlsDrafts() {
    }

    /**
     * A descriptor path as messages show it: each entry's key, {@code =} and its value when it has one, the
     * entries joined by {@code /}, e.g. {@code message_type=marketing/to_number} ({@link RlsRule#path()}).
     *
     * @param path the entries from the top level down, possibly empty (then the empty text)
     * @return the path's text, never null
     */
    static String display(List<Segment> path) {
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

    /**
     * @param path a descriptor path
     * @return its levels as envoyproxy/ratelimit's stats keys name them: {@code key}, or {@code key_value}
     */
    static List<String> statsLevels(List<Segment> path) {
        List<String> levels = new java.util.ArrayList<>(path.size());
        for (Segment s : path) {
            levels.add(s.value() == null ? s.key() : s.key() + "_" + s.value());
        }
        return levels;
    }

    /**
     * One entry of a descriptor path.
     *
     * @param key the descriptor key ({@code ?} in messages when it is missing)
     * @param value the descriptor value, or null when absent or empty (any value)
     */
    record Segment(String key, @Nullable String value) {
    }

    /**
     * A descriptor while files are read: its rule is an unlimited {@link RlsRule}, a {@link Pending} or null.
     *
     * @param key the descriptor key, non-empty
     * @param value the descriptor value, or null for any value
     * @param rule an unlimited {@link RlsRule}, a {@link Pending} limited rule, or null (no rule, or refused)
     * @param children the nested descriptors, by {@link RlsNode#id(String, String)}, in declaration order
     * @param share {@code share_threshold: true} (only on a wildcard value)
     */
    record Draft(String key, @Nullable String value, @Nullable Object rule, Map<String, Draft> children,
                 boolean share) {
    }

    /**
     * A domain while files are read.
     *
     * @param name the domain, non-empty
     * @param file the file it was read from, as messages show it
     * @param descriptors the top-level descriptors, by {@link RlsNode#id(String, String)}, in declaration order
     */
    record DraftDomain(String name, String file, Map<String, Draft> descriptors) {
    }

    /**
     * A limited rule whose band is built but whose policy name is not yet chosen (it depends on every other rule:
     * {@link RlsDomainBuilder#names}).
     *
     * @param domain the domain it belongs to
     * @param path the descriptor path, from the top level down
     * @param band its single band, named by a placeholder until {@link RlsDomainBuilder#names} renames it; null for
     *             a block list ({@code requests_per_unit: 0}: no policy)
     * @param unit the configured unit
     * @param requestsPerUnit the configured {@code requests_per_unit}, in [0, 2^32 - 1] (0 exactly when
     *                        {@code band} is null)
     * @param shadow {@code shadow_mode: true}
     * @param quotaMode {@code quota_mode: true}
     * @param name the optional {@code rate_limit.name}, else null
     * @param replaces the names this rule replaces, none of them its own
     */
    record Pending(String domain, List<Segment> path, @Nullable Band band, RlsUnit unit, long requestsPerUnit,
                   boolean shadow, boolean quotaMode, @Nullable String name, List<String> replaces) {
        /**
         * @return envoyproxy/ratelimit's full key of the rule: {@code <domain>.<key>[_<value>]...}, e.g.
         *         {@code messaging.message_type_marketing.to_number}; not necessarily a valid policy name
         */
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
