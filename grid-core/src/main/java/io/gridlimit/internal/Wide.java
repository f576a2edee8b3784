package io.gridlimit.internal;

import java.math.BigInteger;

/**
 * An immutable signed 128-bit integer, {@code high·2^64 + unsigned(low)}, for the few exact products in the
 * algorithms that exceed 64 bits (SPEC §1): a window of up to 3.15·10^16 ns times a limit of up to 10^15, an idle
 * gap of 100 years times a refill of 10^15 tokens, a reading times the refill tokens.
 *
 * <p>Products use {@link Math#multiplyHigh}; sums carry by hand; division by a {@code long} takes a plain
 * {@code long} path whenever the dividend fits one and falls back to {@link BigInteger} otherwise (the rare path).
 * Values stay far inside 128 bits in every use here, so additions do not check for 128-bit overflow.
 * Internal: not part of the API. Thread-safe.
 */
public final class Wide implements Comparable<Wide> {
    /** Zero. */
    public static final Wide ZERO = new Wide(0, 0);
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private final long high;
    private final long low;

    private Wide(long high, long low) {
        this.high = high;
        this.low = low;
    }

    /**
     * @param value any long
     * @return the value, sign-extended to 128 bits
     */
    public static Wide of(long value) {
        return new Wide(value >> 63, value);
    }

    /**
     * @param high the upper 64 bits (two's complement)
     * @param low the lower 64 bits, read as unsigned
     * @return {@code high·2^64 + unsigned(low)}
     */
    public static Wide of(long high, long low) {
        return new Wide(high, low);
    }

    /**
     * @param a any long
     * @param b any long
     * @return the exact product {@code a·b}
     */
    public static Wide product(long a, long b) {
        return new Wide(Math.multiplyHigh(a, b), a * b);
    }

    /**
     * @param value a big integer in [-2^127, 2^127)
     * @return the same value
     * @throws ArithmeticException if it does not fit 128 bits
     */
    public static Wide of(BigInteger value) {
        if (value.bitLength() > 127) {
            throw new ArithmeticException("does not fit 128 bits: " + value);
        }
        return new Wide(value.shiftRight(64).longValue(), value.longValue());
    }

    /** @return the upper 64 bits (two's complement) */
    public long high() {
        return high;
    }

    /** @return the lower 64 bits, to be read as unsigned */
    public long low() {
        return low;
    }

    /**
     * @param other a value
     * @return {@code this + other}
     */
    public Wide add(Wide other) {
        long lo = low + other.low;
        long carry = Long.compareUnsigned(lo, low) < 0 ? 1 : 0;
        return new Wide(high + other.high + carry, lo);
    }

    /**
     * @param value a value
     * @return {@code this + value}
     */
    public Wide add(long value) {
        return add(of(value));
    }

    /** @return {@code -this} */
    public Wide negate() {
        long lo = -low;
        return new Wide(~high + (low == 0 ? 1 : 0), lo);
    }

    /**
     * @param other a value
     * @return {@code this - other}
     */
    public Wide subtract(Wide other) {
        return add(other.negate());
    }

    /**
     * @param value a value
     * @return {@code this - value}
     */
    public Wide subtract(long value) {
        return subtract(of(value));
    }

    /** @return -1, 0 or 1 as this is negative, zero or positive */
    public int signum() {
        if (high < 0) {
            return -1;
        }
        return (high == 0 && low == 0) ? 0 : 1;
    }

    @Override
    public int compareTo(Wide other) {
        int c = Long.compare(high, other.high);
        return c != 0 ? c : Long.compareUnsigned(low, other.low);
    }

    /**
     * @param a a value
     * @param b a value
     * @return the larger of the two
     */
    public static Wide max(Wide a, Wide b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** @return true when the value lies in the {@code long} range */
    public boolean fitsLong() {
        return high == (low >> 63);
    }

    /**
     * @return the value as a long
     * @throws ArithmeticException if it does not fit
     */
    public long longValueExact() {
        if (!fitsLong()) {
            throw new ArithmeticException("does not fit a long: " + toBigInteger());
        }
        return low;
    }

    /** @return the value clamped to [{@link Long#MIN_VALUE}, {@link Long#MAX_VALUE}] */
    public long saturatedLong() {
        if (fitsLong()) {
            return low;
        }
        return high < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /**
     * @param divisor a positive divisor
     * @return {@code floor(this / divisor)}
     * @throws IllegalArgumentException if {@code divisor <= 0}
     */
    public Wide floorDiv(long divisor) {
        checkDivisor(divisor);
        if (fitsLong()) {
            return of(Math.floorDiv(low, divisor));
        }
        BigInteger[] qr = toBigInteger().divideAndRemainder(BigInteger.valueOf(divisor));
        return of(qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0]);
    }

    /**
     * @param divisor a positive divisor
     * @return {@code ceil(this / divisor)}
     * @throws IllegalArgumentException if {@code divisor <= 0}
     */
    public Wide ceilDiv(long divisor) {
        return negate().floorDiv(divisor).negate();
    }

    /**
     * @param divisor a positive divisor
     * @return {@code this - divisor·floor(this / divisor)}, in [0, divisor)
     * @throws IllegalArgumentException if {@code divisor <= 0}
     */
    public long floorMod(long divisor) {
        checkDivisor(divisor);
        if (fitsLong()) {
            return Math.floorMod(low, divisor);
        }
        return toBigInteger().mod(BigInteger.valueOf(divisor)).longValue();
    }

    private static void checkDivisor(long divisor) {
        if (divisor <= 0) {
            throw new IllegalArgumentException("divisor must be > 0, got " + divisor);
        }
    }

    /** @return the same value as a {@link BigInteger} */
    public BigInteger toBigInteger() {
        BigInteger lo = BigInteger.valueOf(low);
        if (low < 0) {
            lo = lo.add(TWO_64);
        }
        return BigInteger.valueOf(high).shiftLeft(64).add(lo);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Wide w && high == w.high && low == w.low);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(high * 31 + low);
    }

    @Override
    public String toString() {
        return toBigInteger().toString();
    }
}
