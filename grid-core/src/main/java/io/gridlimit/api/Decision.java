package io.gridlimit.api;

import java.util.Objects;

/**
 * The answer to one request for {@code cost} units of a policy's quota under one key (SPEC §3-4).
 *
 * <p>All durations are in nanoseconds. For a composite policy the values are those of the binding band
 * (SPEC §4); {@link #band()} names it. Immutable and thread-safe.
 */
public final class Decision {
    /** Value of {@link #retryAfterNanos()} when there is no retry-after: admitted, or can never pass. */
    public static final long NO_RETRY = -1L;

    private final boolean allowed;
    private final long limit;
    private final long remaining;
    private final long resetAfterNanos;
    private final long retryAfterNanos;
    private final String band;
    private final Reservation reservation;
    /** The catalog version of the policy this decision used (SPEC §11); 0 when not from the catalog. */
    private final long policyVersion;

    /**
     * Creates a decision.
     *
     * @param allowed whether the request is admitted
     * @param limit the binding band's quota (capacity or window limit), in [1, 10^15]
     * @param remaining what is left after this request when admitted, or now when denied, in [0, limit]
     * @param resetAfterNanos nanoseconds until the binding band is back to its full quota, >= 0
     * @param retryAfterNanos on a denial that can pass, the least nanoseconds after which the same cost would
     *     be admitted (> 0); otherwise {@link #NO_RETRY}
     * @param band the binding band's name for a composite policy, else null
     * @throws IllegalArgumentException if a value is out of its range
     */
    public Decision(boolean allowed, long limit, long remaining, long resetAfterNanos, long retryAfterNanos,
                    String band) {
        this(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band, null);
    }

    /**
     * Creates a decision that may carry a reservation (docs/SPEC.md §10).
     *
     * @param allowed whether the request is admitted
     * @param limit the binding band's quota (capacity or window limit), in [1, 10^15]
     * @param remaining what is left after this request when admitted, or now when denied, in [0, limit]
     * @param resetAfterNanos nanoseconds until the binding band is back to its full quota, >= 0
     * @param retryAfterNanos on a denial that can pass, the least nanoseconds after which the same cost would
     *     be admitted (> 0); otherwise {@link #NO_RETRY}
     * @param band the binding band's name for a composite policy, else null
     * @param reservation the reservation of an admitted decision taken as one, else null
     * @throws IllegalArgumentException if a value is out of its range, or a denial carries a reservation
     */
    public Decision(boolean allowed, long limit, long remaining, long resetAfterNanos, long retryAfterNanos,
                    String band, Reservation reservation) {
        this(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band, reservation, 0L);
    }

    private Decision(boolean allowed, long limit, long remaining, long resetAfterNanos, long retryAfterNanos,
                     String band, Reservation reservation, long policyVersion) {
        this.policyVersion = policyVersion;
        if (limit < 1 || remaining < 0 || remaining > limit || resetAfterNanos < 0
                || (retryAfterNanos < 0 && retryAfterNanos != NO_RETRY) || (allowed && retryAfterNanos != NO_RETRY)) {
            throw new IllegalArgumentException("inconsistent decision: allowed=" + allowed + " limit=" + limit
                    + " remaining=" + remaining + " resetAfterNanos=" + resetAfterNanos
                    + " retryAfterNanos=" + retryAfterNanos);
        }
        this.allowed = allowed;
        this.limit = limit;
        this.remaining = remaining;
        this.resetAfterNanos = resetAfterNanos;
        this.retryAfterNanos = retryAfterNanos;
        if (reservation != null && !allowed) {
            throw new IllegalArgumentException("a denial carries no reservation");
        }
        this.band = band;
        this.reservation = reservation;
    }

    /**
     * Returns this decision with a reservation attached.
     *
     * @param r the reservation, or null for none
     * @return a decision equal to this one but for its reservation
     * @throws IllegalArgumentException if this is a denial and {@code r} is not null
     */
    public Decision withReservation(Reservation r) {
        return new Decision(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band, r, policyVersion);
    }

