package io.gridlimit.grid.catalog;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryMergedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.gridlimit.api.Policy;
import io.gridlimit.grid.catalog.PolicyCatalog;
import io.gridlimit.grid.catalog.PolicyRecord;
import io.gridlimit.grid.owner.SeenPolicies;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Internal to grid-core: not API; public for {@code PolicyCatalog}, whose part it is.
 *
 * <p>This instance's local copy of the catalog's policy records (docs/SPEC.md §11, "Local copies"), kept current by
 * the entry listener it is ({@link PolicyCatalog#POLICIES_MAP}'s events) and by each change made here: a record is
 * taken only when newer than the one held; every newer version is handed to the member's {@link SeenPolicies} (null
 * on a client) and to the change listeners. Reads are one map read. Thread-safe.
 */
public final class CatalogCopy implements EntryAddedListener<String, PolicyRecord>,
        EntryUpdatedListener<String, PolicyRecord>, EntryMergedListener<String, PolicyRecord> {
    private final ConcurrentHashMap<String, PolicyRecord> local = new ConcurrentHashMap<>();
    private final List<Consumer<PolicyRecord>> listeners = new CopyOnWriteArrayList<>();
    private final SeenPolicies seen;

    /** @param seen the member's seen policies, or null on a client */
    public CatalogCopy(SeenPolicies seen) {
        this.seen = seen;
    }

    /** Takes a record into the local copy when it is newer than the one held; notifies the listeners. */
    public void apply(PolicyRecord record) {
        if (record == null) {
            return;
        }
        boolean[] newer = {false};
        local.compute(record.name(), (n, held) -> {
            if (held == null || record.version() > held.version()) {
                newer[0] = true;
                return record;
            }
            return held;
        });
        if (!newer[0]) {
            return;
        }
        if (seen != null) {
            if (record.live()) {
                seen.rememberVersion(record.version(), record.policy());
            }
            for (SeenPolicies.Versioned v : record.earlier()) {
                seen.rememberVersion(v.version(), v.policy());
            }
        }
        for (Consumer<PolicyRecord> l : listeners) {
            try {
                l.accept(record);
            } catch (RuntimeException e) {
                // a listener's failure never stops the copy from being current
            }
        }
    }

    /** Adds a listener called with every newer record taken. */
    public void onChange(Consumer<PolicyRecord> listener) {
        listeners.add(listener);
    }

    /** @return the record held of a name, a deletion included, or null */
    public PolicyRecord get(String name) {
        return local.get(name);
    }

    /** @return whether a new name would exceed {@code maxNames} */
    public boolean fullFor(String name, int maxNames) {
        return !local.containsKey(name) && local.size() >= maxNames;
    }

    /** @return the live records, by name */
    public List<PolicyRecord> live() {
        List<PolicyRecord> out = new ArrayList<>();
        for (PolicyRecord r : local.values()) {
            if (r.live()) {
                out.add(r);
            }
        }
        out.sort(Comparator.comparing(PolicyRecord::name));
        return out;
    }

    /** @return the catalog version of {@code policy} when it is the current one of its name, else 0 */
    public long versionOf(Policy policy) {
        PolicyRecord r = local.get(policy.name());
        return r != null && r.live() && (r.policy() == policy || r.policy().equals(policy)) ? r.version() : 0;
    }

    @Override
    public void entryAdded(EntryEvent<String, PolicyRecord> event) {
        apply(event.getValue());
    }

    @Override
    public void entryUpdated(EntryEvent<String, PolicyRecord> event) {
        apply(event.getValue());
    }

    @Override
    public void entryMerged(EntryEvent<String, PolicyRecord> event) {
        apply(event.getValue());
    }
}
