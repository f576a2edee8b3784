package io.gridlimit.monitoring;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the metric selectors out of a PromQL expression as Grafana sends it, without evaluating it: which metric
 * names it queries, with which label matchers, and which labels it groups or matches on ({@code by},
 * {@code without}, {@code on}, {@code ignoring}, {@code group_left}, {@code group_right}).
 *
 * <p>A small lexer, not a regular expression over the whole text, so that metric-like words inside strings
 * ({@code {outcome="denied_total"}}), label names in grouping clauses ({@code by (policy)}), function and
 * aggregation names ({@code rate(}, {@code histogram_quantile(}), keywords ({@code and}, {@code offset}, {@code bool}),
 * numbers ({@code 1e3}, {@code 0x1f}, {@code .5}), durations and subqueries ({@code [5m:30s]},
 * {@code [$__rate_interval]}) and Grafana variables ({@code $policy}, {@code ${policy:regex}}, {@code [[policy]]})
 * are never taken for metric names. Identifiers are those of the PromQL grammar
 * ({@code [a-zA-Z_:][a-zA-Z0-9_:]*}). Selectors without a name ({@code {__name__="x"}}) are reported with a null
 * metric, so a caller can refuse what it cannot check. Stateless.
 */
final class PromQl {
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan", "atan2");
    private static final Set<String> LABEL_LIST_KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right");

    private PromQl() {
    }

    /**
     * One label matcher of a selector.
     *
     * @param label the label name
     * @param op {@code =}, {@code !=}, {@code =~} or {@code !~}
     * @param value the string's content, escapes resolved
     */
    record Matcher(String label, String op, String value) {
    }

    /**
     * One vector selector.
     *
     * @param metric the metric name, or null for a selector of matchers only
     * @param matchers its label matchers, in order
     */
    record Selector(String metric, List<Matcher> matchers) {
    }

    /**
     * What an expression queries.
     *
     * @param selectors every vector selector, in order of appearance
     * @param groupingLabels every label named in {@code by/without/on/ignoring/group_left/group_right} lists
     */
    record Query(List<Selector> selectors, Set<String> groupingLabels) {
        /** @return the distinct metric names queried, in order of first appearance */
        Set<String> metricNames() {
            Set<String> names = new LinkedHashSet<>();
            for (Selector s : selectors) {
                if (s.metric() != null) {
                    names.add(s.metric());
                }
            }
            return names;
        }
    }

    private enum Kind { IDENT, STRING, NUMBER, VARIABLE, PUNCT }

    private record Token(Kind kind, String text) {
        boolean is(String punct) {
            return kind == Kind.PUNCT && text.equals(punct);
        }
    }

    /**
     * Parses an expression.
     *
     * @param expr a PromQL expression, possibly with Grafana variables
     * @return its selectors and grouping labels
     * @throws IllegalArgumentException if the expression has an unterminated string, brace, bracket or a character
     *     PromQL does not use, naming it and its position
     */
    static Query parse(String expr) {
        List<Token> tokens = lex(expr);
        List<Selector> selectors = new ArrayList<>();
        Set<String> grouping = new LinkedHashSet<>();
        int i = 0;
        while (i < tokens.size()) {
            Token t = tokens.get(i);
            if (t.kind() == Kind.IDENT) {
                String word = t.text();
                String lower = word.toLowerCase(Locale.ROOT);
                Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
                // a function or an aggregation: `rate(`, `sum(`, `sum by (..) (`, `topk without (..) (`
                boolean call = next != null && (next.is("(") || (next.kind() == Kind.IDENT
                        && Set.of("by", "without").contains(next.text().toLowerCase(Locale.ROOT))));
                if (LABEL_LIST_KEYWORDS.contains(lower)) {
                    if (next != null && next.is("(")) {
                        i = labelList(expr, tokens, i + 2, grouping);
                    } else {
                        i++;
                    }
                } else if (KEYWORDS.contains(lower) || call) {
                    i++;
                } else {
                    List<Matcher> matchers = new ArrayList<>();
                    i++;
                    if (i < tokens.size() && tokens.get(i).is("{")) {
                        i = matchers(expr, tokens, i + 1, matchers);
                    }
                    selectors.add(new Selector(word, List.copyOf(matchers)));
                }
            } else if (t.is("{")) {
                List<Matcher> matchers = new ArrayList<>();
                i = matchers(expr, tokens, i + 1, matchers);
                Matcher name = matchers.stream().filter(m -> m.label().equals("__name__") && m.op().equals("="))
                        .findFirst().orElse(null);
                selectors.add(new Selector(null, List.copyOf(matchers)));
                if (name != null) {
                    throw new IllegalArgumentException("selector by __name__ (" + name.value() + ") in '" + expr
                            + "': write the metric name in front of the braces");
                }
            } else {
                i++;
            }
        }
        return new Query(List.copyOf(selectors), Set.copyOf(grouping));
    }

    /** Reads {@code label, label ...)} from {@code i}; returns the index after the closing parenthesis. */
    private static int labelList(String expr, List<Token> tokens, int i, Set<String> into) {
        while (i < tokens.size() && !tokens.get(i).is(")")) {
            Token t = tokens.get(i);
            if (t.kind() == Kind.IDENT || t.kind() == Kind.STRING) {
                into.add(t.text());
            } else if (!t.is(",")) {
                throw new IllegalArgumentException("unexpected '" + t.text() + "' in a label list of '" + expr + "'");
            }
            i++;
        }
        if (i == tokens.size()) {
            throw new IllegalArgumentException("unclosed label list in '" + expr + "'");
        }
        return i + 1;
    }

    /** Reads {@code label op "value", ...}} from {@code i}; returns the index after the closing brace. */
    private static int matchers(String expr, List<Token> tokens, int i, List<Matcher> into) {
        while (i < tokens.size() && !tokens.get(i).is("}")) {
            if (tokens.get(i).is(",")) {
                i++;
                continue;
            }
            if (i + 2 >= tokens.size()) {
                break;
            }
            Token label = tokens.get(i);
            Token op = tokens.get(i + 1);
            Token value = tokens.get(i + 2);
            if ((label.kind() != Kind.IDENT && label.kind() != Kind.STRING) || op.kind() != Kind.PUNCT
                    || !Set.of("=", "!=", "=~", "!~").contains(op.text()) || value.kind() != Kind.STRING) {
                throw new IllegalArgumentException("malformed label matcher at '" + label.text() + op.text()
                        + value.text() + "' in '" + expr + "'");
            }
            into.add(new Matcher(label.text(), op.text(), value.text()));
            i += 3;
        }
        if (i >= tokens.size()) {
            throw new IllegalArgumentException("unclosed '{' in '" + expr + "'");
        }
        return i + 1;
    }

    private static List<Token> lex(String s) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#') { // comment to the end of the line
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '"' || c == '\'' || c == '`') {
                StringBuilder value = new StringBuilder();
                int j = i + 1;
                while (j < n && s.charAt(j) != c) {
                    if (s.charAt(j) == '\\' && c != '`' && j + 1 < n) {
                        j++;
                        char e = s.charAt(j);
                        value.append(switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            default -> e;
                        });
                    } else {
                        value.append(s.charAt(j));
                    }
                    j++;
                }
                if (j >= n) {
                    throw new IllegalArgumentException("unterminated string at " + i + " in '" + s + "'");
                }
                tokens.add(new Token(Kind.STRING, value.toString()));
                i = j + 1;
            } else if (c == '[') {
                if (s.startsWith("[[", i)) { // Grafana's old variable syntax [[name]]
                    int end = s.indexOf("]]", i);
                    if (end < 0) {
                        throw new IllegalArgumentException("unterminated '[[' at " + i + " in '" + s + "'");
                    }
                    tokens.add(new Token(Kind.VARIABLE, s.substring(i, end + 2)));
                    i = end + 2;
                } else { // a range or subquery: durations, numbers, ':' and variables only
                    int end = s.indexOf(']', i);
                    if (end < 0) {
                        throw new IllegalArgumentException("unterminated '[' at " + i + " in '" + s + "'");
                    }
                    tokens.add(new Token(Kind.NUMBER, s.substring(i, end + 1)));
                    i = end + 1;
                }
            } else if (c == '$') {
                int j = i + 1;
                if (j < n && s.charAt(j) == '{') {
                    j = s.indexOf('}', j);
                    if (j < 0) {
                        throw new IllegalArgumentException("unterminated '${' at " + i + " in '" + s + "'");
                    }
                    j++;
                } else {
                    while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                        j++;
                    }
                }
                tokens.add(new Token(Kind.VARIABLE, s.substring(i, j)));
                i = j;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
                int j = i + 1; // numbers, hex, exponents and durations (5m, 1h30m) all end at a non-word character
                while (j < n) {
                    char d = s.charAt(j);
                    boolean exponentSign = (d == '+' || d == '-') && (s.charAt(j - 1) == 'e' || s.charAt(j - 1) == 'E')
                            && !s.substring(i, j).toLowerCase(Locale.ROOT).startsWith("0x");
                    if (Character.isLetterOrDigit(d) || d == '.' || d == '_' || exponentSign) {
                        j++;
                    } else {
                        break;
                    }
                }
                tokens.add(new Token(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == ':')) {
                    j++;
                }
                tokens.add(new Token(Kind.IDENT, s.substring(i, j)));
                i = j;
            } else if ("=!<>".indexOf(c) >= 0 && i + 1 < n && "=~".indexOf(s.charAt(i + 1)) >= 0) {
                tokens.add(new Token(Kind.PUNCT, s.substring(i, i + 2)));
                i += 2;
            } else if ("(){},=<>+-*/%^@".indexOf(c) >= 0) {
                tokens.add(new Token(Kind.PUNCT, String.valueOf(c)));
                i++;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i + " in '" + s + "'");
            }
        }
        return tokens;
    }
}
