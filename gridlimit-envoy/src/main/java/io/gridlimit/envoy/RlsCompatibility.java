package io.gridlimit.envoy;

import io.gridlimit.algorithm.RateLimitAlgorithms;
import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsConfigException;
import io.gridlimit.envoy.config.RlsConfigReader;
import io.gridlimit.envoy.config.RlsRule;
import io.micronaut.core.value.PropertyResolver;
import io.micronaut.core.annotation.Nullable;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the Envoy rate limit service counts and answers (docs/SPEC.md §12, "Compatibility"), checked at boot with the
 * other {@code gridlimit.envoy-rls.*} settings. Each setting may also be given as envoyproxy/ratelimit's environment
 * variable for it, read when the property is unset (Micronaut shows {@code LIMIT_LIMIT_HEADER} as
 * {@code limit.limit.header}); text is trimmed; booleans are {@code true} or {@code false} in any case.
 * <ul>
 *   <li>{@value #MODE_PROPERTY}: {@code gridlimit} (the default: SPEC §12's counting and answers) or
 *       {@code reference} (envoyproxy/ratelimit's: every hit counts, each descriptor on its own, a peek at the
 *       limit is OK, whole-second resets, its answer shape and headers). Lower case, as written here.</li>
 *   <li>{@value #SHADOW_PROPERTY} (alias {@code SHADOW_MODE}): every OVER_LIMIT call is answered OK (the
 *       descriptors' statuses unchanged), counted {@value #GLOBAL_SHADOW}; in both modes; logged at WARN at boot.</li>
 *   <li>{@value #HEADERS_PROPERTY} (alias {@code LIMIT_RESPONSE_HEADERS_ENABLED}), {@value #LIMIT_HEADER_PROPERTY}
 *       ({@code LIMIT_LIMIT_HEADER}, default {@code RateLimit-Limit}), {@value #REMAINING_HEADER_PROPERTY}
 *       ({@code LIMIT_REMAINING_HEADER}, {@code RateLimit-Remaining}), {@value #RESET_HEADER_PROPERTY}
 *       ({@code LIMIT_RESET_HEADER}, {@code RateLimit-Reset}): the reference's three optional headers, only under
 *       {@code reference} (set under {@code gridlimit}, which writes SPEC §5's fields per {@code gridlimit.headers},
 *       they stop the boot naming them); a name is an RFC 9110 token, the three distinct in any case.</li>
 *   <li>{@value #NEAR_LIMIT_PROPERTY} (alias {@code NEAR_LIMIT_RATIO}): the share of a limit above which hits count
 *       as {@code near_limit} in the reference's stats ({@link RlsStats}), a decimal in [0, 1], default 0.8.</li>
 * </ul>
 *
 * @param reference whether {@value #MODE_PROPERTY} is {@code reference}
 * @param globalShadow whether every OVER_LIMIT call is answered OK
 * @param headers whether the reference's three headers are added (only under {@code reference})
 * @param limitHeader the limit header's name
 * @param remainingHeader the remaining header's name
 * @param resetHeader the reset header's name
 * @param nearLimitRatio the near-limit share of a limit, in [0, 1]
 */
public record RlsCompatibility(boolean reference, boolean globalShadow, boolean headers, String limitHeader,
                               String remainingHeader, String resetHeader, BigDecimal nearLimitRatio) {
    /** {@code gridlimit} or {@code reference}. */
    public static final String MODE_PROPERTY = EnvoyRlsProperties.PREFIX + ".compatibility";
    /** The global shadow mode. */
    public static final String SHADOW_PROPERTY = EnvoyRlsProperties.PREFIX + ".shadow-mode";
    /** Whether the reference's headers are added. */
    public static final String HEADERS_PROPERTY = EnvoyRlsProperties.PREFIX + ".response-headers.enabled";
    /** The limit header's name. */
    public static final String LIMIT_HEADER_PROPERTY = EnvoyRlsProperties.PREFIX + ".response-headers.limit-header";
    /** The remaining header's name. */
    public static final String REMAINING_HEADER_PROPERTY = EnvoyRlsProperties.PREFIX
            + ".response-headers.remaining-header";
    /** The reset header's name. */
    public static final String RESET_HEADER_PROPERTY = EnvoyRlsProperties.PREFIX + ".response-headers.reset-header";
    /** The near-limit share of a limit for the reference's stats. */
    public static final String NEAR_LIMIT_PROPERTY = EnvoyRlsProperties.PREFIX + ".near-limit-ratio";
    /** envoyproxy/ratelimit's default near-limit share. */
    public static final BigDecimal DEFAULT_NEAR_LIMIT_RATIO = new BigDecimal("0.8");
    /** Calls answered OK by the global shadow mode although OVER_LIMIT (counter, no tags). */
    public static final String GLOBAL_SHADOW = "gridlimit.envoy.global.shadow.mode";

    /** Header names the reference's headers may not take: the message's framing and connection (RFC 9110 §7.6.1). */
    private static final List<String> RESERVED = List.of("content-length", "transfer-encoding", "connection",
            "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "host", "content-type");

    /** Today's counting and answers, without a global shadow mode. */
    public static final RlsCompatibility GRIDLIMIT = new RlsCompatibility(false, false, false, "RateLimit-Limit",
            "RateLimit-Remaining", "RateLimit-Reset", DEFAULT_NEAR_LIMIT_RATIO);

    /**
     * Reads and checks the settings.
     *
     * @param properties the application's properties (the environment included)
     * @param errors receives {@code <property>: '<value>' …} for each refused value
     * @return the settings; {@link #GRIDLIMIT}'s values where a value was refused (the boot stops anyway)
     */
    public static RlsCompatibility read(PropertyResolver properties, List<String> errors) {
        Setting mode = Setting.of(properties, MODE_PROPERTY, null);
        boolean reference = false;
        if (mode.text != null && !mode.text.equals("gridlimit")) {
            reference = mode.text.equals("reference");
            if (!reference) {
                errors.add(mode.where + ": '" + mode.raw + "' is not gridlimit or reference");
            }
        }
        boolean shadow = Setting.of(properties, SHADOW_PROPERTY, "SHADOW_MODE").bool(errors);
        Setting enabled = Setting.of(properties, HEADERS_PROPERTY, "LIMIT_RESPONSE_HEADERS_ENABLED");
        Setting[] names = {Setting.of(properties, LIMIT_HEADER_PROPERTY, "LIMIT_LIMIT_HEADER"),
            Setting.of(properties, REMAINING_HEADER_PROPERTY, "LIMIT_REMAINING_HEADER"),
            Setting.of(properties, RESET_HEADER_PROPERTY, "LIMIT_RESET_HEADER")};
        String[] values = {GRIDLIMIT.limitHeader, GRIDLIMIT.remainingHeader, GRIDLIMIT.resetHeader};
        boolean headers = enabled.bool(errors);
        for (int i = 0; i < names.length; i++) {
            Setting s = names[i];
            if (s.text == null) {
                continue;
            }
            if (!s.text.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                errors.add(s.where + ": '" + s.raw + "' is not a header name (an RFC 9110 token)");
            } else if (RESERVED.contains(s.text.toLowerCase(Locale.ROOT))) {
                errors.add(s.where + ": '" + s.raw + "' is a header of the message's framing or connection, "
                        + "which the limit's value must not replace");
            } else {
                values[i] = s.text;
            }
        }
        for (int i = 0; i < names.length; i++) {
            for (int j = 0; j < names.length; j++) {
                // the three names as they will be sent, defaults included, distinct in any case
                if (i != j && names[i].text != null && values[i].equalsIgnoreCase(values[j])
                        && (names[j].text == null || i > j)) {
                    errors.add(names[i].where + ": '" + names[i].raw + "' is the name of another of the three "
                            + "headers");
                }
            }
        }
        if (!reference) {
            for (Setting s : List.of(enabled, names[0], names[1], names[2])) {
                if (s.text != null) {
                    errors.add(s.where + ": '" + s.raw + "' applies only under " + MODE_PROPERTY + ": reference ("
                            + "under gridlimit the answers carry the fields gridlimit.headers chooses)");
                }
            }
            headers = false;
        }
        Setting ratio = Setting.of(properties, NEAR_LIMIT_PROPERTY, "NEAR_LIMIT_RATIO");
        BigDecimal near = DEFAULT_NEAR_LIMIT_RATIO;
        if (ratio.text != null) {
            BigDecimal v = ratio.text.matches("[0-9]*\\.?[0-9]+|[0-9]+\\.") ? new BigDecimal(ratio.text) : null;
            if (v == null || v.compareTo(BigDecimal.ONE) > 0) {
                errors.add(ratio.where + ": '" + ratio.raw + "' is not a decimal in [0, 1]");
            } else {
                near = v;
            }
        }
        return new RlsCompatibility(reference, shadow, headers, values[0], values[1], values[2], near);
    }

    /**
     * Reads the configuration files ({@link RlsConfigReader#read(List, boolean)}) and, under {@code reference},
     * refuses a rule whose algorithm cannot count every hit (the {@code rate_limit.gridlimit} extension: the
     * reference counts fixed windows only, docs/SPEC.md §3 "Every hit counts"), with the boot's message form.
     *
     * @param paths the configured files and directories
     * @param merge whether one domain may span several files
     * @return the configuration
     * @throws RlsConfigException naming every problem, each rule refused by its domain and descriptor path
     */
    RlsConfig readRules(List<String> paths, boolean merge) {
        RlsConfig config = RlsConfigReader.read(paths, merge);
        if (!reference) {
            return config;
        }
        List<String> refused = new ArrayList<>();
        for (RlsRule rule : config.rules()) {
            if (rule.policy() != null && !RateLimitAlgorithms.countsEveryHit(rule.policy())) {
                refused.add("domain '" + rule.domain() + "', descriptor " + rule.path() + ": rate_limit.gridlimit "
                        + "picks " + rule.policy().bands().get(0).algorithm().configName() + ", which "
                        + MODE_PROPERTY + ": reference cannot count (envoyproxy/ratelimit counts fixed windows only): "
                        + "remove the extension, or use compatibility: gridlimit");
            }
        }
        if (!refused.isEmpty()) {
            throw new RlsConfigException(RlsConfigReader.PROPERTY + ": " + String.join("; ", refused));
        }
        return config;
    }

    /** One setting as written: the property, else the reference's environment variable. */
    private record Setting(@Nullable String raw, @Nullable String text, String where) {
        static Setting of(PropertyResolver properties, String property, @Nullable String variable) {
            String raw = properties.getProperty(property, String.class).orElse(null);
            String where = property;
            if (raw == null && variable != null) {
                raw = properties.getProperty(variable.toLowerCase(Locale.ROOT).replace('_', '.'), String.class)
                        .orElse(null);
                where = variable + " (alias of " + property + ")";
            }
            return new Setting(raw, raw == null ? null : raw.trim(), where);
        }

        boolean bool(List<String> errors) {
            if (text == null) {
                return false;
            }
            if (!text.matches("(?i)true|false")) {
                errors.add(where + ": '" + raw + "' is not true or false");
                return false;
            }
            return text.equalsIgnoreCase("true");
        }
    }
}
