package io.gridlimit.envoy.config;

import io.gridlimit.envoy.config.RlsYaml.YamlNull;
import io.micronaut.core.annotation.Nullable;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one field of a parsed YAML map ({@link RlsYaml}) as text, boolean or whole number, as docs/SPEC.md §12
 * says: "Scalars are text as written (…), booleans {@code true}/{@code false}, integers decimal; a plain YAML null
 * (…) is the field's zero value, as envoyproxy/ratelimit reads it, with a boot warning (refused in GridLimit's
 * extension), and an explicitly tagged value (…) is refused where it stands". Never throws: each refusal is recorded
 * in the reader's error list, prefixed by {@code here} (the file, domain and descriptor path of the field), and the
 * field reads as absent (null). Not thread-safe: one instance per {@link RlsConfigReader}.
 */
final class RlsFields {
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,4096}");

    private final List<String> errors;
    private final List<String> warnings;

    /**
     * @param errors the reader's error list, which every refusal is added to
     * @param warnings the reader's boot warnings, which {@link #warn} adds to
     */
    RlsFields(List<String> errors, List<String> warnings) {
        this.errors = errors;
        this.warnings = warnings;
    }

    /**
     * Records a boot warning: something loaded as envoyproxy/ratelimit reads it that leaves a route less protected
     * than it may seem (docs/SPEC.md §12, "Configuration, read unchanged"); logged at WARN when the service starts.
     *
     * @param warning the warning, naming the file, domain and descriptor path
     */
    void warn(String warning) {
        warnings.add(warning);
    }

    /**
     * Refuses every key of {@code map} not in {@code known}: {@code <here><prefix><key>: unknown field (known: …)},
     * the known fields in name order (docs/SPEC.md §12: "and any other field").
     *
     * @param here the message prefix, ending in {@code ": "}
     * @param map a parsed YAML map
     * @param known the fields it may hold
     * @param prefix the field path before each key, e.g. {@code rate_limit.}, or empty
     */
    void unknown(String here, Map<?, ?> map, Set<String> known, String prefix) {
        for (Object k : map.keySet()) {
            if (!known.contains(String.valueOf(k))) {
                errors.add(here + prefix + k + ": unknown field (known: " + String.join(", ",
                        known.stream().sorted().toList()) + ")");
            }
        }
    }

    /**
     * A text field: null when absent; a list, a map, YAML's null or an explicitly tagged value there is refused
     * (never read as "no value", nor as the text {@code null}).
     *
     * @param here the file, domain and descriptor of the field, as messages show it
     * @param field the field's path, e.g. {@code rate_limit.unit}
     * @param value the parsed value, or null when absent
     * @return the text as written (possibly empty), or null when absent or refused
     */
    @Nullable String scalar(String here, String field, @Nullable Object value) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        if (!yamlNull(here, field, value, "empty, as if it were left out") && !tagged(here, field, value, "one text")) {
            errors.add(here + ": " + field + " is a " + (value instanceof List ? "list" : "map") + "; write one text");
        }
        return null;
    }

    /**
     * A plain {@code null}, {@code Null}, {@code NULL} or {@code ~}: in a field of envoyproxy/ratelimit's format it
     * is read as there (Go's YAML gives the field its zero value: empty text, {@code false}, 0, no list, no map),
     * with a boot warning naming the field and that reading, since a reader of the file may take it for the text;
     * in GridLimit's own extension ({@code rate_limit.gridlimit…}) it is refused (docs/SPEC.md §12, "Configuration,
     * read unchanged").
     *
     * @param here the file, domain and descriptor of the field, as messages show it
     * @param field the field's path
     * @param value the parsed value, not null
     * @param reading what the reference reads it as, for the warning, e.g. {@code false}
     * @return whether {@code value} is YAML's null (then a warning or an error is recorded): the caller reads the
     *     field as that zero value, or as refused in the extension ({@link #extension})
     */
    boolean yamlNull(String here, String field, Object value, String reading) {
        if (!(value instanceof YamlNull n)) {
            return false;
        }
        if (extension(field)) {
            errors.add(here + ": " + field + ": '" + n.text() + "' is YAML's null; leave the field out, or quote it ('"
                    + n.text() + "') to mean the text");
        } else {
            warnings.add(here + ": " + field + ": '" + n.text() + "' is YAML's null, read as envoyproxy/ratelimit "
                    + "reads it: " + reading + " (leave the field out, or quote it, '" + n.text() + "', to mean the "
                    + "text)");
        }
        return true;
    }

    /** @return whether {@code field} is in GridLimit's extension ({@code rate_limit.gridlimit…}), not the reference's */
    static boolean extension(String field) {
        return field.startsWith("rate_limit.gridlimit");
    }

    /**
     * @param here the file, domain and descriptor of the field, as messages show it
     * @param field the field's path
     * @param value the parsed value, not null
     * @param expected what the field takes, as the message asks for it, e.g. {@code a whole number}
     * @return whether {@code value} came from an explicit tag such as {@code !!int} (then an error is recorded)
     */
    private boolean tagged(String here, String field, Object value, String expected) {
        if (value instanceof String || value instanceof List || value instanceof Map || value instanceof YamlNull) {
            return false;
        }
        errors.add(here + ": " + field + ": '" + value + "' has an explicit YAML tag (read as "
                + value.getClass().getSimpleName() + "); write " + expected + " without a tag");
        return true;
    }

    /**
     * A boolean field: {@code true} or {@code false} in any case; anything else is refused.
     *
     * @param here the file, domain and descriptor of the field, as messages show it
     * @param field the field's path, e.g. {@code shadow_mode}
     * @param value the parsed value, or null when absent
     * @return the boolean, or null when absent or refused
     */
    @Nullable Boolean bool(String here, String field, @Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String s && s.matches("(?i)true|false")) {
            return Boolean.parseBoolean(s);
        }
        if (yamlNull(here, field, value, "false")) {
            return extension(field) ? null : Boolean.FALSE;
        }
        if (tagged(here, field, value, "true or false")) {
            return null;
        }
        errors.add(here + ": " + field + ": '" + value + "' is not true or false");
        return null;
    }

    /**
     * A whole-number field: 1 to 4096 decimal digits after {@link String#trim()}; anything else (a sign, a
     * fraction, an exponent) is refused. The caller checks the range (docs/SPEC.md §1 and §12).
     *
     * @param here the file, domain and descriptor of the field, as messages show it
     * @param field the field's path, e.g. {@code rate_limit.requests_per_unit}
     * @param value the parsed value, or null when absent
     * @return the number, saturated at {@link Long#MAX_VALUE} (so above 2^32 - 1 whatever was written), or null
     *         when absent or refused
     */
    @Nullable Long integer(String here, String field, @Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String s && DIGITS.matcher(s.trim()).matches()) {
            BigInteger v = new BigInteger(s.trim());
            return v.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0 ? Long.MAX_VALUE : v.longValue();
        }
        if (yamlNull(here, field, value, "0")) {
            return extension(field) ? null : 0L;
        }
        if (tagged(here, field, value, "a whole number")) {
            return null;
        }
        errors.add(here + ": " + field + ": '" + value + "' is not a whole number");
        return null;
    }
}
