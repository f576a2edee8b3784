package io.gridlimit.micronaut.config.sources;

import io.micronaut.core.type.Argument;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** The wording of {@link PropertyCheck}'s messages: the nearest known name, and what a type accepts. */
final class Spelling {
    private Spelling() {
    }

    /** Known names and their parents, with their wildcards filled from the key's own segments. */
    static List<String> candidates(Collection<String> known, String key) {
        String[] segments = key.split("\\.");
        Set<String> all = new TreeSet<>();
        for (String name : known) {
            for (int end = name.length(); end > 0; end = name.lastIndexOf('.', end - 1)) {
                all.add(name.substring(0, end).replaceAll("\\[\\*\\]$", ""));
            }
        }
        List<String> filled = new ArrayList<>();
        for (String name : all) {
            String[] parts = name.split("\\.");
            for (int i = 0; i < parts.length && i < segments.length; i++) {
                parts[i] = parts[i].equals("*") ? segments[i]
                        : parts[i].replace("[*]", segments[i].replaceAll("^[^\\[]*", ""));
            }
            filled.add(String.join(".", parts));
        }
        return filled;
    }

    /**
     * Whether a setting of this type takes one value (a scalar, a list or a map), rather than being a section of
     * nested settings (a {@code @ConfigurationProperties} class such as {@code gridlimit.envoy-rls.tls}), under which
     * an unknown key is an unknown property, not a malformed value.
     */
    static boolean isValue(Argument<?> type) {
        Class<?> t = type.getType();
        return t.isPrimitive() || t.isEnum() || Number.class.isAssignableFrom(t) || t == Boolean.class
                || CharSequence.class.isAssignableFrom(t) || t == Duration.class
                || Collection.class.isAssignableFrom(t) || java.util.Map.class.isAssignableFrom(t);
    }

    static String describe(Argument<?> type) {
        Class<?> t = type.getType();
        if (t.isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object c : t.getEnumConstants()) {
                names.add(((Enum<?>) c).name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            return "one of " + String.join(", ", names);
        }
        return Collection.class.isAssignableFrom(t) ? "a list" : t == Duration.class ? "a duration (e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)"
                : t == boolean.class || t == Boolean.class ? "true or false"
                : t == String.class ? "a text" : "a whole number";
    }

    /** Levenshtein's edit distance: insertions, deletions and substitutions of one character. */
    static int distance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int up = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1),
                        diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = up;
            }
        }
        return row[b.length()];
    }
}
