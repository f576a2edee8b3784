package io.gridlimit.micronaut.key;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses one line (one field instance) of the {@code Forwarded} header, RFC 7239 §4, on its own: a quoted-string
 * never continues into the next line.
 *
 * <pre>
 * Forwarded         = 1#forwarded-element          ; OWS around ",", empty elements ignored (RFC 9110 §5.6.1)
 * forwarded-element = [ forwarded-pair ] *( ";" [ forwarded-pair ] )
 * forwarded-pair    = token "=" value              ; no whitespace around ";" or "="
 * value             = token / quoted-string        ; quoted-pair escapes, RFC 9110 §5.6.4
 * </pre>
 *
 * Each element yields the node of its one {@code for} parameter ({@link NodeSyntax#forwardedFor}). An element
 * with a parameter twice (names compare case-insensitively; two {@code for=} included) or without {@code for} is
 * malformed. A syntax error (an unterminated quoted-string, a character the grammar does not allow, a missing
 * {@code =} or value) makes the element where it occurs and everything after it on that line one malformed
 * element: the parser never guesses where a broken element ends. Stateless and thread-safe.
 */
public final class ForwardedParser {
    private ForwardedParser() {
    }

    /**
     * Parses one header line.
     *
     * @param line one {@code Forwarded} field value as received (ISO-8859-1 characters)
     * @return the elements' nodes, left to right; empty for an empty or blank line; a malformed node ends the
     *     list when the line has a syntax error
     */
    public static List<ForwardingNode> parseLine(String line) {
        List<ForwardingNode> nodes = new ArrayList<>();
        Cursor c = new Cursor(line);
        while (true) {
            c.skipOws();
            if (c.atEnd()) {
                return nodes;
            }
            if (c.peek() == ',') {
                c.pos++;
                continue;
            }
            ForwardingNode node = element(c);
            nodes.add(node);
            if (c.broken) {
                return nodes;
            }
            c.skipOws();
            if (c.atEnd()) {
                return nodes;
            }
            if (c.peek() != ',') {
                nodes.set(nodes.size() - 1, ForwardingNode.malformed("text after a Forwarded element"));
                return nodes;
            }
            c.pos++;
        }
    }

    /** One element, up to (not including) the OWS or ',' that ends it, or to the syntax error. */
    private static ForwardingNode element(Cursor c) {
        Set<String> names = new HashSet<>();
        String forValue = null;
        String problem = null;
        while (!c.atEnd() && c.peek() != ',' && c.peek() != ' ' && c.peek() != '\t') {
            if (c.peek() == ';') {
                c.pos++;
                continue;
            }
            String name = c.token();
            if (name.isEmpty() || c.atEnd() || c.peek() != '=') {
                return c.fail("a Forwarded parameter without 'name=value' syntax");
            }
            c.pos++;
            String value;
            if (!c.atEnd() && c.peek() == '"') {
                value = c.quotedString();
                if (value == null) {
                    return c.fail("an unterminated or invalid quoted-string in Forwarded");
                }
            } else {
                value = c.token();
                if (value.isEmpty()) {
                    return c.fail("a Forwarded parameter without a value");
                }
            }
            if (!c.atEnd() && ";, \t".indexOf(c.peek()) < 0) {
                return c.fail("a character the Forwarded grammar does not allow");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (!names.add(lower)) {
                problem = "a Forwarded element with the parameter '" + lower + "' twice";
            } else if (lower.equals("for")) {
                forValue = value;
            }
        }
        if (problem != null) {
            return ForwardingNode.malformed(problem);
        }
        if (forValue == null) {
            return ForwardingNode.malformed("a Forwarded element without for=");
        }
        return NodeSyntax.forwardedFor(forValue);
    }

    /** A position in a line, and whether a syntax error ended the parse. */
    private static final class Cursor {
        private final String s;
        private int pos;
        private boolean broken;

        Cursor(String s) {
            this.s = s;
        }

        boolean atEnd() {
            return pos >= s.length();
        }

        char peek() {
            return s.charAt(pos);
        }

        void skipOws() {
            while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
                pos++;
            }
        }

        ForwardingNode fail(String problem) {
            broken = true;
            pos = s.length();
            return ForwardingNode.malformed(problem);
        }

        /** @return the longest run of tchar from here (RFC 9110 §5.6.2), possibly empty */
        String token() {
            int start = pos;
            while (!atEnd() && isTchar(peek())) {
                pos++;
            }
            return s.substring(start, pos);
        }

        /** @return the unescaped content of the quoted-string starting here, or null if it is unterminated or
         *     holds a character RFC 9110 §5.6.4 does not allow */
        String quotedString() {
            StringBuilder out = new StringBuilder();
            pos++;
            while (!atEnd()) {
                char ch = s.charAt(pos++);
                if (ch == '"') {
                    return out.toString();
                }
                if (ch == '\\') {
                    if (atEnd()) {
                        return null;
                    }
                    ch = s.charAt(pos++);
                    if (!(ch == '\t' || (ch >= 0x20 && ch <= 0x7E) || (ch >= 0x80 && ch <= 0xFF))) {
                        return null;
                    }
                } else if (!(ch == '\t' || ch == ' ' || ch == 0x21 || (ch >= 0x23 && ch <= 0x5B)
                        || (ch >= 0x5D && ch <= 0x7E) || (ch >= 0x80 && ch <= 0xFF))) {
                    return null;
                }
                out.append(ch);
            }
            return null;
        }

        private static boolean isTchar(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
