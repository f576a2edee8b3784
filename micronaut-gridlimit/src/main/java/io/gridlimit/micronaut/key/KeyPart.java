package io.gridlimit.micronaut.key;

import io.micronaut.core.annotation.Nullable;

import java.util.Objects;

/**
 * What one key source yields for a request (SPEC §6): a value, nothing (absent), or nothing because the request
 * is malformed. An absent part follows the rule's {@code on-missing-key}; a malformed one is always rejected with
 * 400, so a client can never turn a broken header into an exemption or into a key of its choosing. Immutable.
 *
 * @param status present, absent or malformed
 * @param value the key part when present ({@code ip:203.0.113.7}, {@code hdr:<hex>}), else null
 * @param missing when not present, what is missing, phrased to follow "missing" in a 400 problem (never a raw
 *     header value), else null
 */
public record KeyPart(Status status, @Nullable String value, @Nullable String missing) {
    /** The three outcomes. */
    public enum Status {
        /** The part has a value. */
        PRESENT,
        /** The request carries nothing to key by: {@code on-missing-key} applies. */
        ABSENT,
        /** The request carries it, but malformed: always 400, whatever {@code on-missing-key} says. */
        MALFORMED
    }

    /**
     * Creates a key part.
     *
     * @throws NullPointerException if status is null, or the value (present) or missing (else) is null
     */
    public KeyPart {
        Objects.requireNonNull(status, "status");
        if (status == Status.PRESENT) {
            Objects.requireNonNull(value, "value");
        } else {
            Objects.requireNonNull(missing, "missing");
        }
    }

    /**
     * A part that has a value.
     *
     * @param value the key part, as it becomes part of the key
     * @return a present part
     */
    public static KeyPart present(String value) {
        return new KeyPart(Status.PRESENT, value, null);
    }

    /**
     * A part that the request does not have.
     *
     * @param missing what is missing, for the 400 body and the logs (never a key value)
     * @return an absent part
     */
    public static KeyPart absent(String missing) {
        return new KeyPart(Status.ABSENT, null, missing);
    }

    /**
     * A part that the request has but that is malformed (docs/SPEC.md §6: always rejected with 400).
     *
     * @param missing what is missing, with why it is malformed
     * @return a malformed part
     */
    public static KeyPart malformed(String missing) {
        return new KeyPart(Status.MALFORMED, null, missing);
    }

    /** @return true when the part has a value */
    public boolean isPresent() {
        return status == Status.PRESENT;
    }
}
