package io.gridlimit.micronaut.config;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.PropertySource;
import io.micronaut.context.env.SystemPropertiesPropertySource;
import io.micronaut.core.annotation.AnnotationMetadata;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.io.service.SoftServiceLoader;
import io.micronaut.core.naming.NameUtils;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.BeanDefinitionReference;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads every property source as written, before anything is bound, and records one message per wrong
 * {@code gridlimit.*} property ({@code <path>: <what is wrong with 'value'>}).
 *
 * <p>Known names come from the classpath, not from a list: every {@code @ConfigurationProperties} /
 * {@code @EachProperty} component, {@code @Property} and {@code @Requires(property)} of any bean definition (enabled
 * or not), and {@code ${gridlimit.…}} placeholders in annotations and in the property sources themselves. Files
 * and maps are checked strictly: an unknown name, or a top-level name within two edits of {@code gridlimit}, is
 * refused with the nearest known name; keys are compared after Micronaut's normalisation (kebab case), keys inside
 * list elements exactly. Environment variables and system properties are shared by every program of the process,
 * so there an unknown name is refused only when it is within two edits of a known name or lies in a known section
 * ({@code gridlimit.hazelcast.…}); an environment variable is known when any dotted form Micronaut derives from
 * it is. A known name must hold a value of its type within its {@code @Min}/{@code @Max}; a map key (policy or
 * band name) must be one Micronaut keeps as written. Not thread-safe: one instance per boot.
 */
final class PropertyCheck {
    private static final String ROOT = "gridlimit";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{\\s*(gridlimit\\.[^:}\\s]+)");
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

    private final Map<String, Argument<?>> known = new HashMap<>();
    private final Map<String, Pattern> patterns = new HashMap<>();
    private final List<Pattern> sections = new ArrayList<>();
    private final Map<String, String> spellings = new HashMap<>();
    private final ApplicationContext context;
    final Set<String> errors = new TreeSet<>();
    final Set<String> ignored = new TreeSet<>();

    PropertyCheck(ApplicationContext context) {
        this.context = context;
        List<BeanDefinitionReference> references = new ArrayList<>();
        SoftServiceLoader.load(BeanDefinitionReference.class, context.getClassLoader()).collectAll(references);
        for (BeanDefinitionReference<?> reference : references) {
            collect(reference.getAnnotationMetadata(), null);
            try {
                BeanDefinition<?> d = reference.load(context);
                List<Argument<?>> arguments = new ArrayList<>(Arrays.asList(d.getConstructor().getArguments()));
                d.getInjectedMethods().forEach(m -> arguments.addAll(Arrays.asList(m.getArguments())));
                d.getInjectedFields().forEach(f -> arguments.add(f.asArgument()));
                arguments.forEach(a -> collect(a.getAnnotationMetadata(), a));
            } catch (RuntimeException | LinkageError e) {
                // a definition whose classes are absent declares nothing this application can set
            }
        }
        for (PropertySource source : context.getEnvironment().getPropertySources()) {
            source.forEach(k -> placeholders(String.valueOf(source.get(k))));
        }
        for (String n : known.keySet()) {
            patterns.put(n, pattern(n));
            for (int end = n.lastIndexOf('.'); end > 0; end = n.lastIndexOf('.', end - 1)) {
                sections.add(pattern(n.substring(0, end)));
            }
        }
        for (PropertySource source : context.getEnvironment().getPropertySources()) {
            boolean env = source.getConvention() == PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE;
            boolean shared = env || source instanceof SystemPropertiesPropertySource;
            for (String key : source) {
                if (env) {
                    environmentVariable(key, source.get(key));
                } else {
                    visit(key, source.get(key), shared);
                }
            }
            if (source.getOrigin().location().matches(".*\\.ya?ml")) {
                YamlKeys.duplicates(source, context.getEnvironment(), errors);
            }
        }
    }

    private static Pattern pattern(String name) {
        return Pattern.compile(Pattern.quote(name).replace("[*]", "\\E\\[[0-9]+\\]\\Q")
                .replace("*", "\\E([^.\\[]+)\\Q"));
    }

    private void collect(AnnotationMetadata metadata, @Nullable Argument<?> argument) {
        metadata.stringValue(Property.class, "name").ifPresent(n -> add(n, argument));
        metadata.getAnnotationValuesByType(Requires.class)
                .forEach(r -> r.stringValue("property").ifPresent(n -> add(n, null)));
        for (String annotation : metadata.getAnnotationNames()) {
            metadata.getValues(annotation).values().forEach(v -> placeholders(String.valueOf(v)));
        }
    }

