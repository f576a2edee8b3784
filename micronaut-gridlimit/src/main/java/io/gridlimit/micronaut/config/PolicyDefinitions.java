package io.gridlimit.micronaut.config;

import io.gridlimit.api.Algorithm;
import io.gridlimit.api.Band;
import io.gridlimit.api.Policy;
import io.gridlimit.calendar.CalendarPeriod;
import io.gridlimit.calendar.CalendarPeriods;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.NameUtils;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The one mapping of a policy as written (configuration's {@code gridlimit.policies.<name>}, or the admin API's
 * JSON body in the same shape) onto grid-core's builders, and the one name rule, so that configuration and the admin
 * API refuse the same things with the same messages ({@code <path>: <what is wrong with 'value'>}). Ranges are
 * grid-core's ({@link Band}, SPEC §1); their {@link IllegalArgumentException} becomes a message naming the path and
 * the value as written. Stateless and thread-safe.
 */
public final class PolicyDefinitions {
    /** A bucket's parameters as written ({@link Band#tokenBucket}, {@link Band#gcra}). */
    private static final List<Parameter> BUCKET = List.of(
            new Parameter("capacity", true, Band::capacity),
            new Parameter("refill-tokens", true, Band::refillTokens),
            new Parameter("refill-period", true, b -> duration(b.refillPeriodNanos())));
    /** A window algorithm's parameters as written ({@link Band#fixedWindow} and the sliding windows). */
    private static final List<Parameter> WINDOW = List.of(
            new Parameter("limit", true, Band::limit),
            new Parameter("window", true, b -> duration(b.windowNanos())));
    /**
     * A calendar band's parameters as written ({@link Band#calendar}, docs/SPEC.md §14): {@code zone} always written
     * back, {@code week-start} for weeks only, {@code anchor} for months only.
     */
    private static final List<Parameter> CALENDAR = List.of(
            new Parameter("limit", true, Band::limit),
            new Parameter("period", true, b -> b.calendar().period().configName()),
            new Parameter("zone", false, b -> b.calendar().zone().getId()),
            new Parameter("week-start", false, b -> b.calendar().period() == CalendarPeriod.WEEK
                    ? b.calendar().weekStart().name().toLowerCase(Locale.ROOT) : null),
            new Parameter("anchor", false, b -> b.calendar().period() == CalendarPeriod.MONTH
                    ? b.calendar().anchor() : null));

    /** The parameters a policy or band may set, as written: {@code algorithm}, {@code max-debt}, each algorithm's. */
    public static final Set<String> PARAMETERS = parameterNames();

    private PolicyDefinitions() {
    }

    /**
     * A parameter of a band as written.
     *
     * @param name its name as written, e.g. {@code refill-tokens}
     * @param required whether the algorithm requires it (else it is optional)
     * @param written its value as {@link #written(Policy)} writes it back from a band, or null when it writes none
     */
    private record Parameter(String name, boolean required, Function<Band, Object> written) {
    }

    /**
     * The one home of what each algorithm takes as written (grid-core's {@link Band#of} is the one home of what it
     * builds from them).
     *
     * @param a an algorithm
     * @return its parameters, in the order configuration writes them
     */
    private static List<Parameter> parameters(Algorithm a) {
        return switch (a) {
            case TOKEN_BUCKET, GCRA -> BUCKET;
            case FIXED_WINDOW, SLIDING_WINDOW_LOG, SLIDING_WINDOW_COUNTER -> WINDOW;
            case CALENDAR -> CALENDAR;
        };
    }

    private static Set<String> parameterNames() {
        Set<String> names = new LinkedHashSet<>(List.of("algorithm", "max-debt"));
        for (Algorithm a : Algorithm.values()) {
            parameters(a).forEach(p -> names.add(p.name()));
        }
        return Set.copyOf(names);
    }

    /**
     * A policy or band as written.
     *
     * @param algorithm the algorithm name, or null (missing; for a policy: bands expected)
     * @param capacity the burst size, or null
     * @param refillTokens tokens per refill period, or null
     * @param refillPeriod the refill period, or null
     * @param limit the quota per window, or null
     * @param window the window, or null
     * @param bands named bands in declared order (a composite), or null
     * @param maxDebt the maximum debt (docs/SPEC.md §10), or null: for a band, its policy's, else its quota; for a
     *     composite policy, the default of its bands
     * @param period a calendar band's kind of period (docs/SPEC.md §14), or null
     * @param zone a calendar band's time zone, or null (UTC)
     * @param weekStart a weekly calendar band's first day of a week, or null (monday)
     * @param anchor a monthly calendar band's first day of a month, or null (1)
     */
    public record Definition(@Nullable String algorithm, @Nullable Long capacity, @Nullable Long refillTokens,
                             @Nullable Duration refillPeriod, @Nullable Long limit, @Nullable Duration window,
                             @Nullable Map<String, Definition> bands, @Nullable Long maxDebt, @Nullable String period,
                             @Nullable String zone, @Nullable String weekStart, @Nullable Long anchor) {
        /**
         * A definition without calendar parameters.
         *
         * @param algorithm the algorithm name, or null
         * @param capacity the burst size, or null
         * @param refillTokens tokens per refill period, or null
         * @param refillPeriod the refill period, or null
         * @param limit the quota per window, or null
         * @param window the window, or null
         * @param bands named bands in declared order, or null
         * @param maxDebt the maximum debt, or null
         */
        public Definition(@Nullable String algorithm, @Nullable Long capacity, @Nullable Long refillTokens,
                          @Nullable Duration refillPeriod, @Nullable Long limit, @Nullable Duration window,
                          @Nullable Map<String, Definition> bands, @Nullable Long maxDebt) {
            this(algorithm, capacity, refillTokens, refillPeriod, limit, window, bands, maxDebt, null, null, null,
                    null);
        }
    }

