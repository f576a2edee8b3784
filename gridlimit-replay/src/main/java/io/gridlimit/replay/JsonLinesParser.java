package io.gridlimit.replay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.micronaut.core.annotation.Nullable;

import java.io.IOException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses the {@code json-lines} format (issue 24 §2): one JSON object per line, with the fields
 * <ul>
 *   <li>{@code time} (required): RFC 3339 with an offset and any fraction of a second, e.g.
 *       {@code 2026-01-01T00:00:05.250Z}; kept to the nanosecond;</li>
 *   <li>{@code remote_addr} (required): the socket peer's address, as {@code client-ip} keys it;</li>
 *   <li>{@code method} (required) and {@code path} (required; a query string is dropped);</li>
 *   <li>{@code status} (required): the response status, a number or a string of digits;</li>
 *   <li>{@code headers} (optional): an object of request headers, each a string or an array of strings (one per
 *       line received); names in any case.</li>
 * </ul>
 * Other fields are ignored. A line that is not an object with the required fields is unparseable ({@code null}).
 * Streaming with Jackson (no tree per line). Thread-safe.
 */
public final class JsonLinesParser {
    private static final JsonFactory JSON = new JsonFactory();

    private JsonLinesParser() {
    }

    /**
     * Parses one line.
     *
     * @param line the line without its terminator
     * @param lineNumber the line's number in its input, from 1
     * @param sequence the line's position over all inputs, from 0
     * @return the record, or null when the line is not an object with the required fields
     */
    public static @Nullable LogRecord parse(String line, long lineNumber, long sequence) {
        try (JsonParser p = JSON.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String time = null;
            String remote = null;
            String method = null;
            String path = null;
            int status = -1;
            Map<String, List<String>> headers = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "time" -> time = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "remote_addr" -> remote = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "method" -> method = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "path" -> path = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "status" -> status = status(p, v);
                    case "headers" -> headers = v == JsonToken.START_OBJECT ? headers(p) : null;
                    default -> p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT || time == null || remote == null || remote.isEmpty() || method == null
                    || method.isEmpty() || path == null || status < 0) {
                return null;
            }
            OffsetDateTime at = OffsetDateTime.parse(time);
            long nanos = Math.addExact(Math.multiplyExact(at.toEpochSecond(), 1_000_000_000L), at.getNano());
            int q = path.indexOf('?');
            String p0 = q < 0 ? path : path.substring(0, q);
            return new LogRecord(lineNumber, sequence, nanos, remote, method, p0.isEmpty() ? "/" : p0, status,
                    headers);
        } catch (IOException | DateTimeParseException | ArithmeticException e) {
            return null;
        }
    }

    private static int status(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) {
            int s = p.getIntValue();
            return s >= 0 && s <= 999 ? s : -1;
        }
        if (v == JsonToken.VALUE_STRING) {
            String s = p.getText();
            if (s.length() == 3 && Character.isDigit(s.charAt(0)) && Character.isDigit(s.charAt(1))
                    && Character.isDigit(s.charAt(2))) {
                return Integer.parseInt(s);
            }
        }
        p.skipChildren();
        return -1;
    }

    private static @Nullable Map<String, List<String>> headers(JsonParser p) throws IOException {
        Map<String, List<String>> headers = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName().toLowerCase(Locale.ROOT);
            JsonToken v = p.nextToken();
            List<String> lines = headers.computeIfAbsent(name, k -> new ArrayList<>(1));
            if (v == JsonToken.VALUE_STRING) {
                lines.add(p.getText());
            } else if (v == JsonToken.START_ARRAY) {
                while (p.nextToken() == JsonToken.VALUE_STRING) {
                    lines.add(p.getText());
                }
            } else {
                p.skipChildren();
            }
        }
        return headers;
    }
}
