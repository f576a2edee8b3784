package io.gridlimit.grid.lease;

import io.gridlimit.grid.lease.LeaseStats;
import java.util.concurrent.atomic.LongAdder;

/**
 * The holder side's counters of quota leases (docs/SPEC.md §13): leased, asked and locally denied decisions,
 * grants, give-backs and local settles, read as one {@link LeaseStats}. Thread-safe.
 */
final class LeaseCounters {
    final LongAdder asked = new LongAdder();
    final LongAdder granted = new LongAdder();
    final LongAdder grantedUnits = new LongAdder();
    final LongAdder unusedUnits = new LongAdder();
    final LongAdder leased = new LongAdder();
    final LongAdder deniedLocally = new LongAdder();
    final LongAdder giveBacks = new LongAdder();
    final LongAdder localSettles = new LongAdder();
    final LongAdder lateLocalSettles = new LongAdder();
    final LongAdder closedEarly = new LongAdder();

    /**
     * @param trackedKeys the keys the holder tracks
     * @return the counters as one value
     */
    LeaseStats stats(int trackedKeys) {
        return new LeaseStats(asked.sum(), granted.sum(), grantedUnits.sum(), unusedUnits.sum(), leased.sum(),
                deniedLocally.sum(), giveBacks.sum(), localSettles.sum(), lateLocalSettles.sum(), closedEarly.sum(),
                trackedKeys);
    }
}