    /**
     * Maps a definition onto a policy.
     *
     * @param path the definition's path, e.g. {@code gridlimit.policies.demo}, or {@code ""} for a JSON body (then
     *     the messages start with the field name)
     * @param name the policy name
     * @param d the definition
     * @param raw the value as written at a path (for messages), given the typed value
     * @param errors receives one message per problem
     * @return the policy, or null when refused (the reasons are in {@code errors})
     */
    public static @Nullable Policy policy(String path, String name, Definition d,
                                          BiFunction<String, Object, String> raw, java.util.Collection<String> errors) {
        try {
            Policy.Builder builder = Policy.builder(name);
            if (d.bands() == null || d.bands().isEmpty()) {
                return builder.single(debt(path, band(path, name, d, raw, errors), d.maxDebt(), raw, errors))
                        .build();
            }
            if (d.algorithm() != null) {
                errors.add(at(path, "algorithm") + ": '" + d.algorithm() + "' is set beside bands: set either "
                        + "algorithm (with its parameters) or bands, not both");
                return null;
            }
            for (Map.Entry<String, Definition> b : d.bands().entrySet()) {
                String bandPath = at(path, "bands." + b.getKey());
                Long bandDebt = b.getValue().maxDebt();
                builder.band(debt(bandDebt != null ? bandPath : path, band(bandPath, b.getKey(), b.getValue(), raw,
                        errors), bandDebt != null ? bandDebt : d.maxDebt(), raw, errors));
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            errors.add((path.isEmpty() ? name : path) + ": " + e.getMessage());
            return null;
        } catch (Refused e) {
            return null;
        }
    }

    private static String at(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    /** A band with its maximum debt (docs/SPEC.md §10), checked by {@link Band#withMaxDebt}; null keeps the default. */
    private static Band debt(String path, Band band, @Nullable Long maxDebt, BiFunction<String, Object, String> raw,
                             java.util.Collection<String> errors) {
        if (maxDebt == null) {
            return band;
        }
        try {
            return band.withMaxDebt(maxDebt);
        } catch (IllegalArgumentException e) {
            throw refuse(errors, at(path, "max-debt"), "'" + raw.apply(at(path, "max-debt"), maxDebt)
                    + "' is refused: " + e.getMessage());
        }
    }

    private static Band band(String path, String name, Definition d, BiFunction<String, Object, String> raw,
                             java.util.Collection<String> errors) {
        if (d.algorithm() == null) {
            throw refuse(errors, at(path, "algorithm"), "missing: set one of token-bucket, gcra, leaky-bucket, "
                    + "fixed-window, sliding-window-log, sliding-window-counter, calendar (or bands for a composite)");
        }
        Algorithm a;
        try {
            a = Algorithm.fromConfigName(d.algorithm());
        } catch (IllegalArgumentException e) {
            throw refuse(errors, at(path, "algorithm"), e.getMessage());
        }
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("capacity", d.capacity());
        given.put("refill-tokens", d.refillTokens());
        given.put("refill-period", d.refillPeriod());
        given.put("limit", d.limit());
        given.put("window", d.window());
        given.put("period", d.period());
        given.put("zone", d.zone());
        given.put("week-start", d.weekStart());
        given.put("anchor", d.anchor());
        List<String> takes = parameters(a).stream().filter(Parameter::required).map(Parameter::name).toList();
        List<String> optional = parameters(a).stream().filter(p -> !p.required()).map(Parameter::name).toList();
        String takesText = String.join(", ", takes) + (optional.isEmpty() ? ""
                : " (and optionally " + String.join(", ", optional) + ")");
        given.forEach((k, v) -> {
            if (v != null && !takes.contains(k) && !optional.contains(k)) {
                errors.add(at(path, k) + ": '" + raw.apply(at(path, k), v) + "' does not apply to " + a.configName()
                        + ", which takes " + takesText);
            }
        });
        for (String k : takes) {
            if (given.get(k) == null) {
                throw refuse(errors, at(path, k), "missing: " + a.configName() + " takes " + takesText);
            }
        }
        try {
            // every parameter the algorithm takes is given (refused above when missing); Band.of ignores the others
            return Band.of(name, a, orZero(d.capacity()), orZero(d.refillTokens()), d.refillPeriod(),
                    orZero(d.limit()), d.window(), a == Algorithm.CALENDAR ? calendar(path, d, raw, errors) : null);
        } catch (IllegalArgumentException e) {
            String parameter = NameUtils.hyphenate(e.getMessage().split(" ")[0]);
            String where = takes.contains(parameter) ? at(path, parameter) : path;
            throw refuse(errors, where, "'" + raw.apply(where, given.get(parameter)) + "' is refused: "
                    + e.getMessage());
        }
    }

    /** @return the value, or 0 for a quantity not given (one the algorithm does not take: {@link Band#of}) */
    private static long orZero(@Nullable Long value) {
        return value == null ? 0 : value;
    }

    /**
     * A calendar band's periods (docs/SPEC.md §14) from {@code period}, {@code zone} (default UTC), {@code week-start}
     * (weeks only, default monday) and {@code anchor} (months only, default 1), each refusal naming its path and value.
     */
    private static CalendarPeriods calendar(String path, Definition d, BiFunction<String, Object, String> raw,
                                            java.util.Collection<String> errors) {
        int before = errors.size();
        CalendarPeriod period = null;
        try {
            period = CalendarPeriod.fromConfigName(d.period());
        } catch (IllegalArgumentException e) {
            errors.add(at(path, "period") + ": '" + raw.apply(at(path, "period"), d.period()) + "' is refused: "
                    + e.getMessage());
        }
        ZoneId zone = null;
        try {
            zone = CalendarPeriods.zone(d.zone() == null ? "UTC" : d.zone());
        } catch (IllegalArgumentException e) {
            errors.add(at(path, "zone") + ": '" + raw.apply(at(path, "zone"), d.zone()) + "' is refused: "
                    + e.getMessage());
        }
        DayOfWeek weekStart = null;
        if (d.weekStart() != null) {
            String shown = "'" + raw.apply(at(path, "week-start"), d.weekStart()) + "'";
            if (period != null && period != CalendarPeriod.WEEK) {
                errors.add(at(path, "week-start") + ": " + shown + " applies to period week only, not "
                        + period.configName());
            } else {
                try {
                    weekStart = CalendarPeriods.weekStart(d.weekStart());
                } catch (IllegalArgumentException e) {
                    errors.add(at(path, "week-start") + ": " + shown + " is refused: " + e.getMessage());
                }
            }
        }
        Integer anchor = null;
        if (d.anchor() != null) {
            String shown = "'" + raw.apply(at(path, "anchor"), d.anchor()) + "'";
            if (period != null && period != CalendarPeriod.MONTH) {
                errors.add(at(path, "anchor") + ": " + shown + " applies to period month only, not "
                        + period.configName());
            } else if (d.anchor() < 1 || d.anchor() > CalendarPeriods.MAX_ANCHOR) {
                errors.add(at(path, "anchor") + ": " + shown + " is refused: anchor must be in [1, "
                        + CalendarPeriods.MAX_ANCHOR + "], got " + d.anchor());
            } else {
                anchor = d.anchor().intValue();
            }
        }
        if (errors.size() > before) {
            throw new Refused();
        }
        return CalendarPeriods.of(period, zone, weekStart, anchor);
    }

    /**
     * Writes a policy back in its written shape: the inverse of {@link #policy} (durations in Micronaut's syntax,
     * the largest whole unit of ms, s, m, h or d, else ISO-8601).
     *
     * @param policy a policy
     * @return field name to value, in the order configuration writes them; bands as nested maps in declared order
     */
    public static Map<String, Object> written(Policy policy) {
        if (!policy.isComposite()) {
            return written(policy.bands().get(0));
        }
        Map<String, Object> bands = new LinkedHashMap<>();
        for (Band b : policy.bands()) {
            bands.put(b.name(), written(b));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("bands", bands);
        return out;
    }

    private static Map<String, Object> written(Band b) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("algorithm", b.algorithm().configName());
        for (Parameter p : parameters(b.algorithm())) {
            Object value = p.written().apply(b);
            if (value != null) {
                out.put(p.name(), value);
            }
        }
        if (b.maxDebt() != b.quota()) {
            out.put("max-debt", b.maxDebt());
        }
        return out;
    }

    /**
     * @param nanos a period in [1 ms, 365 days]
     * @return {@code 1h}, {@code 90s}, {@code 250ms}; ISO-8601 when not a whole number of milliseconds
     */
    static String duration(long nanos) {
        long[] units = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
        String[] names = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return (nanos / units[i]) + names[i];
            }
        }
        return Duration.ofNanos(nanos).toString().toUpperCase(Locale.ROOT);
    }

    private static Refused refuse(java.util.Collection<String> errors, String path, String message) {
        errors.add(path + ": " + message);
        return new Refused();
    }

    /** Unwinds the mapping of one policy after its error was recorded. */
    private static final class Refused extends RuntimeException {
        Refused() {
            super(null, null, false, false);
        }
    }
}
