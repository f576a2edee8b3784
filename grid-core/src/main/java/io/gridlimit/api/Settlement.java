package io.gridlimit.api;

import java.util.Objects;

/**
 * The answer to one settle of a {@link Reservation} (docs/SPEC.md §10). Immutable and thread-safe.
 *
 * @param status what the owner did
 * @param actual the actual cost that stands for this reservation: the one just settled ({@link Status#SETTLED}),
 *     the one of the first settle ({@link Status#ALREADY_SETTLED}); otherwise the reserved cost, which stands
 * @param excess the cost the owner did not charge because a band's maximum debt would have been exceeded (the
 *     largest over the bands), >= 0; 0 unless {@link Status#SETTLED}
 * @param debt whether a band's balance is below zero after this settle (a debt later requests repay); false
 *     unless {@link Status#SETTLED}
 */
public record Settlement(Status status, long actual, long excess, boolean debt) {
    /** What a settle did. */
    public enum Status {
        /** Settled now: the unused part given back, or the rest charged (up to each band's maximum debt). */
        SETTLED("settled"),
        /** Settled before: nothing changed now ({@link #actual()} is the first settle's). */
        ALREADY_SETTLED("already-settled"),
        /** Past its expiry: nothing changed, the reserved cost stands. */
        EXPIRED("expired"),
        /**
         * The key's state no longer holds the reservation: it expired, was lost, or its settle records were closed
         * (too many settles at once on one key, or a split-brain merge). Nothing changed; the reserved cost stands.
         */
        UNKNOWN("unknown"),
        /** The signature does not match: not made by the owner of this key. Nothing changed. */
        FORGED("forged");

        private final String wireName;

        Status(String wireName) {
            this.wireName = wireName;
        }

        /** @return the lower-case name the decision API answers, e.g. {@code "already-settled"} */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * @throws NullPointerException if {@code status} is null
     * @throws IllegalArgumentException if {@code actual} or {@code excess} is negative
     */
    public Settlement {
        Objects.requireNonNull(status, "status");
        if (actual < 0 || excess < 0) {
            throw new IllegalArgumentException("actual and excess must be >= 0, got " + actual + " and " + excess);
        }
    }

    /**
     * A settlement without a debt.
     *
     * @param status what the owner did
     * @param actual the actual cost that stands
     * @param excess the cost not charged, >= 0
     */
    public Settlement(Status status, long actual, long excess) {
        this(status, actual, excess, false);
    }

    /** @return true when the reservation is settled (now or before): a retry changes nothing */
    public boolean isSettled() {
        return status == Status.SETTLED || status == Status.ALREADY_SETTLED;
    }
}
