package io.gridlimit.algorithm;

import java.util.Arrays;
import java.util.Objects;

/**
 * The state of a key that has handed out reservations (docs/SPEC.md §10): the limiter state proper
 * ({@link #inner()}) and what the owner needs to settle each reservation exactly once.
 *
 * <ul>
 *   <li>{@link #stateId()} and the secret ({@link #secretHigh()}, {@link #secretLow()}): drawn at random on the
 *   owner when the key's first reservation is taken, kept with the state (and so on its backups and through
 *   migrations). A reservation carries the state id and an HMAC keyed with the secret; a state that was lost or
 *   expired has another id, so its old reservations are unknown.</li>
 *   <li>{@link #nextId()}: the id of the next reservation; ids start at 1.</li>
 *   <li>{@link #holdUntilNanos()}: the latest expiry of any reservation handed out; the state is held (its TTL)
 *   at least until then, so that every reservation can be settled until it expires.</li>
 *   <li>{@link #closedBelow()}: ids below it can no longer be settled (their reserved cost stands).</li>
 *   <li>the settle records, oldest id first: reservation id, its expiry and the actual cost settled, so a retried
 *   settle changes nothing. A record is dropped once its reservation has expired; at most
 *   {@link #MAX_SETTLE_RECORDS} are kept, and a settle that would keep more first closes the oldest record's id and
 *   every id below it.</li>
 * </ul>
 * Immutable and thread-safe: the arrays are copied in and out.
 */
public final class ReservedState implements LimiterState {
    /** Most settle records one key keeps. */
    public static final int MAX_SETTLE_RECORDS = 1024;
    /** Most open leases one key grants (docs/SPEC.md §13). */
    public static final int MAX_LEASES = 64;
    private static final long[] NONE = new long[0];

    private final LimiterState inner;
    private final long stateId;
    private final long secretHigh;
    private final long secretLow;
    private final long nextId;
    private final long holdUntilNanos;
    private final long closedBelow;
    final long[] settledIds;
    final long[] settledExpiresAtNanos;
    final long[] settledActuals;
    final long[] leaseIds;
    final long[] leaseUnits;
    final long[] leaseEndsAtNanos;
    final long[] leaseHolderHigh;
    final long[] leaseHolderLow;
    private final long expiredThroughNanos;
    private final long lastFullNanos;

    /**
     * Creates a state, copying the arrays.
     *
     * @param inner the limiter state proper: a single-algorithm or composite state, never a reserved one
     * @param stateId the state's id
     * @param secretHigh the upper 64 bits of the state's signing secret
     * @param secretLow the lower 64 bits of the state's signing secret
     * @param nextId the next reservation's id, >= 1
     * @param holdUntilNanos the latest expiry of a reservation handed out, epoch nanoseconds
     * @param closedBelow ids below it can no longer be settled, in [1, nextId]
     * @param settledIds settled reservation ids, strictly increasing, in [closedBelow, nextId)
     * @param settledExpiresAtNanos their expiries, epoch nanoseconds
     * @param settledActuals the actual cost each was settled with, >= 0
     * @throws IllegalArgumentException if a value is out of its range or the arrays differ in length
     * @throws NullPointerException if {@code inner} or an array is null
     */
    public ReservedState(LimiterState inner, long stateId, long secretHigh, long secretLow, long nextId,
                         long holdUntilNanos, long closedBelow, long[] settledIds, long[] settledExpiresAtNanos,
                         long[] settledActuals) {
        this(inner, stateId, secretHigh, secretLow, nextId, holdUntilNanos, closedBelow, settledIds.clone(),
                settledExpiresAtNanos.clone(), settledActuals.clone(), NONE, NONE, NONE, NONE, NONE, Long.MIN_VALUE,
                Long.MIN_VALUE, true);
    }

