package io.gridlimit.micronaut.config;

import io.micronaut.core.annotation.Nullable;

import java.util.Locale;
import java.util.Objects;

/**
 * One part of a rule's key (SPEC §6). A rule's key is its sources' parts joined with {@code |} in declared order,
 * e.g. {@code route:/api/orders|ip:203.0.113.7}.
 *
 * @param kind what the part is made of
 * @param headerName for {@link Kind#HEADER}, the header name as configured; else null
 */
public record KeySource(Kind kind, @Nullable String headerName) {
    /** The kinds of key source, with their configuration spelling. */
    public enum Kind {
        /** {@code client-ip}: {@code ip:<address>} or {@code ip:<network>/<n>} (SPEC §6). */
        CLIENT_IP("client-ip"),
        /** {@code header:<Name>}: {@code hdr:<sha-256 hex of the value>}. */
        HEADER("header:<Name>"),
        /** {@code principal}: {@code user:<name>} of the authenticated principal. */
        PRINCIPAL("principal"),
        /** {@code global}: the single key {@code global}. */
        GLOBAL("global"),
        /** {@code route}: {@code route:<pattern>} of the rule. */
        ROUTE("route");

        private final String configName;

        Kind(String configName) {
            this.configName = configName;
        }

        /** @return the configuration spelling, e.g. {@code client-ip} */
        public String configName() {
            return configName;
        }
    }

    /** The accepted spellings, for error messages. */
    public static final String ACCEPTED = "client-ip, header:<Name>, principal, global, route";

    /**
     * Creates a key source.
     *
     * @throws IllegalArgumentException if a header source has no valid name, or another kind has one
     */
    public KeySource {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.HEADER) != (headerName != null)) {
            throw new IllegalArgumentException("a header name goes with the header kind only");
        }
        if (headerName != null && !isToken(headerName)) {
            throw new IllegalArgumentException("header name '" + headerName + "' is not an HTTP field name");
        }
    }

    /**
     * Parses one configured source: {@code client-ip}, {@code header:<Name>}, {@code principal}, {@code global} or
     * {@code route} (case-insensitive kinds; the header name keeps its case).
     *
     * @param text the configured value
     * @return the key source, never null
     * @throws IllegalArgumentException naming the value when it is none of those, or a header source has no name
     */
    public static KeySource parse(String text) {
        String t = text == null ? "" : text.trim();
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.startsWith("header:")) {
            String name = t.substring("header:".length()).trim();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("'" + text + "' names no header: write header:<Name>, "
                        + "e.g. header:X-Api-Key");
            }
            if (!isToken(name)) {
                throw new IllegalArgumentException("'" + text + "': '" + name + "' is not an HTTP field name");
            }
            return new KeySource(Kind.HEADER, name);
        }
        return switch (lower) {
            case "client-ip" -> new KeySource(Kind.CLIENT_IP, null);
            case "principal" -> new KeySource(Kind.PRINCIPAL, null);
            case "global" -> new KeySource(Kind.GLOBAL, null);
            case "route" -> new KeySource(Kind.ROUTE, null);
            case "header" -> throw new IllegalArgumentException("'" + text + "' names no header: write "
                    + "header:<Name>, e.g. header:X-Api-Key");
            default -> throw new IllegalArgumentException("unknown key source '" + text + "': expected one of "
                    + ACCEPTED);
        };
    }

    /** @return the configuration spelling of this source, e.g. {@code header:X-Api-Key} */
    public String describe() {
        return kind == Kind.HEADER ? "header:" + headerName : kind.configName();
    }

    /** RFC 9110 §5.1: a field name is a token of tchar. */
    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }
}
