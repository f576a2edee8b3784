package io.gridlimit.micronaut.key;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The key part of a {@code header:<Name>} source (SPEC §6): {@code hdr:} and the SHA-256 of the value's bytes as
 * received, in lower-case hex; the raw value is never kept. Netty hands header values over as ISO-8859-1
 * characters, one per received byte; the bytes are recovered from them and must be valid UTF-8 (no overlong
 * forms, no encoded surrogates, nothing above U+10FFFF), so a decision-API caller hashing the UTF-8 of the same
 * text shares the quota, and no two different values can collide on a replacement character. Stateless and
 * thread-safe.
 */
public final class HeaderValueKey {
    private HeaderValueKey() {
    }

    /**
     * Builds the key part of a header.
     *
     * @param headerName the configured header name, for the problem text
     * @param lines the header's lines in order, as received
     * @return present {@code hdr:<64 hex digits>} of the one non-empty line (leading and trailing SP and HTAB
     *     removed); absent when there is no non-empty line; malformed when two or more lines are non-empty, a
     *     character is above U+00FF (not a received byte) or the bytes are not valid UTF-8 (SPEC §6)
     */
    public static KeyPart part(String headerName, List<String> lines) {
        String value = "";
        for (String line : lines) {
            String trimmed = NodeSyntax.trimOws(line);
            if (trimmed.isEmpty()) {
                continue; // an empty line adds nothing (RFC 9110 §5.3)
            }
            if (!value.isEmpty()) {
                // a second value would make a fresh key for the same credential: one key per request, or none
                return KeyPart.malformed("the request header '" + headerName + "' once (it was sent more than once)");
            }
            value = trimmed;
        }
        if (value.isEmpty()) {
            return KeyPart.absent("the request header '" + headerName + "'");
        }
        byte[] bytes = new byte[value.length()];
        for (int i = 0; i < bytes.length; i++) {
            char c = value.charAt(i);
            if (c > 0xFF) {
                return malformed(headerName);
            }
            bytes[i] = (byte) c;
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            utf8.decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return malformed(headerName);
        }
        return KeyPart.present("hdr:" + sha256Hex(bytes));
    }

    private static KeyPart malformed(String headerName) {
        return KeyPart.malformed("a well-formed request header '" + headerName + "' (its value is not valid UTF-8)");
    }

    /**
     * SHA-256 of bytes.
     *
     * @param bytes any bytes
     * @return 64 lower-case hex digits
     */
    public static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
