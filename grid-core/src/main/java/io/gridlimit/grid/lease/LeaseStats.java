package io.gridlimit.grid.lease;

/**
 * What this replica's leases did since its limiter started (docs/SPEC.md §13): monotonic counts, read for metrics.
 * Immutable.
 *
 * @param asked lease requests sent to owners
 * @param granted lease requests that were granted units
 * @param grantedUnits units granted in all
 * @param unusedUnits units of ended grants that were not used (given back, or lost with a failed give-back)
 * @param leasedDecisions decisions (and reservations) answered from a grant
 * @param localDenials denials answered on this replica from the owner's last denial
 * @param giveBacks give-backs sent at a grant's end
 * @param localSettles settles and give-backs of reservations taken from a grant, applied to it
 * @param lateLocalSettles such settles that came after the grant ended (their reserved cost stood, a charge was lost)
 * @param closedEarly used-up grants closed with a later lease request (their units no longer capping the owner)
 * @param trackedKeys (policy, key) pairs tracked now
 */
public record LeaseStats(long asked, long granted, long grantedUnits, long unusedUnits, long leasedDecisions,
                         long localDenials, long giveBacks, long localSettles, long lateLocalSettles,
                         long closedEarly, long trackedKeys) {
}
