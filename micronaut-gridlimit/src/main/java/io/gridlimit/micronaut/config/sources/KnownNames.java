package io.gridlimit.micronaut.config.sources;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.PropertySource;
import io.micronaut.core.annotation.AnnotationMetadata;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.io.service.SoftServiceLoader;
import io.micronaut.core.type.Argument;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.BeanDefinitionReference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Every {@code gridlimit.*} name the application can set, read from the classpath, not from a list: every
 * {@code @ConfigurationProperties} / {@code @EachProperty} component, {@code @Property} and
 * {@code @Requires(property)} of any bean definition (enabled or not), and {@code ${gridlimit.…}} placeholders in
 * annotations and in the property sources themselves. A name holds {@code *} for a map key (a policy or band name)
 * and {@code [*]} for a list index ({@code gridlimit.routes[*].pattern}). Built once per boot (loading every bean
 * definition takes a fifth of a second), by {@link ConfiguredLists} or else {@link ConfigurationSources}; immutable
 * once built.
 */
final class KnownNames {
    static final String ROOT = "gridlimit";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{\\s*(gridlimit\\.[^:}\\s]+)");

    private final Map<String, Argument<?>> known = new HashMap<>();
    private final Map<String, Pattern> patterns = new HashMap<>();
    private final List<Pattern> sections = new ArrayList<>();

    KnownNames(ApplicationContext context) {
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

    /** @return every known name, with {@code *} and {@code [*]} where a key or an index goes */
    Set<String> names() {
        return known.keySet();
    }

    /** @return the declared type of a known name, or null when only a {@code @Requires} or placeholder names it */
    @Nullable Argument<?> type(String name) {
        return known.get(name);
    }

    /**
     * The known name a key in Micronaut's form ({@code gridlimit.routes[0].key}) stands for; an entry of a list
     * ({@code gridlimit.routes[0].key[1]}, {@code gridlimit.exempt[0]}) stands for the list.
     *
     * @param key a dotted key, kebab case, indices in brackets
     * @return the known name, or null
     */
    @Nullable String match(String key) {
        for (Map.Entry<String, Pattern> p : patterns.entrySet()) {
            if (p.getValue().matcher(key).matches()) {
                return p.getKey();
            }
        }
        String list = key.replaceAll("\\[[0-9]+\\]$", "");
        String name = list.equals(key) ? null : match(list);
        return name != null && isList(name) ? name : null;
    }

    /** @return true when the known name's type is a list */
    boolean isList(String name) {
        return known.get(name) != null && Collection.class.isAssignableFrom(known.get(name).getType());
    }

    /** @return true when the known name's type is a map (a plan's policies: its keys are values) */
    boolean isMap(String name) {
        return known.get(name) != null && Map.class.isAssignableFrom(known.get(name).getType());
    }

    /** @return true when the key is the parent of some known name, such as {@code gridlimit.hazelcast} */
    boolean isSection(String key) {
        return sections.stream().anyMatch(p -> p.matcher(key).matches());
    }

    /**
     * The lists a source replaces as a whole (README "Configuration reference"): every known list-typed name outside
     * a map ({@code gridlimit.exempt}) and every list of settings ({@code gridlimit.routes}, from
     * {@code gridlimit.routes[*].pattern}); a list inside a list's entry ({@code gridlimit.routes[*].key}) comes
     * with its entry.
     *
     * @return dotted paths such as {@code gridlimit.exempt}, sorted
     */
    Set<String> topLevelLists() {
        Set<String> lists = new TreeSet<>();
        for (String name : known.keySet()) {
            int index = name.indexOf("[*]");
            String path = index >= 0 ? name.substring(0, index) : isList(name) ? name : null;
            if (path != null && !path.contains("*")) {
                lists.add(path);
            }
        }
        return lists;
    }
}
