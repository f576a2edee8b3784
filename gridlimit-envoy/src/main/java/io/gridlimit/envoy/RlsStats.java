package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.envoy.config.RlsRule;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * envoyproxy/ratelimit's per-rule stats as its Prometheus mapping names them (docs/SPEC.md §12, "Stats"), so that a
 * migrating user's dashboards keep working: {@code ratelimit_service_rate_limit_total_hits}, {@code _over_limit},
 * {@code _near_limit}, {@code _within_limit} and {@code _shadow_mode}, each with the one label set
 * {@code {domain, key1, key2}}: the rule's domain and the first two levels of its descriptor path ({@code key} or
 * {@code key_value} as configured, with {@code :} and {@code |} as {@code _} and an IPv4 address's dots as
 * {@code _}, the reference's {@code SanitizeStatName}); {@code key2} is empty for a one-level rule (Prometheus reads
 * an empty label as absent, which is the reference's one-level series), and deeper levels are left out, as the
 * reference's mapping leaves them out. One series per distinct label set of the configured rules, never per request
 * value: at most the number of rules loaded since boot. Overrides ({@code descriptors[i].limit}) and unlimited rules
 * are not counted here (their decisions are in {@code gridlimit_decisions_total}).
 *
 * <p>Counting, per decided descriptor of hits {@code c} against limit {@code L} with {@code before} counted before
 * it (envoyproxy/ratelimit's {@code base_limiter.go}; {@code N = floor(L × near-limit-ratio)}, exact decimal
 * arithmetic where the reference multiplies float32s): {@code total_hits += c}; under the limit,
 * {@code within_limit += c} and, when {@code before + c > N}, {@code near_limit += c} if {@code before >= N}, else
 * {@code before + c − N}; over it, {@code over_limit += c} if {@code before >= L}, else {@code before + c − L} and
 * {@code near_limit += L − max(N, before)}, and in shadow mode {@code shadow_mode} as {@code over_limit}.
 * {@code before} is {@code L − remaining − c} after a hit that passed and {@code L − remaining} after a denial (a
 * denial reports what was left when it came, SPEC §3); a block list has {@code L = 0}. Peeks (cost 0) count nothing.
 * Exposed as gauges of monotonic counts: Micrometer's Prometheus registry appends {@code _total} to every counter's
 * name, which would change the reference's names; {@code rate()} and {@code increase()} read them as counters.
 * Thread-safe.
 */
final class RlsStats {
    /** The prefix of every name (Prometheus shows it as {@code ratelimit_service_rate_limit_}). */
    static final String PREFIX = "ratelimit.service.rate_limit.";
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");

    private final MeterRegistry registry;
    private final BigDecimal nearLimitRatio;
    private final Map<List<String>, Series> series = new ConcurrentHashMap<>();

    /** One label set's five counts. */
    static final class Series {
        final AtomicLong totalHits = new AtomicLong();
        final AtomicLong overLimit = new AtomicLong();
        final AtomicLong nearLimit = new AtomicLong();
        final AtomicLong withinLimit = new AtomicLong();
        final AtomicLong shadowMode = new AtomicLong();
    }

    /**
     * @param registry where the series are registered, each on its first count
     * @param nearLimitRatio {@code gridlimit.envoy-rls.near-limit-ratio}, in [0, 1]
     */
    RlsStats(MeterRegistry registry, BigDecimal nearLimitRatio) {
        this.registry = registry;
        this.nearLimitRatio = nearLimitRatio;
    }

    /**
     * Counts each decided descriptor of one call (the class comment's rules).
     *
     * @param outcomes each descriptor's outcome (null: not decided)
     */
    void count(RlsOutcome[] outcomes) {
        for (RlsOutcome o : outcomes) {
            if (o == null || o.check().peek() || o.check().rule().statsLevels().isEmpty()) {
                continue;
            }
            boolean blocked = o.source() == RlsOutcome.Source.BLOCKED;
            Decision d = o.decision();
            if (!blocked && d == null) {
                continue; // answered open, failed or cancelled: no decision
            }
            RlsRule rule = o.check().rule();
            long c = o.check().cost();
            long limit = blocked ? 0 : d.limit();
            boolean over = o.over();
            long before = blocked ? 0 : over ? limit - d.remaining() : limit - d.remaining() - c;
            long near = nearLimitRatio.multiply(BigDecimal.valueOf(limit)).setScale(0, RoundingMode.FLOOR)
                    .longValueExact();
            Series s = series(rule);
            s.totalHits.addAndGet(c);
            if (!over) {
                s.withinLimit.addAndGet(c);
                if (before + c > near) {
                    s.nearLimit.addAndGet(before >= near ? c : before + c - near);
                }
                continue;
            }
            long above = before >= limit ? c : before + c - limit;
            s.overLimit.addAndGet(above);
            if (before < limit) {
                s.nearLimit.addAndGet(limit - Math.max(near, before));
            }
            if (rule.shadow()) {
                s.shadowMode.addAndGet(above);
            }
        }
    }

    /** @return the series of a rule's label set, registered on first use */
    Series series(RlsRule rule) {
        List<String> levels = rule.statsLevels();
        List<String> labels = List.of(rule.domain(), sanitize(levels.get(0)),
                levels.size() > 1 ? sanitize(levels.get(1)) : "");
        return series.computeIfAbsent(labels, l -> {
            Series s = new Series();
            register("total_hits", l, s.totalHits, "hits of the rule's descriptors, their costs summed");
            register("over_limit", l, s.overLimit, "the part of those hits above the limit");
            register("near_limit", l, s.nearLimit, "the part above near-limit-ratio of the limit, up to the limit");
            register("within_limit", l, s.withinLimit, "hits answered within the limit");
            register("shadow_mode", l, s.shadowMode, "the part above the limit of shadow-mode rules, answered OK");
            return s;
        });
    }

    private void register(String name, List<String> labels, AtomicLong count, String description) {
        Gauge.builder(PREFIX + name, count, AtomicLong::doubleValue).description("envoyproxy/ratelimit's " + name
                + ": " + description).tags("domain", labels.get(0), "key1", labels.get(1), "key2", labels.get(2))
                .register(registry);
    }

    /** envoyproxy/ratelimit's {@code SanitizeStatName}: {@code :} and {@code |} as {@code _}, IPv4 dots as {@code _}. */
    static String sanitize(String level) {
        String s = level.replace(':', '_').replace('|', '_');
        Matcher m = IPV4.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(m.group().replace('.', '_')));
        }
        m.appendTail(out);
        return out.toString();
    }
}