    /**
     * Creates a state with open leases (docs/SPEC.md §13), copying the arrays.
     *
     * @param inner the limiter state proper: a single-algorithm or composite state, never a reserved one
     * @param stateId the state's id
     * @param secretHigh the upper 64 bits of the state's signing secret
     * @param secretLow the lower 64 bits of the state's signing secret
     * @param nextId the next reservation's id, >= 1
     * @param holdUntilNanos the latest expiry of a reservation handed out, epoch nanoseconds
     * @param closedBelow ids below it can no longer be settled, in [1, nextId]
     * @param settledIds settled reservation ids, strictly increasing, in [closedBelow, nextId)
     * @param settledExpiresAtNanos their expiries, epoch nanoseconds
     * @param settledActuals the actual cost each was settled with, >= 0
     * @param leaseIds the open leases' reservation ids, each below {@code nextId}
     * @param leaseUnits their units, each in [1, 10^15]
     * @param leaseEndsAtNanos their ends, epoch nanoseconds, non-decreasing
     * @param leaseHolderHigh the upper 64 bits of each holder's UUID
     * @param leaseHolderLow the lower 64 bits of each holder's UUID
     * @param expiredThroughNanos every reservation expiring at or before it is expired, whatever the reading (its
     *     settle record may have been dropped: a clock step back must not make it settleable again); epoch
     *     nanoseconds, {@link Long#MIN_VALUE} for none
     * @param lastFullNanos the latest reading at which a token-bucket or GCRA band was found full (SPEC §10: a
     *     reservation taken before it gives nothing back); epoch nanoseconds, {@link Long#MIN_VALUE} for never
     * @throws IllegalArgumentException if a value is out of its range or the arrays of one kind differ in length
     * @throws NullPointerException if {@code inner} or an array is null
     */
    public ReservedState(LimiterState inner, long stateId, long secretHigh, long secretLow, long nextId,
                         long holdUntilNanos, long closedBelow, long[] settledIds, long[] settledExpiresAtNanos,
                         long[] settledActuals, long[] leaseIds, long[] leaseUnits, long[] leaseEndsAtNanos,
                         long[] leaseHolderHigh, long[] leaseHolderLow, long expiredThroughNanos,
                         long lastFullNanos) {
        this(inner, stateId, secretHigh, secretLow, nextId, holdUntilNanos, closedBelow, settledIds.clone(),
                settledExpiresAtNanos.clone(), settledActuals.clone(), leaseIds.clone(), leaseUnits.clone(),
                leaseEndsAtNanos.clone(), leaseHolderHigh.clone(), leaseHolderLow.clone(), expiredThroughNanos,
                lastFullNanos, true);
    }

