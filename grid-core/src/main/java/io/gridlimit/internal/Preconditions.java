package io.gridlimit.internal;

/**
 * Argument checks whose messages name the bad parameter and its value. Internal: not part of the API.
 * Thread-safe (stateless).
 */
public final class Preconditions {
    private Preconditions() {
    }

    /**
     * Checks that a value lies in a closed range.
     *
     * @param parameter the parameter's name, as the message should show it
     * @param value the value
     * @param min the least allowed value
     * @param max the largest allowed value
     * @return {@code value}
     * @throws IllegalArgumentException naming the parameter and the value when it lies outside {@code [min, max]}
     */
    public static long checkRange(String parameter, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(parameter + " must be in [" + min + ", " + max + "], got " + value);
        }
        return value;
    }
}
