package io.gridlimit.micronaut.config.sources;

import io.gridlimit.api.Band;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.SystemPropertiesPropertySource;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.NameUtils;
import io.micronaut.core.type.Argument;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads every property source as written, before anything is bound, and records one message per wrong
 * {@code gridlimit.*} property ({@code <path>: <what is wrong with 'value'>}), the value quoted as written (a YAML
 * {@code 1e3} as {@code 1e3}, not as the {@code 1000.0} YAML reads).
 *
 * <p>Known names are {@link KnownNames}'. Files and maps are checked strictly: an unknown name, or a top-level name
 * within two edits of {@code gridlimit}, is refused with the nearest known name; keys are compared after Micronaut's
 * normalisation (kebab case), keys inside list elements exactly. A list is written whole ({@code a: [x, y]},
 * {@code a=x,y}) or entry by entry ({@code a[0]=x}) at every level ({@code gridlimit.routes[0].key[0]}); a numbered
 * key ({@code gridlimit.routes.0.pattern}), which Micronaut never binds, is refused. Environment variables and system
 * properties are shared by every program of the process, so there an unknown name is refused only when it is within
 * two edits of a known name or lies in a known section ({@code gridlimit.hazelcast.…}); an environment variable is
 * known when any dotted form Micronaut derives from it is, and one that would set an entry of a list
 * ({@code GRIDLIMIT_ROUTES_0_PATTERN}, which Micronaut reads as {@code gridlimit.routes[0]pattern}, so it would be
 * ignored; {@code GRIDLIMIT_EXEMPT_0}, which would edit a lower source's list in place) is refused, pointing to a
 * configuration file. A known name must hold a value of its type within its {@code @Min}/{@code @Max}
 * (a quantity without them within SPEC §1's [1, 10^15]); a map key (policy or band name) must be one Micronaut keeps
 * as written. Not thread-safe: one instance per boot.
 */
final class PropertyCheck {
    private static final String ROOT = KnownNames.ROOT;
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");
    private static final String CONFIG_FILE = "set the list in a configuration file (MICRONAUT_CONFIG_FILES=/path/to/"
            + "override.yml, whose list replaces the whole list)";

    private final KnownNames known;
    private final Set<String> lists;
    private final Map<String, String> spellings = new HashMap<>();
    private final ApplicationContext context;
    /** The scalars of the YAML source being read, as written, by path; empty for other sources. */
    private Map<String, String> written = Map.of();
    final Set<String> errors = new TreeSet<>();
    final Set<String> ignored = new TreeSet<>();

    PropertyCheck(ApplicationContext context, ConfiguredLists configured) {
        this.context = context;
        this.known = configured.names();
        this.lists = known.topLevelLists();
        errors.addAll(configured.errors());
        for (PropertySource source : context.getEnvironment().getPropertySources()) {
            if (ConfiguredLists.isPublished(source)) {
                continue;
            }
            boolean env = source.getConvention() == PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE;
            boolean shared = env || source instanceof SystemPropertiesPropertySource;
            written = source.getOrigin().location().matches(".*\\.ya?ml")
                    ? YamlKeys.read(source, context.getEnvironment(), errors) : Map.of();
            for (String key : source) {
                if (env) {
                    environmentVariable(key, source.get(key));
                } else {
                    visit(key, source.get(key), shared);
                }
            }
        }
    }

    /** Micronaut's form of a key written in a file: kebab case. */
    private static String normalise(String key) {
        return NameUtils.hyphenate(key, true);
    }

    private @Nullable String match(String key) {
        return known.match(key);
    }

    private void environmentVariable(String key, Object value) {
        // Micronaut's source renames GRIDLIMIT_ROUTES_0_PATTERN to GRIDLIMIT_ROUTES[0]PATTERN: name it as written
        String variable = key.replaceAll("\\[([0-9]{1,2})\\](?=.)", "_$1_").replaceAll("\\[([0-9]{1,2})\\]$", "_$1");
        String[] parts = variable.toLowerCase(Locale.ROOT).split("_");
        if (parts.length == 0 || parts.length > 12 || Spelling.distance(parts[0], ROOT) > 2) {
            return;
        }
        List<String> forms = new ArrayList<>();
        for (int mask = 0; mask < 1 << (parts.length - 1); mask++) {
            StringBuilder form = new StringBuilder(parts[0]);
            for (int i = 1; i < parts.length; i++) {
                form.append((mask >> (i - 1) & 1) == 0 ? '.' : '-').append(parts[i]);
            }
            // a numbered segment stands for an index, which is how a user means it
            forms.add(normalise(form.toString()).replaceAll("\\.([0-9]+)(?=\\.|$)", "[$1]"));
        }
        for (String form : forms) {
            for (String list : lists) {
                if (form.startsWith(list + "[")) {
                    errors.add(variable + ": an environment variable cannot set one entry of a list (GridLimit "
                            + "replaces a list whole); " + (known.isList(list) ? "set the whole list ("
                            + variable.substring(0, list.length()) + "=a,b) or " : "") + CONFIG_FILE);
                    return;
                }
                if (form.equals(list) && !known.isList(list)) {
                    errors.add(variable + ": " + list + " is a list of settings, which an environment variable "
                            + "cannot hold; " + CONFIG_FILE);
                    return;
                }
            }
        }
        for (String form : forms) {
            String name = match(form);
            if (name != null) {
                typed(variable + " (" + form + ")", name, value);
                return;
            }
        }
        unknown(variable, forms.get(0), value, forms, true);
    }

    private void visit(String raw, Object value, boolean shared) {
        if (value instanceof Map<?, ?> map && !map.isEmpty() && isMapSetting(normalise(raw))) {
            // a map-typed setting (a plan's policies): its keys are values, used exactly as written
            map.forEach((k, v) -> {
                if (v instanceof Map<?, ?> || v instanceof java.util.List<?>) {
                    errors.add(raw + "." + k + ": '" + v + "' is not a single value");
                }
            });
            return;
        }
        if (value instanceof Map<?, ?> map && !map.isEmpty()) {
            map.forEach((k, v) -> visit(raw + "." + k, v, shared));
            return;
        }
        String key = normalise(raw);
        String name = match(key);
        if (name != null) {
            typed(raw, name, value);
            names(raw, key, name);
        } else if (value instanceof List<?> list && known.isSection(key + "[0]")) {
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof Map<?, ?> element)) {
                    errors.add(raw + "[" + i + "]: '" + list.get(i) + "' is not a map of settings");
                    continue;
                }
                for (Map.Entry<?, ?> e : element.entrySet()) {
                    String path = raw + "[" + i + "]." + e.getKey();
                    String exact = match(key + "[" + i + "]." + e.getKey());
                    if (exact == null) {
                        unknown(path, key + "[" + i + "]." + e.getKey(), e.getValue(), List.of(path), false);
                    } else {
                        typed(path, exact, e.getValue());
                    }
                }
            }
        } else {
            unknown(raw, key, value, List.of(key), shared);
        }
    }

    private boolean isMapSetting(String key) {
        String name = match(key);
        return name != null && known.isMap(name);
    }

    private void unknown(String raw, String key, Object value, List<String> forms, boolean shared) {
        int dot = key.indexOf('.');
        String first = dot < 0 ? key : key.substring(0, dot);
        if (!first.equals(ROOT)) {
            if (Spelling.distance(first, ROOT) <= 2) {
                errors.add(raw + ": unknown property; did you mean " + ROOT + key.substring(first.length()) + "?");
            }
            return;
        }
        for (int end = key.lastIndexOf('.'); end > 0; end = key.lastIndexOf('.', end - 1)) {
            String name = match(key.substring(0, end));
            if (name != null && known.isMap(name) && end == key.lastIndexOf('.')) {
                return; // one key of a map-typed setting (a plan's policies), used as written
            }
            if (name != null && known.isList(name) && key.substring(end + 1).matches("[0-9]+")) {
                errors.add(raw + ": an entry of the list " + key.substring(0, end) + " is written "
                        + key.substring(0, end) + "[" + key.substring(end + 1) + "]");
                return;
            }
            if (name != null && known.type(name) != null && Spelling.isValue(known.type(name))) {
                errors.add(key.substring(0, end) + ": '{" + key.substring(end + 1) + "=" + value + "}' is not "
                        + Spelling.describe(known.type(name)));
                return;
            }
        }
        if (key.startsWith(ROOT + ".routes.")) {
            errors.add(raw + ": gridlimit.routes is written as a map; it is a list (one '- pattern: …' per rule, "
                    + "or gridlimit.routes[0].pattern=…)");
            return;
        }
        if (known.isSection(key)) {
            errors.add(raw + ": '" + value + "' is not a map of settings, or is empty");
            return;
        }
        for (String name : known.names()) {
            java.util.regex.Matcher m = Pattern.compile(Pattern.quote(name).replace("*", "\\E(.+)\\Q")).matcher(key);
            if (name.contains("*") && m.matches()) {
                errors.add(raw + ": the name '" + m.group(1) + "' contains '.', which Micronaut reads as nested "
                        + "properties: use letters, digits and '-' only");
                return;
            }
        }
        String nearest = null;
        int best = Integer.MAX_VALUE;
        for (String form : forms) {
            for (String candidate : Spelling.candidates(known.names(), form)) {
                int d = Spelling.distance(form, candidate);
                if (d < best) {
                    best = d;
                    nearest = candidate;
                }
            }
        }
        boolean inSection = forms.stream().anyMatch(f -> f.split("\\.").length > 2
                && known.isSection(f.substring(0, f.indexOf('.', ROOT.length() + 1))));
        if (shared && best > 2 && !inSection) {
            ignored.add(raw);
        } else {
            errors.add(raw + ": unknown property" + (best > Math.max(3, raw.length() / 4) ? ""
                    : "; did you mean " + nearest + "?"));
        }
    }

    private void typed(String path, String name, Object value) {
        Argument<?> type = known.type(name);
        if (type == null || Collection.class.isAssignableFrom(type.getType()) || value instanceof Collection) {
            return;
        }
        String text = String.valueOf(value).trim();
        String quoted = "'" + written.getOrDefault(path, String.valueOf(value)) + "'";
        Class<?> t = type.getType();
        boolean integral = t == int.class || t == long.class || t == Integer.class || t == Long.class;
        if (integral && INTEGER.matcher(text).matches()) {
            // the component's Jakarta @Min/@Max, checked on the value as written; a quantity without: SPEC §1
            BigDecimal v = new BigDecimal(text);
            OptionalLong min = type.getAnnotationMetadata().longValue(Min.class, "value");
            OptionalLong max = type.getAnnotationMetadata().longValue(Max.class, "value");
            long low = min.orElse(name.endsWith(".max-debt") ? 0 : 1);
            long high = max.orElse(Band.MAX_QUANTITY);
            boolean bounded = min.isPresent() || max.isPresent();
            boolean inLong = v.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
                    && v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
            if ((bounded || !inLong) && (v.compareTo(BigDecimal.valueOf(low)) < 0
                    || v.compareTo(BigDecimal.valueOf(high)) > 0)) {
                errors.add(path + ": " + quoted + " is out of range [" + low + ", " + high + "]");
                return;
            }
        }
        boolean ok = (t == boolean.class || t == Boolean.class) ? text.matches("(?i)true|false")
                : (!integral || INTEGER.matcher(text).matches())
                && context.getConversionService().convert(value, type).isPresent();
        if (!ok) {
            errors.add(path + ": " + quoted + " is not " + Spelling.describe(type));
        }
    }

    /** A map key (policy or band name) must be one Micronaut keeps as written, and unique ignoring case. */
    private void names(String raw, String key, String name) {
        String[] rawParts = raw.split("\\.");
        String[] nameParts = name.split("\\.");
        for (int i = 0; i < nameParts.length && i < rawParts.length; i++) {
            if (!nameParts[i].equals("*")) {
                continue;
            }
            String segment = rawParts[i];
            String path = String.join(".", Arrays.copyOf(rawParts, i + 1));
            String lower = String.join(".", Arrays.copyOf(key.split("\\."), i + 1));
            String other = spellings.putIfAbsent(lower.toLowerCase(Locale.ROOT), segment);
            if (other != null && !other.equals(segment)) {
                errors.add(path + ": the names '" + other + "' and '" + segment + "' differ only in case; names "
                        + "are used exactly as written, so each must differ in more than case");
            }
            if (!NameUtils.hyphenate(segment, true).equals(segment)) {
                errors.add(PolicyNames.nameError(path, segment)); // the one name rule, shared with the admin API
            }
        }
    }
}
