package io.gridlimit.micronaut.config.sources;

import io.gridlimit.api.Policy;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.NameUtils;

/**
 * The one rule for the names of policies and bands, wherever they are written: configuration
 * ({@code gridlimit.policies.<name>}, checked by {@link PropertyCheck} and the configuration factory) and the
 * admin API's bodies and paths (docs/SPEC.md §11). Stateless.
 */
public final class PolicyNames {
    private PolicyNames() {
    }

    /**
     * Checks a policy or band name: 1 to 64 characters of {@code [A-Za-z0-9._-]} (grid-core), without {@code .}
     * (configuration reads it as nesting), and kept as written by Micronaut (lower case, {@code -} between words).
     *
     * @param path where the name is written, for the message
     * @param name the name
     * @return the message {@code <path>: ...} when refused, else null
     */
    public static @Nullable String nameError(String path, String name) {
        if (name.contains(".")) {
            return path + ": the name '" + name + "' contains '.', which Micronaut reads as nested properties: use "
                    + "letters, digits and '-' only";
        }
        String kept = NameUtils.hyphenate(name, true);
        if (!kept.equals(name)) {
            return path + ": the name '" + name + "' would be read by Micronaut as '" + kept + "'; names are used "
                    + "exactly as written (maps, headers, metrics), so write it in lower case with '-' between words";
        }
        try {
            Policy.builder(name);
        } catch (IllegalArgumentException e) {
            return path + ": " + e.getMessage();
        }
        return null;
    }
}
