package io.gridlimit.grid.catalog;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.gridlimit.grid.catalog.PolicyCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Internal to grid-core: not API; public for {@code PolicyCatalog}, whose part it is.
 *
 * <p>The local copy of the catalog's per-key overrides (docs/SPEC.md §11), by policy then key, so that a lookup on the
 * decision path builds no string (the map's own key is {@code <policy>|<key>}, {@link #key}); kept current by the
 * entry listener it is ({@link PolicyCatalog#OVERRIDES_MAP}'s events) and by each change made here. Thread-safe.
 */
public final class LocalOverrides implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String>,
        EntryRemovedListener<String, String> {
    /** The separator of an override's map key: {@code <policy>|<key>}. */
    static final char OVERRIDE_SEPARATOR = '|';

    private final ConcurrentHashMap<String, ConcurrentHashMap<String, String>> byPolicy = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();

    /** @return the map key of an override: {@code <policy>|<key>} */
    public static String key(String policyName, String key) {
        return policyName + OVERRIDE_SEPARATOR + key;
    }

    public String get(String policyName, String key) {
        ConcurrentHashMap<String, String> keys = byPolicy.get(policyName);
        return keys == null ? null : keys.get(key);
    }

    public boolean containsKey(String mapKey) {
        int bar = mapKey.indexOf(OVERRIDE_SEPARATOR);
        return get(mapKey.substring(0, bar), mapKey.substring(bar + 1)) != null;
    }

    public void put(String mapKey, String target) {
        int bar = mapKey.indexOf(OVERRIDE_SEPARATOR);
        if (byPolicy.computeIfAbsent(mapKey.substring(0, bar), p -> new ConcurrentHashMap<>())
                .put(mapKey.substring(bar + 1), target) == null) {
            size.incrementAndGet();
        }
    }

    public void remove(String mapKey) {
        int bar = mapKey.indexOf(OVERRIDE_SEPARATOR);
        ConcurrentHashMap<String, String> keys = byPolicy.get(mapKey.substring(0, bar));
        if (keys != null && keys.remove(mapKey.substring(bar + 1)) != null) {
            size.decrementAndGet();
        }
    }

    /** Makes the copy hold exactly {@code all} (map key to target): a reload. */
    public void reload(Map<String, String> all) {
        retainAll(all.keySet());
        all.forEach(this::put);
    }

    private void retainAll(Set<String> mapKeys) {
        List<String> gone = new ArrayList<>();
        forEach((k, v) -> {
            if (!mapKeys.contains(k)) {
                gone.add(k);
            }
        });
        gone.forEach(this::remove);
    }

    private void forEach(BiConsumer<String, String> action) {
        byPolicy.forEach((policy, keys) -> keys.forEach((key, target) ->
                action.accept(policy + OVERRIDE_SEPARATOR + key, target)));
    }

    /** @return the overrides under a policy, key to the other policy's name, sorted by key */
    public Map<String, String> of(String policyName) {
        String prefix = policyName + OVERRIDE_SEPARATOR;
        Map<String, String> out = new TreeMap<>();
        forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    /** @return the map keys of the overrides whose target is a policy */
    public List<String> targeting(String policyName) {
        List<String> out = new ArrayList<>();
        forEach((k, v) -> {
            if (v.equals(policyName)) {
                out.add(k);
            }
        });
        return out;
    }

    public int size() {
        return size.get();
    }

    @Override
    public void entryAdded(EntryEvent<String, String> event) {
        put(event.getKey(), event.getValue());
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> event) {
        put(event.getKey(), event.getValue());
    }

    @Override
    public void entryRemoved(EntryEvent<String, String> event) {
        remove(event.getKey());
    }
}
