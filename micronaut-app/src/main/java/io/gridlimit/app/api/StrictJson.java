package io.gridlimit.app.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.json.tree.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a request body of the decision API (or of the admin API, {@code io.gridlimit.app.admin}) as exactly one JSON
 * value (RFC 8259) into a Micronaut {@link JsonNode} tree, stricter than the generic mapper: content after the value
 * and duplicate object members are refused (a lenient reader would let {@code {"key":"a","key":"b"}} or
 * {@code {...} garbage} through and spend quota on a guess), and each number keeps the kind of its literal: an
 * integer literal becomes a {@code long} or {@link java.math.BigInteger} node, a literal with a fraction or an
 * exponent a {@link java.math.BigDecimal} node (never a double, so {@code 1.00000000000000000001} is not read as 1).
 * Errors never quote the body (it may hold a key). Thread-safe.
 */
public final class StrictJson {
    /** The message of every malformed body, optionally followed by what is wrong. */
    public static final String NOT_JSON = "the request body is not valid JSON";

    private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private StrictJson() {
    }

    /**
     * Parses a body.
     *
     * @param body the raw body, UTF-8 JSON
     * @return the tree, never null (a JSON {@code null} body is a null node)
     * @throws InvalidCheckException 400 {@value #NOT_JSON}, with the reason for duplicates and trailing content
     */
    public static JsonNode parse(byte[] body) throws InvalidCheckException {
        try (JsonParser parser = FACTORY.createParser(body)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw invalid(null);
            }
            JsonNode root = read(parser, first);
            if (parser.nextToken() != null) {
                throw invalid("content after the JSON value");
            }
            return root;
        } catch (StreamReadException e) {
            String message = e.getOriginalMessage();
            if (message != null && message.startsWith("Duplicate field '")) {
                throw invalid("duplicate member " + quoteName(message.substring(17, message.lastIndexOf('\''))));
            }
            throw invalid(null);
        } catch (IOException | RuntimeException e) {
            throw invalid(null);
        }
    }

    private static JsonNode read(JsonParser parser, JsonToken token) throws IOException {
        return switch (token) {
            case START_OBJECT -> {
                Map<String, JsonNode> members = new LinkedHashMap<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                    String name = parser.currentName();
                    members.put(name, read(parser, parser.nextToken()));
                }
                yield JsonNode.createObjectNode(members);
            }
            case START_ARRAY -> {
                List<JsonNode> items = new ArrayList<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                    items.add(read(parser, t));
                }
                yield JsonNode.createArrayNode(items);
            }
            case VALUE_STRING -> JsonNode.createStringNode(parser.getText());
            case VALUE_NUMBER_INT -> parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? JsonNode.createNumberNode(parser.getBigIntegerValue())
                    : JsonNode.createNumberNode(parser.getLongValue());
            case VALUE_NUMBER_FLOAT -> JsonNode.createNumberNode(parser.getDecimalValue());
            case VALUE_TRUE -> JsonNode.createBooleanNode(true);
            case VALUE_FALSE -> JsonNode.createBooleanNode(false);
            case VALUE_NULL -> JsonNode.nullNode();
            default -> throw new IOException("unexpected token " + token);
        };
    }

    private static String quoteName(String name) {
        return SAFE_NAME.matcher(name).matches() ? "'" + name + "'" : "(a member name)";
    }

    private static InvalidCheckException invalid(@Nullable String reason) {
        return new InvalidCheckException(HttpStatus.BAD_REQUEST, reason == null ? NOT_JSON : NOT_JSON + ": " + reason);
    }
}
