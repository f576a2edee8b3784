package io.gridlimit.replay;

/**
 * A minimal JSON writer for the reports: values appended in order, commas placed by the writer. Strings are escaped
 * per RFC 8259 (quote, backslash, control characters as {@code \}{@code uXXXX}). Not thread-safe.
 */
final class Json {
    private final StringBuilder sb = new StringBuilder(4096);
    private boolean first = true;

    Json open(char c) {
        comma();
        sb.append(c);
        first = true;
        return this;
    }

    Json close(char c) {
        sb.append(c);
        first = false;
        return this;
    }

    Json name(String name) {
        comma();
        string(name);
        sb.append(':');
        first = true;
        return this;
    }

    Json value(String s) {
        comma();
        if (s == null) {
            sb.append("null");
        } else {
            string(s);
        }
        first = false;
        return this;
    }

    Json value(long n) {
        comma();
        sb.append(n);
        first = false;
        return this;
    }

    Json raw(String literal) {
        comma();
        sb.append(literal);
        first = false;
        return this;
    }

    private void comma() {
        if (!first) {
            sb.append(',');
        }
        first = false;
    }

    private void string(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