    /**
     * Returns a copy of this decision stating the catalog version of the policy it used (SPEC §11).
     *
     * @param version the version, >= 0 (0: not from the grid's policy catalog)
     * @return a decision equal to this one but for {@link #policyVersion()}; this one when already so
     * @throws IllegalArgumentException if {@code version} is negative
     */
    public Decision withPolicyVersion(long version) {
        if (version < 0) {
            throw new IllegalArgumentException("policyVersion must be >= 0, got " + version);
        }
        if (version == policyVersion) {
            return this;
        }
        return new Decision(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band, reservation, version);
    }

    /**
     * Returns the version of the grid's policy catalog the deciding owner used: the newest it knew, which may be
     * newer than the asking replica's (SPEC §11).
     *
     * @return the version, >= 1; 0 when the policy did not come from the catalog
     */
    public long policyVersion() {
        return policyVersion;
    }

    /**
     * Returns the reservation of an admitted decision taken as one ({@link RateLimiter#reserveAsync}): the handle
     * with which its cost can be settled or given back (docs/SPEC.md §10).
     *
     * @return the reservation, or null when the decision is a denial or was not taken as a reservation
     */
    public Reservation reservation() {
        return reservation;
    }

    /**
     * The binding rule among admitted answers (SPEC §4), the one home of that choice for a composite policy's bands
     * and for the HTTP filter's rules: an answer binds before another when it leaves less remaining, or as much
     * with a nearer reset. Neither binds before the other on a full tie, so the first declared stays binding.
     *
     * @param remaining the candidate's remaining quota
     * @param resetAfterNanos the candidate's nanoseconds until full
     * @param otherRemaining the current binding answer's remaining quota
     * @param otherResetAfterNanos the current binding answer's nanoseconds until full
     * @return true when the candidate binds instead
     */
    public static boolean bindsBefore(long remaining, long resetAfterNanos, long otherRemaining,
                                      long otherResetAfterNanos) {
        return remaining < otherRemaining || (remaining == otherRemaining && resetAfterNanos < otherResetAfterNanos);
    }

    /**
     * {@link #bindsBefore(long, long, long, long)} for two decisions.
     *
     * @param other the current binding decision
     * @return true when this decision binds instead of {@code other}
     */
    public boolean bindsBefore(Decision other) {
        return bindsBefore(remaining, resetAfterNanos, other.remaining, other.resetAfterNanos);
    }

    /** @return true when the request is admitted and its cost consumed */
    public boolean allowed() {
        return allowed;
    }

    /** @return the binding band's quota: capacity (tokens) or window limit (requests), in [1, 10^15] */
    public long limit() {
        return limit;
    }

    /** @return remaining quota after this request when admitted, or now when denied, in [0, limit] */
    public long remaining() {
        return remaining;
    }

    /** @return nanoseconds until the binding band is back to its full quota if nothing else arrives, >= 0 */
    public long resetAfterNanos() {
        return resetAfterNanos;
    }

    /**
     * Returns the least whole nanoseconds after which this same cost would be admitted if nothing else arrives.
     *
     * @return > 0 on a denial that can pass; {@link #NO_RETRY} when admitted or when it can never pass
     */
    public long retryAfterNanos() {
        return retryAfterNanos;
    }

    /** @return true for a denial whose cost can never be admitted (cost above the quota, or a wait past 2^63 ns) */
    public boolean isUnsatisfiable() {
        return !allowed && retryAfterNanos == NO_RETRY;
    }

    /** @return the binding band's name for a composite policy; null for a single-band policy */
    public String band() {
        return band;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Decision d && allowed == d.allowed && limit == d.limit
                && remaining == d.remaining && resetAfterNanos == d.resetAfterNanos
                && retryAfterNanos == d.retryAfterNanos && Objects.equals(band, d.band)
                && Objects.equals(reservation, d.reservation) && policyVersion == d.policyVersion);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allowed, limit, remaining, resetAfterNanos, retryAfterNanos, band);
    }

    @Override
    public String toString() {
        return "Decision{" + (allowed ? "allowed" : "denied") + " limit=" + limit + " remaining=" + remaining
                + " resetAfterNanos=" + resetAfterNanos + " retryAfterNanos=" + retryAfterNanos
                + (band == null ? "" : " band=" + band) + (reservation == null ? "" : " " + reservation)
                + (policyVersion == 0 ? "" : " policyVersion=" + policyVersion) + "}";
    }
}
