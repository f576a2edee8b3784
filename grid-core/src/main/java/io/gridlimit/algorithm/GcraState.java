package io.gridlimit.algorithm;

import java.math.BigInteger;

/**
 * GCRA state (SPEC §3; ITU-T I.371 virtual scheduling): the theoretical arrival time {@code TAT}, held exactly.
 *
 * <p>The emission interval {@code T = P/R} is rational, so {@code TAT} is kept scaled by the refill tokens
 * {@code R}: {@code TAT·R} is a signed 128-bit integer split into {@link #tatHigh()} (upper 64 bits) and
 * {@link #tatLow()} (lower 64 bits, unsigned). Scaling keeps every emission {@code c·T} exact
 * ({@code TAT·R += c·P}); the 128 bits hold any reading up to {@code 2^63} ns plus a burst of {@code 10^15}
 * emission intervals of 365 days. The parameters the state was written under are kept so a policy change can
 * credit the time since the last write at the new rate, clamp to a new capacity, or start fresh on a new period
 * (SPEC §4). Six longs. Immutable and thread-safe.
 */
public final class GcraState implements LimiterState {
    private final long lastNanos;
    private final long tatHigh;
    private final long tatLow;
    private final long capacity;
    private final long refillTokens;
    private final long refillPeriodNanos;

    /**
     * Creates a state.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param tatHigh the upper 64 bits of {@code TAT·refillTokens} (two's complement)
     * @param tatLow the lower 64 bits of {@code TAT·refillTokens}, read as unsigned
     * @param capacity the burst {@code B} the state was written under, in tokens, > 0
     * @param refillTokens the {@code R} the state was written under, > 0
     * @param refillPeriodNanos the {@code P} the state was written under, in nanoseconds, > 0
     * @throws IllegalArgumentException if a parameter is not positive (the message names it)
     */
    public GcraState(long lastNanos, long tatHigh, long tatLow, long capacity, long refillTokens,
                     long refillPeriodNanos) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, got " + capacity);
        }
        if (refillTokens <= 0) {
            throw new IllegalArgumentException("refillTokens must be > 0, got " + refillTokens);
        }
        if (refillPeriodNanos <= 0) {
            throw new IllegalArgumentException("refillPeriodNanos must be > 0, got " + refillPeriodNanos);
        }
        this.lastNanos = lastNanos;
        this.tatHigh = tatHigh;
        this.tatLow = tatLow;
        this.capacity = capacity;
        this.refillTokens = refillTokens;
        this.refillPeriodNanos = refillPeriodNanos;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return the upper 64 bits of {@code TAT·refillTokens} */
    public long tatHigh() {
        return tatHigh;
    }

    /** @return the lower 64 bits of {@code TAT·refillTokens}, unsigned */
    public long tatLow() {
        return tatLow;
    }

    /** @return the capacity (burst {@code B}) this state was written under, in tokens */
    public long capacity() {
        return capacity;
    }

    /** @return the refill tokens {@code R} this state was written under */
    public long refillTokens() {
        return refillTokens;
    }

    /** @return the refill period {@code P} this state was written under, in nanoseconds */
    public long refillPeriodNanos() {
        return refillPeriodNanos;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof GcraState s && lastNanos == s.lastNanos && tatHigh == s.tatHigh
                && tatLow == s.tatLow && capacity == s.capacity && refillTokens == s.refillTokens
                && refillPeriodNanos == s.refillPeriodNanos);
    }

    @Override
    public int hashCode() {
        long h = lastNanos;
        h = h * 31 + tatHigh;
        h = h * 31 + tatLow;
        h = h * 31 + capacity;
        h = h * 31 + refillTokens;
        h = h * 31 + refillPeriodNanos;
        return Long.hashCode(h);
    }

    @Override
    public String toString() {
        BigInteger scaled = BigInteger.valueOf(tatHigh).shiftLeft(64)
                .add(new BigInteger(Long.toUnsignedString(tatLow)));
        BigInteger[] qr = scaled.divideAndRemainder(BigInteger.valueOf(refillTokens));
        return "GcraState{lastNanos=" + lastNanos + " tat=" + qr[0] + "+" + qr[1] + "/" + refillTokens
                + " capacity=" + capacity + " refillPeriodNanos=" + refillPeriodNanos + "}";
    }
}
