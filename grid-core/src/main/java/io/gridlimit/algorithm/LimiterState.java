package io.gridlimit.algorithm;

/**
 * The stored state of one key under one policy: an immutable value the grid keeps between decisions.
 *
 * <p>Each algorithm has its own state type; a {@link CompositeState} holds one band state per band name. A state
 * of another type than the band's algorithm (the policy's algorithm changed) is treated as absent by the decision
 * functions; the grid carries it over to the new band first ({@link CarryOver}, SPEC §4). A {@link ReservedState}
 * wraps one of these with the bookkeeping of reservations (SPEC §10). States are produced by
 * {@link RateLimitAlgorithms} and rebuilt by the grid's Compact serializer
 * through each class's public all-args constructor. Immutable and thread-safe.
 */
public sealed interface LimiterState
        permits TokenBucketState, GcraState, FixedWindowState, SlidingWindowLogState, SlidingWindowCounterState,
        CalendarState, CompositeState, ReservedState {
    /**
     * Returns the time reading this state was last written with (SPEC §2); a later reading that is smaller is a
     * clock step back and rebases the state before the next decision.
     *
     * @return epoch nanoseconds
     */
    long lastNanos();
}