    private void placeholders(String text) {
        PLACEHOLDER.matcher(text).results().forEach(m -> add(m.group(1), null));
    }

    private void add(String name, @Nullable Argument<?> argument) {
        if (name.startsWith(ROOT + ".") && (argument != null || !known.containsKey(name))) {
            known.put(name, argument);
        }
    }

    /** Micronaut's form of a key written in a file: kebab case, {@code .0.} as {@code [0]}. */
    private static String normalise(String key) {
        return NameUtils.hyphenate(key, true).replaceAll("\\.([0-9]+)(?=\\.|$)", "[$1]");
    }

    private @Nullable String match(String key) {
        for (Map.Entry<String, Pattern> p : patterns.entrySet()) {
            if (p.getValue().matcher(key).matches()) {
                return p.getKey();
            }
        }
        String list = key.replaceAll("\\[[0-9]+\\]$", "");
        return !list.equals(key) && known.get(list) != null
                && Collection.class.isAssignableFrom(known.get(list).getType()) ? list : null;
    }

    private void environmentVariable(String variable, Object value) {
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
            forms.add(normalise(form.toString()));
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
        } else if (value instanceof List<?> list && isSection(key + "[0]")) {
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
        return name != null && known.get(name) != null && Map.class.isAssignableFrom(known.get(name).getType());
    }

    private boolean isSection(String key) {
        return sections.stream().anyMatch(p -> p.matcher(key).matches());
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
            if (name != null && known.get(name) != null && end == key.lastIndexOf('.')
                    && Map.class.isAssignableFrom(known.get(name).getType())) {
                return; // one key of a map-typed setting (a plan's policies), used as written
            }
            if (name != null && known.get(name) != null) {
                errors.add(key.substring(0, end) + ": '{" + key.substring(end + 1) + "=" + value + "}' is not "
                        + Spelling.describe(known.get(name)));
                return;
            }
        }
        if (key.startsWith(ROOT + ".routes.")) {
            errors.add(raw + ": gridlimit.routes is written as a map; it is a list (one '- pattern: …' per rule)");
            return;
        }
        if (isSection(key)) {
            errors.add(raw + ": '" + value + "' is not a map of settings, or is empty");
            return;
        }
        for (String name : known.keySet()) {
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
            for (String candidate : Spelling.candidates(known.keySet(), form)) {
                int d = Spelling.distance(form, candidate);
                if (d < best) {
                    best = d;
                    nearest = candidate;
                }
            }
        }
        boolean inSection = forms.stream().anyMatch(f -> f.split("\\.").length > 2
                && isSection(f.substring(0, f.indexOf('.', ROOT.length() + 1))));
        if (shared && best > 2 && !inSection) {
            ignored.add(raw);
        } else {
            errors.add(raw + ": unknown property" + (best > Math.max(3, raw.length() / 4) ? ""
                    : "; did you mean " + nearest + "?"));
        }
    }

    private void typed(String path, String name, Object value) {
        Argument<?> type = known.get(name);
        if (type == null || Collection.class.isAssignableFrom(type.getType()) || value instanceof Collection) {
            return;
        }
        String text = String.valueOf(value).trim();
        Class<?> t = type.getType();
        boolean integral = t == int.class || t == long.class || t == Integer.class || t == Long.class;
        boolean ok = (t == boolean.class || t == Boolean.class) ? text.matches("(?i)true|false")
                : (!integral || INTEGER.matcher(text).matches())
                && context.getConversionService().convert(value, type).isPresent();
        if (!ok) {
            errors.add(path + ": '" + value + "' is not " + Spelling.describe(type));
        } else if (integral) {
            // the component's Jakarta @Min/@Max, checked on the value as written
            long min = type.getAnnotationMetadata().longValue(Min.class, "value").orElse(Long.MIN_VALUE);
            long max = type.getAnnotationMetadata().longValue(Max.class, "value").orElse(Long.MAX_VALUE);
            BigDecimal v = new BigDecimal(text);
            if (v.compareTo(BigDecimal.valueOf(min)) < 0 || v.compareTo(BigDecimal.valueOf(max)) > 0) {
                errors.add(path + ": '" + text + "' is out of range [" + min + ", " + max + "]");
            }
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
                errors.add(PolicyDefinitions.nameError(path, segment)); // the one name rule, shared with the admin API
            }
        }
    }
}
