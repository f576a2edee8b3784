package io.gridlimit.envoy.config;

import io.micronaut.core.annotation.Nullable;

import java.util.List;

/**
 * A descriptor {@code value} holding {@code *}, matched as envoyproxy/ratelimit matches it (its
 * {@code wildcardMatch}, docs/SPEC.md §12, "Matching"): each {@code *} stands for zero or more characters, in any
 * position and any number ({@code foo*}, {@code bar*b}, {@code foo*bar*baz}, {@code *}). A value matches when it
 * starts with the text before the first {@code *}, ends with the text after the last, is at least as long as all
 * the literal parts together, and holds the parts between in order, each found at its first place after the one
 * before (a greedy scan, which finds a match whenever there is one). Matching allocates nothing. Immutable and
 * thread-safe.
 */
public final class RlsWildcard {
    private final String pattern;
    private final String[] parts;
    private final int fixedLength;

    private RlsWildcard(String pattern) {
        this.pattern = pattern;
        this.parts = pattern.split("\\*", -1);
        int n = 0;
        for (String p : parts) {
            n += p.length();
        }
        this.fixedLength = n;
    }

    /**
     * @param value a configured descriptor value
     * @return its wildcard when it holds a {@code *}, else null (matched exactly)
     */
    public static @Nullable RlsWildcard of(String value) {
        return value.indexOf('*') < 0 ? null : new RlsWildcard(value);
    }

    /** @return the pattern as configured, e.g. {@code files/*}; a shared counter's key holds it for the value */
    public String pattern() {
        return pattern;
    }

    /** @return the literal parts between the {@code *}s, first and last possibly empty, unmodifiable */
    public List<String> parts() {
        return List.of(parts);
    }

    /**
     * @param value a request entry's value, possibly empty
     * @return whether the pattern matches the whole value
     */
    public boolean matches(String value) {
        String first = parts[0];
        String last = parts[parts.length - 1];
        if (value.length() < fixedLength || !value.startsWith(first) || !value.endsWith(last)) {
            return false;
        }
        int from = first.length();
        int to = value.length() - last.length();
        for (int i = 1; i < parts.length - 1; i++) {
            int at = value.indexOf(parts[i], from);
            if (at < 0 || at + parts[i].length() > to) {
                return false;
            }
            from = at + parts[i].length();
        }
        return true;
    }

    @Override
    public String toString() {
        return pattern;
    }
}
