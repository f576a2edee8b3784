package io.gridlimit.micronaut.problem;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.UriRouteMatch;
import jakarta.inject.Singleton;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a request's query parameters and checks its path variables exactly, or refuses the request (docs/SPEC.md
 * §5): a parameter appears at most once, and its percent-decoding is valid UTF-8. Micronaut's own binding is lossy:
 * it joins {@code ?key=a&key=b} into {@code a,b}, splits {@code ?key=a;b} on the {@code ;}, and decodes
 * {@code %ED%A0%80} (an encoded lone surrogate) or {@code %FF} to U+FFFD, so a handler would act on a value the caller
 * never sent. A handler calls {@link #check} first, before it reads or writes anything: the GridLimit service's
 * admin and decision APIs do, and a user's own handlers can.
 *
 * <p>The grammar (RFC 3986 §2.1, §3.3, §3.4; the query as {@code application/x-www-form-urlencoded}): the query is
 * split on {@code &} only (a {@code ;} belongs to its value), empty pieces are skipped, a piece without {@code =} has
 * the empty value; in the query {@code +} is a space (send {@code %2B} for a plus), in the path it is itself. Every
 * {@code %} is followed by two hex digits; a character outside printable ASCII is percent-encoded; the decoded bytes
 * are valid UTF-8 (no overlong form, no encoded surrogate, nothing above U+10FFFF). A refusal ({@link Refused}) names
 * the parameter (an unknown one only when its name is plain ASCII) and the problem, never the value, which may be a
 * key; one no {@code @Error} handler of the route takes is answered 400 {@code application/problem+json}
 * ({@link RefusedHandler}). Stateless and thread-safe.
 */
public final class ExactParameters {
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private ExactParameters() {
    }

    /** A request refused for a parameter; its message is {@code <parameter>: <problem>}, never the value. */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null);
        }
    }

    /** Answers a {@link Refused} that no {@code @Error} handler of the route took: 400, its message as the detail. */
    @Singleton
    public static final class RefusedHandler implements ExceptionHandler<Refused, HttpResponse<?>> {
        private final ProblemResponses problems;

        /** @param problems writes the problem */
        public RefusedHandler(ProblemResponses problems) {
            this.problems = problems;
        }

        @Override
        public HttpResponse<?> handle(@SuppressWarnings("rawtypes") HttpRequest request, Refused exception) {
            return problems.write(HttpStatus.BAD_REQUEST, Problem.of(400, HttpStatus.BAD_REQUEST.getReason(),
                    exception.getMessage()), Map.of());
        }
    }

    /**
     * Checks a routed request's parameters: each path variable of its route is valid percent-encoded UTF-8 in the
     * raw path and is the value Micronaut bound (so the handler's {@code @PathVariable} arguments are exact), and its
     * query holds only {@code accepted} names, each once, each valid ({@link #query}).
     *
     * @param request the request, as the handler receives it
     * @param accepted the query parameters the resource takes; any other is refused
     * @return the query parameters, name to exact value; a name not sent is absent
     * @throws Refused naming the first parameter that is wrong and what is wrong with it
     */
    public static Map<String, String> check(HttpRequest<?> request, String... accepted) {
        if (RouteAttributes.getRouteMatch(request).orElse(null) instanceof UriRouteMatch<?, ?> match) {
            String[] template = match.getRouteInfo().getUriMatchTemplate().toPathString().split("/", -1);
            String[] raw = Objects.requireNonNullElse(request.getUri().getRawPath(), "").split("/", -1);
            for (int i = 0; i < template.length && i < raw.length; i++) {
                String variable = variableOf(template[i]);
                if (variable == null) {
                    continue;
                }
                String exact;
                try {
                    exact = decode(raw[i], false);
                } catch (Refused e) {
                    throw new Refused(variable + ": " + e.getMessage());
                }
                Object bound = match.getVariableValues().get(variable);
                if (bound != null && !exact.equals(bound.toString())) {
                    throw new Refused(variable + ": is read differently by the router than as sent; send it "
                            + "percent-encoded (RFC 3986)");
                }
            }
        }
        return query(request, accepted);
    }

    /**
     * The request's query parameters, each decoded exactly.
     *
     * @param request the request
     * @param accepted the names the resource takes; any other name is refused
     * @return name to value, in the order sent; a name not sent is absent
     * @throws Refused when a parameter is given twice, is not the resource's, or is not valid percent-encoded UTF-8
     */
    public static Map<String, String> query(HttpRequest<?> request, String... accepted) {
        String raw = request.getUri().getRawQuery();
        if (raw == null || raw.isEmpty()) {
            return Map.of();
        }
        Set<String> names = Set.of(accepted);
        List<String> pieces = List.of(raw.split("&")).stream().filter(p -> !p.isEmpty()).toList();
        Map<String, String> out = new LinkedHashMap<>();
        for (String piece : pieces) {
            int eq = piece.indexOf('=');
            String name;
            try {
                name = decode(eq < 0 ? piece : piece.substring(0, eq), true);
            } catch (Refused e) {
                throw new Refused("a query parameter's name " + e.getMessage());
            }
            if (!names.contains(name)) {
                throw new Refused((PLAIN_NAME.matcher(name).matches() ? "'" + name + "'" : "a query parameter")
                        + ": not a parameter of this resource (it takes " + (accepted.length == 0 ? "none"
                        : String.join(", ", accepted)) + ")");
            }
            if (out.containsKey(name)) {
                long times = pieces.stream().filter(p -> name.equals(nameOf(p))).count();
                throw new Refused(name + ": given " + times + " times; send it once");
            }
            try {
                out.put(name, decode(eq < 0 ? "" : piece.substring(eq + 1), true));
            } catch (Refused e) {
                throw new Refused(name + ": " + e.getMessage());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The variable a URI template segment is, {@code {name}} or {@code {name:regex}}, else null. */
    private static String variableOf(String segment) {
        if (!segment.startsWith("{") || !segment.endsWith("}")) {
            return null;
        }
        String inner = segment.substring(1, segment.length() - 1);
        int colon = inner.indexOf(':');
        return colon < 0 ? inner : inner.substring(0, colon);
    }

    /** A query piece's decoded name, or null when it does not decode. */
    private static String nameOf(String piece) {
        int eq = piece.indexOf('=');
        try {
            return decode(eq < 0 ? piece : piece.substring(0, eq), true);
        } catch (Refused e) {
            return null;
        }
    }

    /**
     * Percent-decodes exactly.
     *
     * @param raw the text as sent
     * @param query true for the query, where {@code +} is a space
     * @return the decoded text
     * @throws Refused with the problem only (the caller names the parameter)
     */
    static String decode(String raw, boolean query) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? hex(raw.charAt(i + 1)) : -1;
                int lo = hi < 0 ? -1 : hex(raw.charAt(i + 2));
                if (lo < 0) {
                    throw new Refused("holds a '%' not followed by two hex digits");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c <= 0x20 || c >= 0x7F) {
                throw new Refused("holds a character that must be percent-encoded (as UTF-8)");
            } else {
                bytes.write(query && c == '+' ? ' ' : c);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Refused("is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an "
                    + "encoded surrogate)");
        }
    }

    /** An ASCII hex digit's value, else -1 (never another script's digits). */
    private static int hex(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }
}
