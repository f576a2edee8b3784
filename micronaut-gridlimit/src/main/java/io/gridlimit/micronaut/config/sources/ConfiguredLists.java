package io.gridlimit.micronaut.config.sources;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.context.env.MapPropertySource;
import io.micronaut.context.env.PropertySource;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.NameUtils;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GridLimit's lists as the README promises them: a list set in a property source of higher precedence replaces the
 * whole list of the lower ones, never merges with it entry by entry. Every top-level list is one
 * ({@link KnownNames#topLevelLists()}: {@code gridlimit.routes} with each route's {@code key} and {@code methods},
 * {@code gridlimit.exempt}, {@code gridlimit.client-ip.trusted-proxies}, {@code gridlimit.hazelcast.members} and
 * {@code .interfaces}, {@code gridlimit.envoy-rls.config-files}); maps (policies, bands, plans) keep Micronaut's
 * merge.
 *
 * <p>Why this exists: Micronaut merges property sources key by key. A list from a lower source leaves its entries'
 * keys ({@code gridlimit.routes[0].methods}) behind under a higher source's shorter list, and an indexed key
 * ({@code gridlimit.routes[0].policy=api}) edits the lower list in place, so an override file's route inherited the
 * jar's {@code methods: [GET]} and left POST unlimited. And it binds no list written only entry by entry inside a
 * list's entry ({@code gridlimit.routes[0].key[0]=header:X-User} alone leaves {@code routes[0].key} unset).
 *
 * <p>So each list is read here from the property sources as written: the source of highest precedence
 * ({@link PropertySource#getOrder()}, later wins, as Micronaut orders them) holding any entry of the list (the list
 * itself, {@code <list>=a,b}, {@code <list>[i]…}; for environment variables the comma form {@code GRIDLIMIT_EXEMPT=/a,/b},
 * the only one Micronaut binds) gives the whole list, built from its entries alone. The result is published into the
 * environment as two property sources of the highest precedence: the first ({@value #CLEARED}) sets every indexed key
 * lower sources left under the list to null (absent to every reader), the second ({@value #RESOLVED}) sets the list,
 * which Micronaut expands into every indexed key, nested lists included. So every reader (the typed configuration,
 * {@code @EachProperty} routes, the Envoy settings) binds the replaced lists. Published once per environment, before
 * any bean is created ({@link GridLimitContextConfigurer}), else by {@link ConfigurationSources}; an environment
 * refreshed later keeps the lists resolved at boot (GridLimit reads its configuration at boot only). Not thread-safe
 * while built; immutable once published.
 */
public final class ConfiguredLists {
    /** The name of the property source that clears what lower sources left under a replaced list. */
    static final String CLEARED = "gridlimit-lists-cleared";
    /** The name of the property source that holds every resolved list. */
    static final String RESOLVED = "gridlimit-lists";
    private static final Pattern INDEX = Pattern.compile("^\\[([0-9]+)\\]");
    private static final Pattern FIELD = Pattern.compile("^\\.([^.\\[]+)");

    private final KnownNames names;
    private final Map<String, Object> lists = new LinkedHashMap<>();
    private final Set<String> stale = new LinkedHashSet<>();
    private final Set<String> errors = new TreeSet<>();

    private ConfiguredLists(KnownNames names) {
        this.names = names;
    }

    /**
     * The lists of this context, published into its environment if that has not been done yet.
     *
     * @param context a context whose environment has read its property sources
     * @return the published lists, never null
     */
    public static ConfiguredLists publish(ApplicationContext context) {
        Environment environment = context.getEnvironment();
        Optional<ConfiguredLists> done = environment.getPropertySources().stream()
                .filter(s -> s instanceof Published).map(s -> ((Published) s).lists).findFirst();
        if (done.isPresent()) {
            return done.get();
        }
        ConfiguredLists lists = new ConfiguredLists(new KnownNames(context));
        lists.resolve(environment);
        Map<String, Object> cleared = new LinkedHashMap<>();
        lists.lists.keySet().forEach(path -> cleared.put(path, new ArrayList<>())); // what clearing expands into
        lists.stale.forEach(key -> cleared.put(key, null));
        environment.addPropertySource(new Published(CLEARED, cleared, Integer.MAX_VALUE - 1, lists));
        environment.addPropertySource(new Published(RESOLVED, new LinkedHashMap<>(lists.lists), Integer.MAX_VALUE,
                lists));
        return lists;
    }

    /** @return true when the source is one {@link #publish} added (never read as the user's own) */
    static boolean isPublished(PropertySource source) {
        return source instanceof Published;
    }

    /** @return the names known in this context */
    KnownNames names() {
        return names;
    }

    /** @return one message per list whose entries are not numbered from 0 without gaps */
    Set<String> errors() {
        return errors;
    }

    /** @return the resolved lists by dotted path, each a list of values as written (maps for routes) */
    Map<String, Object> lists() {
        return lists;
    }

    private void resolve(Environment environment) {
        List<PropertySource> sources = new ArrayList<>(environment.getPropertySources());
        sources.removeIf(ConfiguredLists::isPublished);
        sources.sort(Comparator.comparingInt(PropertySource::getOrder)); // stable: Micronaut's order for ties
        for (String path : names.topLevelLists()) {
            for (int i = sources.size() - 1; i >= 0; i--) {
                List<Object> list = read(sources.get(i), path);
                if (list != null) {
                    lists.put(path, list);
                    holes(path, list, where(sources.get(i)));
                    break;
                }
            }
            for (PropertySource source : sources) {
                if (source.getConvention() != PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE) {
                    entries(source, (key, value) -> collapse(key, value, k -> {
                        if (k.startsWith(path + "[")) {
                            stale.add(k);
                        }
                    }));
                }
            }
        }
    }

    /** The list one source writes at a path, or null when it writes no entry of it. */
    private @Nullable List<Object> read(PropertySource source, String path) {
        if (source.getConvention() == PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE) {
            // Micronaut derives a name by turning each '_' into '.' or '-': only GRIDLIMIT_EXEMPT gives gridlimit.exempt
            String variable = path.replaceAll("[.-]", "_").toUpperCase(Locale.ROOT);
            Object value = source.get(variable);
            return value == null ? null : split(value);
        }
        List<Object> list = new ArrayList<>();
        boolean[] found = {false};
        Map<String, Object> indexed = new LinkedHashMap<>();
        entries(source, (key, value) -> {
            if (key.equals(path)) {
                found[0] = true;
                list.addAll(value instanceof List<?> l ? copy(l) : value instanceof CharSequence ? split(value)
                        : List.of(value));
            } else if (key.startsWith(path + "[")) {
                found[0] = true;
                indexed.put(key.substring(path.length()), value);
            } else if (key.startsWith(path + ".")) {
                found[0] = true; // a map where a list belongs: PropertyCheck refuses it
            }
        });
        indexed.forEach((rest, value) -> set(list, rest, value));
        return found[0] ? list : null;
    }

    /** Every key of a source in Micronaut's form (kebab case), maps opened into dotted keys, lists kept whole. */
    private static void entries(PropertySource source, BiConsumer<String, Object> consumer) {
        for (String key : source) {
            open(NameUtils.hyphenate(key, true), source.get(key), consumer);
        }
    }

    private static void open(String key, @Nullable Object value, BiConsumer<String, Object> consumer) {
        if (value instanceof Map<?, ?> map && !map.isEmpty()) {
            map.forEach((k, v) -> open(key + "." + k, v, consumer));
        } else if (value != null) {
            consumer.accept(key, value);
        }
    }

    /** The keys Micronaut's catalog derives from one entry (its collapse of lists and maps). */
    private static void collapse(String key, Object value, java.util.function.Consumer<String> keys) {
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i) != null) {
                    collapse(key + "[" + i + "]", list.get(i), keys);
                }
            }
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> collapse(key + "." + k, v, keys));
            return;
        }
        keys.accept(key);
    }

    /** Sets {@code rest} ({@code [0].key[1]}) below a list, creating entries as Micronaut's expansion does. */
    @SuppressWarnings("unchecked")
    private static void set(List<Object> list, String rest, Object value) {
        Matcher index = INDEX.matcher(rest);
        if (!index.find()) {
            return; // [x] that is no index: PropertyCheck refuses it
        }
        int i = Integer.parseInt(index.group(1));
        while (list.size() <= i) {
            list.add(null);
        }
        String after = rest.substring(index.end());
        if (after.isEmpty()) {
            list.set(i, value instanceof List<?> l ? copy(l) : value instanceof Map<?, ?> m ? copy(m) : value);
            return;
        }
        if (!(list.get(i) instanceof Map<?, ?>)) {
            list.set(i, new LinkedHashMap<String, Object>());
        }
        Map<String, Object> entry = (Map<String, Object>) list.get(i);
        Matcher field = FIELD.matcher(after);
        if (!field.find()) {
            return;
        }
        String name = field.group(1);
        String below = after.substring(field.end());
        if (below.isEmpty()) {
            entry.put(name, value instanceof List<?> l ? copy(l) : value);
        } else if (below.startsWith("[")) {
            if (!(entry.get(name) instanceof List<?>)) {
                entry.put(name, new ArrayList<>());
            }
            set((List<Object>) entry.get(name), below, value);
        } else {
            entry.put(name + below, value); // deeper than any GridLimit list: kept for PropertyCheck to refuse
        }
    }

    /** Micronaut's reading of text as a list: split at every comma, nothing trimmed. */
    private static List<Object> split(Object text) {
        return new ArrayList<>(List.of((Object[]) text.toString().split(",")));
    }

    private static List<Object> copy(List<?> list) {
        List<Object> out = new ArrayList<>();
        list.forEach(v -> out.add(v instanceof List<?> l ? copy(l) : v instanceof Map<?, ?> m ? copy(m) : v));
        return out;
    }

    private static Map<Object, Object> copy(Map<?, ?> map) {
        Map<Object, Object> out = new LinkedHashMap<>();
        map.forEach((k, v) -> out.put(k, v instanceof List<?> l ? copy(l) : v instanceof Map<?, ?> m ? copy(m) : v));
        return out;
    }

    /** Records an entry missing before a later one (indices written with a gap), in the list or one of its entries. */
    private void holes(String path, List<?> list, String where) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) {
                errors.add(path + "[" + i + "]: missing: " + where + " sets " + path + "[" + (list.size() - 1)
                        + "] but not " + path + "[" + i + "]; a list set in one place replaces the whole list of "
                        + "lower-precedence sources, so number its entries from 0 without gaps");
            } else if (list.get(i) instanceof Map<?, ?> entry) {
                int index = i;
                entry.forEach((k, v) -> {
                    if (v instanceof List<?> nested) {
                        holes(path + "[" + index + "]." + k, nested, where);
                    }
                });
            }
        }
    }

    private static String where(PropertySource source) {
        return source.getConvention() == PropertySource.PropertyConvention.ENVIRONMENT_VARIABLE
                ? "an environment variable" : source.getName().equals("system") ? "a system property"
                : "'" + source.getOrigin().location() + "'";
    }

    /** A property source {@link #publish} added, holding the lists it was made from. */
    private static final class Published extends MapPropertySource {
        private final int order;
        private final ConfiguredLists lists;

        Published(String name, Map<String, Object> map, int order, ConfiguredLists lists) {
            super(name, map);
            this.order = order;
            this.lists = lists;
        }

        @Override
        public int getOrder() {
            return order;
        }
    }
}
