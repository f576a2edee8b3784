package io.gridlimit.algorithm;

import java.util.Objects;

/**
 * The owner's answer to a lease request (docs/SPEC.md §13): the outcome to store and answer with, the units granted
 * and the lease's end. With {@link #grantedUnits()} 0 nothing was leased and {@link #outcome()} is the request's
 * own decision (or reservation), as without leases. With {@code g > 0} the outcome's decision is the reservation of
 * the {@code g} units (its {@code remaining}, {@code resetAfter} are the owner's after the grant) and the request in
 * hand is the first of them. Immutable and thread-safe.
 *
 * @param outcome the outcome to store (when {@link Outcome#write()}) and answer with, never null
 * @param grantedUnits the units leased, 0 for none, else at least the request's cost
 * @param leaseEndNanos the lease's end in owner time, epoch nanoseconds; 0 when nothing was leased
 */
public record LeaseGrant(Outcome outcome, long grantedUnits, long leaseEndNanos) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if {@code outcome} is null
     * @throws IllegalArgumentException if {@code grantedUnits} is negative, or positive without a reservation
     */
    public LeaseGrant {
        Objects.requireNonNull(outcome, "outcome");
        if (grantedUnits < 0 || (grantedUnits > 0 && outcome.decision().reservation() == null)) {
            throw new IllegalArgumentException("grantedUnits must be 0, or > 0 with a reservation, got "
                    + grantedUnits);
        }
    }

    static LeaseGrant none(Outcome outcome) {
        return new LeaseGrant(outcome, 0, 0);
    }
}