    ReservedState(LimiterState inner, long stateId, long secretHigh, long secretLow, long nextId,
                  long holdUntilNanos, long closedBelow, long[] settledIds, long[] settledExpiresAtNanos,
                  long[] settledActuals, long[] leaseIds, long[] leaseUnits, long[] leaseEndsAtNanos,
                  long[] leaseHolderHigh, long[] leaseHolderLow, long expiredThroughNanos, long lastFullNanos,
                  boolean check) {
        Objects.requireNonNull(inner, "inner");
        if (check) {
            if (inner instanceof ReservedState) {
                throw new IllegalArgumentException("inner must not be a reserved state");
            }
            if (nextId < 1 || closedBelow < 1 || closedBelow > nextId) {
                throw new IllegalArgumentException("nextId " + nextId + " and closedBelow " + closedBelow
                        + " must satisfy 1 <= closedBelow <= nextId");
            }
            int n = settledIds.length;
            if (settledExpiresAtNanos.length != n || settledActuals.length != n || n > MAX_SETTLE_RECORDS) {
                throw new IllegalArgumentException("settle records must be 0 to " + MAX_SETTLE_RECORDS
                        + " of equal length, got " + n + ", " + settledExpiresAtNanos.length + ", "
                        + settledActuals.length);
            }
            for (int i = 0; i < n; i++) {
                if (settledIds[i] < closedBelow || settledIds[i] >= nextId || (i > 0 && settledIds[i] <= settledIds[i - 1])
                        || settledActuals[i] < 0) {
                    throw new IllegalArgumentException("settle record " + i + " (id " + settledIds[i] + ", actual "
                            + settledActuals[i] + ") is out of order or range");
                }
            }
            int m = leaseIds.length;
            if (leaseUnits.length != m || leaseEndsAtNanos.length != m || leaseHolderHigh.length != m
                    || leaseHolderLow.length != m || m > MAX_SETTLE_RECORDS) {
                throw new IllegalArgumentException("leases must be 0 to " + MAX_SETTLE_RECORDS
                        + " of equal length, got " + m + ", " + leaseUnits.length + ", " + leaseEndsAtNanos.length
                        + ", " + leaseHolderHigh.length + ", " + leaseHolderLow.length);
            }
            for (int i = 0; i < m; i++) {
                if (leaseIds[i] >= nextId || leaseUnits[i] < 1 || leaseUnits[i] > io.gridlimit.api.Band.MAX_QUANTITY
                        || (i > 0 && leaseEndsAtNanos[i] < leaseEndsAtNanos[i - 1])) {
                    throw new IllegalArgumentException("lease " + i + " (id " + leaseIds[i] + ", units "
                            + leaseUnits[i] + ", end " + leaseEndsAtNanos[i] + ") is out of order or range");
                }
            }
        }
        this.inner = inner;
        this.stateId = stateId;
        this.secretHigh = secretHigh;
        this.secretLow = secretLow;
        this.nextId = nextId;
        this.holdUntilNanos = holdUntilNanos;
        this.closedBelow = closedBelow;
        this.settledIds = settledIds.length == 0 ? NONE : settledIds;
        this.settledExpiresAtNanos = settledExpiresAtNanos.length == 0 ? NONE : settledExpiresAtNanos;
        this.settledActuals = settledActuals.length == 0 ? NONE : settledActuals;
        this.leaseIds = leaseIds.length == 0 ? NONE : leaseIds;
        this.leaseUnits = leaseUnits.length == 0 ? NONE : leaseUnits;
        this.leaseEndsAtNanos = leaseEndsAtNanos.length == 0 ? NONE : leaseEndsAtNanos;
        this.leaseHolderHigh = leaseHolderHigh.length == 0 ? NONE : leaseHolderHigh;
        this.leaseHolderLow = leaseHolderLow.length == 0 ? NONE : leaseHolderLow;
        this.expiredThroughNanos = expiredThroughNanos;
        this.lastFullNanos = lastFullNanos;
    }

    /** @return the reading the limiter state was last written with ({@link #inner()}'s) */
    @Override
    public long lastNanos() {
        return inner.lastNanos();
    }

    /** @return the limiter state proper, never null, never a reserved state */
    public LimiterState inner() {
        return inner;
    }

    /** @return the state's id, which every reservation from it carries */
    public long stateId() {
        return stateId;
    }

    /** @return the upper 64 bits of the signing secret */
    public long secretHigh() {
        return secretHigh;
    }

    /** @return the lower 64 bits of the signing secret */
    public long secretLow() {
        return secretLow;
    }

    /** @return the next reservation's id, >= 1 */
    public long nextId() {
        return nextId;
    }

    /** @return the latest expiry of a reservation handed out, epoch nanoseconds */
    public long holdUntilNanos() {
        return holdUntilNanos;
    }

    /** @return ids below it can no longer be settled */
    public long closedBelow() {
        return closedBelow;
    }

    /** @return a copy of the settled ids, increasing */
    public long[] settledIds() {
        return settledIds.clone();
    }

    /** @return a copy of the settled reservations' expiries, in the order of {@link #settledIds()} */
    public long[] settledExpiresAtNanos() {
        return settledExpiresAtNanos.clone();
    }

    /** @return a copy of the actual costs settled, in the order of {@link #settledIds()} */
    public long[] settledActuals() {
        return settledActuals.clone();
    }

    /** @return a copy of the open leases' reservation ids, in the order of their ends */
    public long[] leaseIds() {
        return leaseIds.clone();
    }

    /** @return a copy of the open leases' units */
    public long[] leaseUnits() {
        return leaseUnits.clone();
    }

    /** @return a copy of the open leases' ends, epoch nanoseconds, non-decreasing */
    public long[] leaseEndsAtNanos() {
        return leaseEndsAtNanos.clone();
    }

    /** @return a copy of the upper 64 bits of each open lease's holder UUID */
    public long[] leaseHolderHigh() {
        return leaseHolderHigh.clone();
    }

    /** @return a copy of the lower 64 bits of each open lease's holder UUID */
    public long[] leaseHolderLow() {
        return leaseHolderLow.clone();
    }

