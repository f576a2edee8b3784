package io.gridlimit.algorithm;

/**
 * Token bucket state (SPEC §3): at {@link #lastNanos()} the bucket held exactly
 * {@code tokens + tokenFraction / refillPeriodNanos} tokens.
 *
 * <p>The fraction's denominator is the refill period {@code P}, so a refill of {@code e} ns at {@code R} tokens per
 * period adds exactly {@code e·R} to the numerator. The period is also kept so a policy change of the period
 * starts the key fresh (SPEC §4). Four longs. Immutable and thread-safe.
 */
public final class TokenBucketState implements LimiterState {
    private final long lastNanos;
    private final long tokens;
    private final long tokenFraction;
    private final long refillPeriodNanos;

    /**
     * Creates a state.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param tokens whole tokens held, in [-10^15, 10^15]: below zero after a settle charged more than was left (a debt, SPEC §10)
     * @param tokenFraction the fraction of a further token, in units of {@code 1/refillPeriodNanos} of a token,
     *     in [0, refillPeriodNanos)
     * @param refillPeriodNanos the refill period the state was written under, in nanoseconds, > 0
     * @throws IllegalArgumentException if a value is out of its range (the message names it)
     */
    public TokenBucketState(long lastNanos, long tokens, long tokenFraction, long refillPeriodNanos) {
        if (refillPeriodNanos <= 0) {
            throw new IllegalArgumentException("refillPeriodNanos must be > 0, got " + refillPeriodNanos);
        }
        if (tokens < -io.gridlimit.api.Band.MAX_QUANTITY) {
            throw new IllegalArgumentException("tokens must be >= -10^15 (a debt), got " + tokens);
        }
        if (tokenFraction < 0 || tokenFraction >= refillPeriodNanos) {
            throw new IllegalArgumentException(
                    "tokenFraction must be in [0, " + refillPeriodNanos + "), got " + tokenFraction);
        }
        this.lastNanos = lastNanos;
        this.tokens = tokens;
        this.tokenFraction = tokenFraction;
        this.refillPeriodNanos = refillPeriodNanos;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return whole tokens held at {@link #lastNanos()}, >= -10^15 (below zero: a debt, SPEC §10) */
    public long tokens() {
        return tokens;
    }

    /** @return the numerator of the fractional token over {@link #refillPeriodNanos()}, in [0, refillPeriodNanos) */
    public long tokenFraction() {
        return tokenFraction;
    }

    /** @return the refill period this state was written under, in nanoseconds */
    public long refillPeriodNanos() {
        return refillPeriodNanos;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof TokenBucketState s && lastNanos == s.lastNanos && tokens == s.tokens
                && tokenFraction == s.tokenFraction && refillPeriodNanos == s.refillPeriodNanos);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(lastNanos) * 31 * 31 * 31 + Long.hashCode(tokens) * 31 * 31
                + Long.hashCode(tokenFraction) * 31 + Long.hashCode(refillPeriodNanos);
    }

    @Override
    public String toString() {
        return "TokenBucketState{lastNanos=" + lastNanos + " tokens=" + tokens + "+" + tokenFraction + "/"
                + refillPeriodNanos + "}";
    }
}
