package io.gridlimit.replay;

import io.gridlimit.micronaut.key.KeyResolver;

import java.util.List;

/**
 * Everything a finished replay reports (issue 24 §4, §5): the input's counts and the replayer's. Immutable apart
 * from the replayer it holds, which is finished.
 *
 * @param lines non-blank lines read
 * @param bad unparseable lines
 * @param badLines where the first unparseable lines are ({@code file:line})
 * @param late lines later than the reorder window, replayed at its edge
 * @param lateLines where the first late lines are
 * @param reorderWindowNanos the reorder window
 * @param showKeys true when keys are shown raw
 * @param replayer the finished replay
 */
public record ReplayRun(long lines, long bad, List<String> badLines, long late, List<String> lateLines,
                        long reorderWindowNanos, boolean showKeys, Replayer replayer) {
    /** The number of keys with most denials each policy reports. */
    public static final int TOP_KEYS = 10;

    /** Copies the lists. */
    public ReplayRun {
        badLines = List.copyOf(badLines);
        lateLines = List.copyOf(lateLines);
    }

    /**
     * @param key a grid key
     * @return the key as reports show it: raw with {@code --show-keys}, else {@link KeyResolver#logHash} (12 hex
     *     digits of an HMAC under a secret of this run: equal keys look equal within one report, and a hash cannot be
     *     reversed by hashing guessed addresses)
     */
    public String shown(String key) {
        return showKeys ? key : KeyResolver.logHash(key);
    }
}
