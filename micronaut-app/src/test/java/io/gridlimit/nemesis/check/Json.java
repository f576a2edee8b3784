package io.gridlimit.nemesis.check;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON the nemesis history needs (RFC 8259), read and written without a library so that the checker runs on a
 * bare JDK ({@code bench/nemesis.sh --check} compiles this package with {@code javac} alone). Values are
 * {@code Map<String, Object>} (members in order), {@code List<Object>}, {@code String}, {@code Long} (every number
 * must be an integer in the range of {@code long}: the history holds counts and nanoseconds only), {@code Boolean}
 * and {@code null}. Stateless and thread-safe.
 */
public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value that makes up the whole text (whitespace around it allowed).
     *
     * @param text the JSON text
     * @return the value, as described in the class comment; null for JSON {@code null}
     * @throws IllegalArgumentException naming the offset and what was expected, for malformed JSON, a duplicate
     *     member, or a number that is not an integer of {@code long} range
     */
    public static Object parse(String text) {
        Json p = new Json(text);
        p.space();
        Object v = p.value();
        p.space();
        if (p.at != text.length()) {
            throw p.error("end of the value");
        }
        return v;
    }

    /**
     * Parses a JSON object.
     *
     * @param text the JSON text
     * @return its members in order
     * @throws IllegalArgumentException if the text is not one JSON object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object, got " + describe(v));
        }
        return (Map<String, Object>) v;
    }

    /**
     * @param s a string
     * @return {@code s} as a JSON string literal, quotes included (control characters, {@code "} and {@code \}
     *     escaped)
     */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * Writes a value in JSON (the inverse of {@link #parse} for the types it returns).
     *
     * @param value a map, list, string, integer number, boolean or null
     * @return compact JSON
     * @throws IllegalArgumentException for any other type
     */
    public static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value);
        return b.toString();
    }

    private static void write(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String s) {
            b.append(quote(s));
        } else if (value instanceof Long || value instanceof Integer || value instanceof Boolean) {
            b.append(value);
        } else if (value instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(quote(String.valueOf(e.getKey()))).append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (value instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                write(b, l.get(i));
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
        }
    }

    /** @return a short description of a parsed value's type, for error messages */
    static String describe(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "an array";
        }
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Long) {
            return "a number";
        }
        return "a boolean";
    }

    private Object value() {
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return objectValue();
            case '[':
                return arrayValue();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("a value");
        }
    }

    private Map<String, Object> objectValue() {
        Map<String, Object> m = new LinkedHashMap<>();
        at++;
        space();
        if (peek('}')) {
            at++;
            return m;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("a member name");
            }
            int nameAt = at;
            String name = string();
            space();
            expect(':');
            space();
            Object v = value();
            if (m.containsKey(name)) {
                at = nameAt;
                throw error("no duplicate member '" + name + "'");
            }
            m.put(name, v);
            space();
            if (peek(',')) {
                at++;
            } else if (peek('}')) {
                at++;
                return m;
            } else {
                throw error("',' or '}'");
            }
        }
    }

    private List<Object> arrayValue() {
        List<Object> l = new ArrayList<>();
        at++;
        space();
        if (peek(']')) {
            at++;
            return l;
        }
        while (true) {
            space();
            l.add(value());
            space();
            if (peek(',')) {
                at++;
            } else if (peek(']')) {
                at++;
                return l;
            } else {
                throw error("',' or ']'");
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("the end of the string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                at--;
                throw error("no control character in a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw error("an escape");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw error("four hex digits");
                    }
                    try {
                        b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("four hex digits");
                    }
                    at += 4;
                }
                default -> {
                    at--;
                    throw error("a valid escape");
                }
            }
        }
    }

    private Long number() {
        int start = at;
        if (peek('-')) {
            at++;
        }
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (at < text.length() && (text.charAt(at) == '.' || text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at = start;
            throw error("an integer (the history holds no fractions)");
        }
        String digits = text.substring(start, at);
        if (digits.isEmpty() || digits.equals("-") || (digits.length() > 1 && digits.charAt(digits.charAt(0) == '-'
                ? 1 : 0) == '0' && digits.length() > (digits.charAt(0) == '-' ? 2 : 1))) {
            at = start;
            throw error("a JSON number");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            at = start;
            throw error("an integer within the range of a 64-bit long");
        }
    }

    private Object literal(String word, Object v) {
        if (!text.startsWith(word, at)) {
            throw error("a value");
        }
        at += word.length();
        return v;
    }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("malformed JSON at offset " + at + ": expected " + expected);
    }
}
