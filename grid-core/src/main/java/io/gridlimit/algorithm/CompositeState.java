package io.gridlimit.algorithm;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Composite policy state (SPEC §4): one band state per band name, so a changed policy keeps the states of the
 * bands it still has (matched by name) and starts new or changed bands fresh.
 *
 * <p>A band missing from the state is fresh. Band states are single-algorithm states, never composites.
 * Immutable and thread-safe.
 */
public final class CompositeState implements LimiterState {
    private final long lastNanos;
    private final String[] bandNames;
    private final LimiterState[] bandStates;

    /**
     * Creates a state, copying the arrays.
     *
     * @param lastNanos the reading the state was written with, epoch nanoseconds
     * @param bandNames band names, distinct, non-null
     * @param bandStates the state of each named band, non-null, not composite, as many as {@code bandNames}
     * @throws IllegalArgumentException if the arrays differ in length, a name repeats, or a band state is composite
     * @throws NullPointerException if an array, a name or a band state is null
     */
    public CompositeState(long lastNanos, String[] bandNames, LimiterState[] bandStates) {
        this(lastNanos, bandNames.clone(), bandStates.clone(), true);
    }

    CompositeState(long lastNanos, String[] bandNames, LimiterState[] bandStates, boolean check) {
        if (check) {
            if (bandNames.length != bandStates.length) {
                throw new IllegalArgumentException("bandNames has " + bandNames.length + " entries but bandStates has "
                        + bandStates.length);
            }
            for (int i = 0; i < bandNames.length; i++) {
                Objects.requireNonNull(bandNames[i], "bandNames[" + i + "]");
                Objects.requireNonNull(bandStates[i], "bandStates[" + i + "]");
                if (bandStates[i] instanceof CompositeState) {
                    throw new IllegalArgumentException("bandStates[" + i + "] is a composite state");
                }
                for (int j = 0; j < i; j++) {
                    if (bandNames[j].equals(bandNames[i])) {
                        throw new IllegalArgumentException("band name '" + bandNames[i] + "' repeats");
                    }
                }
            }
        }
        this.lastNanos = lastNanos;
        this.bandNames = bandNames;
        this.bandStates = bandStates;
    }

    @Override
    public long lastNanos() {
        return lastNanos;
    }

    /** @return a copy of the band names, in the order they were written */
    public String[] bandNames() {
        return bandNames.clone();
    }

    /** @return a copy of the band states, in the order of {@link #bandNames()} */
    public LimiterState[] bandStates() {
        return bandStates.clone();
    }

    /**
     * Returns the state of one band.
     *
     * @param bandName a band name
     * @return the band's state, or null when the band has none (it is fresh)
     */
    public LimiterState bandState(String bandName) {
        for (int i = 0; i < bandNames.length; i++) {
            if (bandNames[i].equals(bandName)) {
                return bandStates[i];
            }
        }
        return null;
    }

    /** @return an unmodifiable, ordered view from band name to band state */
    public Map<String, LimiterState> bands() {
        Map<String, LimiterState> m = new LinkedHashMap<>();
        for (int i = 0; i < bandNames.length; i++) {
            m.put(bandNames[i], bandStates[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof CompositeState s && lastNanos == s.lastNanos
                && Arrays.equals(bandNames, s.bandNames) && Arrays.equals(bandStates, s.bandStates));
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(lastNanos) * 31 + Arrays.hashCode(bandNames)) * 31 + Arrays.hashCode(bandStates);
    }

    @Override
    public String toString() {
        return "CompositeState{lastNanos=" + lastNanos + " bands=" + bands() + "}";
    }
}