    /** @return the number of open leases */
    public int leaseCount() {
        return leaseIds.length;
    }

    /**
     * @return every reservation expiring at or before it is expired whatever the reading, epoch nanoseconds;
     *     {@link Long#MIN_VALUE} for none
     */
    public long expiredThroughNanos() {
        return expiredThroughNanos;
    }

    /**
     * @return the latest reading at which a token-bucket or GCRA band was found full, epoch nanoseconds;
     *     {@link Long#MIN_VALUE} for never
     */
    public long lastFullNanos() {
        return lastFullNanos;
    }

    /** @return the same reservation bookkeeping and leases around another limiter state */
    ReservedState withInner(LimiterState newInner) {
        return new ReservedState(newInner, stateId, secretHigh, secretLow, nextId, holdUntilNanos, closedBelow,
                settledIds, settledExpiresAtNanos, settledActuals, leaseIds, leaseUnits, leaseEndsAtNanos,
                leaseHolderHigh, leaseHolderLow, expiredThroughNanos, lastFullNanos, false);
    }

    /** @return this state having seen a bucket band full at {@code nowNanos} (the later of the two readings) */
    ReservedState seenFull(long nowNanos) {
        return nowNanos <= lastFullNanos ? this : new ReservedState(inner, stateId, secretHigh, secretLow, nextId,
                holdUntilNanos, closedBelow, settledIds, settledExpiresAtNanos, settledActuals, leaseIds, leaseUnits,
                leaseEndsAtNanos, leaseHolderHigh, leaseHolderLow, expiredThroughNanos, nowNanos, false);
    }

    /** @return the same state with only the leases at the given indexes (ascending), around {@code newInner} */
    ReservedState withLeases(LimiterState newInner, long[] ids, long[] units, long[] ends, long[] high, long[] low) {
        return new ReservedState(newInner, stateId, secretHigh, secretLow, nextId, holdUntilNanos, closedBelow,
                settledIds, settledExpiresAtNanos, settledActuals, ids, units, ends, high, low, expiredThroughNanos,
                lastFullNanos, false);
    }

    /**
     * @return this state with every reservation expiring at or before {@code nanos} expired whatever the reading (the
     *     later of {@code nanos} and {@link #expiredThroughNanos()}: it never moves back)
     */
    ReservedState expiredThrough(long nanos) {
        return nanos <= expiredThroughNanos ? this : new ReservedState(inner, stateId, secretHigh, secretLow, nextId,
                holdUntilNanos, closedBelow, settledIds, settledExpiresAtNanos, settledActuals, leaseIds, leaseUnits,
                leaseEndsAtNanos, leaseHolderHigh, leaseHolderLow, nanos, lastFullNanos, false);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof ReservedState s && inner.equals(s.inner) && stateId == s.stateId
                && secretHigh == s.secretHigh && secretLow == s.secretLow && nextId == s.nextId
                && holdUntilNanos == s.holdUntilNanos && closedBelow == s.closedBelow
                && Arrays.equals(settledIds, s.settledIds) && Arrays.equals(settledExpiresAtNanos,
                s.settledExpiresAtNanos) && Arrays.equals(settledActuals, s.settledActuals)
                && Arrays.equals(leaseIds, s.leaseIds) && Arrays.equals(leaseUnits, s.leaseUnits)
                && Arrays.equals(leaseEndsAtNanos, s.leaseEndsAtNanos) && Arrays.equals(leaseHolderHigh,
                s.leaseHolderHigh) && Arrays.equals(leaseHolderLow, s.leaseHolderLow)
                && expiredThroughNanos == s.expiredThroughNanos && lastFullNanos == s.lastFullNanos);
    }

    @Override
    public int hashCode() {
        return Objects.hash(inner, stateId, nextId, holdUntilNanos, closedBelow, Arrays.hashCode(settledIds));
    }

    /** @return a description without the secret */
    @Override
    public String toString() {
        return "ReservedState{" + inner + " stateId=" + stateId + " nextId=" + nextId + " holdUntilNanos="
                + holdUntilNanos + " closedBelow=" + closedBelow + " settled=" + settledIds.length
                + (leaseIds.length == 0 ? "" : " leases=" + leaseIds.length) + "}";
    }
}
