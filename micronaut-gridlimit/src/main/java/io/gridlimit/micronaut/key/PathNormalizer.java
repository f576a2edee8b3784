package io.gridlimit.micronaut.key;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Normalises a request path before rules match it (SPEC §7), so that spellings the router treats alike cannot
 * bypass a rule: percent-encoded unreserved characters (RFC 3986 §2.3: {@code A-Z a-z 0-9 - . _ ~}) are decoded
 * and other escapes upper-cased (§6.2.2.1-2), runs of {@code /} are folded, dot segments are removed (§5.2.4),
 * and a trailing {@code /} is ignored. {@code /demo/hello/}, {@code //demo/hello}, {@code /demo/%68ello} and
 * {@code /demo/./hello} all become {@code /demo/hello}. Stateless and thread-safe.
 */
public final class PathNormalizer {
    private PathNormalizer() {
    }

    /**
     * Normalises a raw request path.
     *
     * @param rawPath the path as received, without query string; null or empty is {@code /}
     * @return the normalised path: starts with {@code /}, no {@code //}, no dot segment, no trailing {@code /}
     *     (except the root {@code /})
     */
    public static String normalize(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        String decoded = decodeUnreserved(rawPath);
        Deque<String> out = new ArrayDeque<>();
        for (String segment : decoded.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                out.pollLast();
                continue;
            }
            out.addLast(segment);
        }
        if (out.isEmpty()) {
            return "/";
        }
        StringBuilder sb = new StringBuilder(decoded.length());
        for (String segment : out) {
            sb.append('/').append(segment);
        }
        return sb.toString();
    }

    private static String decodeUnreserved(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        StringBuilder sb = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' && i + 2 < path.length()) {
                int hi = Character.digit(path.charAt(i + 1), 16);
                int lo = Character.digit(path.charAt(i + 2), 16);
                if (hi >= 0 && lo >= 0) {
                    char d = (char) (hi * 16 + lo);
                    if (isUnreserved(d)) {
                        sb.append(d);
                    } else {
                        sb.append('%').append(Character.toUpperCase(path.charAt(i + 1)))
                                .append(Character.toUpperCase(path.charAt(i + 2)));
                    }
                    i += 2;
                    continue;
                }
            }
            sb.append(c);
        }
        return sb.toString();
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }
}
