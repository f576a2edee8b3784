package io.gridlimit.micronaut.key;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §6 header keys: the received bytes, which must be UTF-8. */
class HeaderValueKeyTest {
    /** The string Netty hands over for these received bytes: one ISO-8859-1 character per byte. */
    private static String received(byte... bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static String received(String utf8Text) {
        return received(utf8Text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theHashIsOfTheReceivedUtf8Bytes() {
        // sha256("abc") from FIPS 180-2, appendix B.1
        assertThat(HeaderValueKey.part("K", List.of("abc"))).isEqualTo(
                KeyPart.present("hdr:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        // "café" arrives as the bytes 63 61 66 c3 a9: hashed as those bytes, the hash of the UTF-8 text
        byte[] cafe = {0x63, 0x61, 0x66, (byte) 0xc3, (byte) 0xa9};
        assertThat(HeaderValueKey.part("K", List.of(received(cafe))).value())
                .isEqualTo("hdr:" + HeaderValueKey.sha256Hex(cafe))
                .isEqualTo("hdr:" + HeaderValueKey.sha256Hex("café".getBytes(StandardCharsets.UTF_8)));
        assertThat(HeaderValueKey.part("K", List.of(received("日本\uD83D\uDE00"))).isPresent()).isTrue();
        // leading and trailing SP/HTAB dropped; empty lines ignored; a second non-empty line is malformed, so one
        // credential can never mint fresh keys by adding lines (found by attack)
        assertThat(HeaderValueKey.part("K", List.of(" a\t"))).isEqualTo(HeaderValueKey.part("K", List.of("a")));
        assertThat(HeaderValueKey.part("K", List.of("a", "", " "))).isEqualTo(HeaderValueKey.part("K", List.of("a")));
        assertThat(HeaderValueKey.part("K", List.of("a", "junk1")).status()).isEqualTo(KeyPart.Status.MALFORMED);
        assertThat(HeaderValueKey.part("K", List.of("a", "a")).status()).isEqualTo(KeyPart.Status.MALFORMED);
        assertThat(HeaderValueKey.part("K", List.of("", "")).status()).isEqualTo(KeyPart.Status.ABSENT);
        assertThat(HeaderValueKey.part("K", List.of("a,b")).value())
                .isEqualTo("hdr:" + HeaderValueKey.sha256Hex("a,b".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void notUtf8IsMalformedAndBlankIsAbsent() {
        KeyPart malformed = KeyPart.malformed("a well-formed request header 'X-Api-Key' (its value is not valid "
                + "UTF-8)");
        for (byte[] bad : new byte[][] {
            {'s', 'u', 'r', (byte) 0xed, (byte) 0xa0, (byte) 0x80}, // an encoded lone high surrogate U+D800
            {'s', 'u', 'r', (byte) 0xed, (byte) 0xb0, (byte) 0x80}, // an encoded lone low surrogate U+DC00
            {'s', 'u', 'r', (byte) 0xff},                            // never in UTF-8
            {'s', 'u', 'r', (byte) 0xe9},                            // ISO-8859-1 "é"
            {(byte) 0xc0, (byte) 0xaf},                              // overlong "/"
            {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},    // above U+10FFFF
            {'a', (byte) 0xc3},                                      // truncated sequence
        }) {
            assertThat(HeaderValueKey.part("X-Api-Key", List.of(received(bad)))).isEqualTo(malformed);
        }
        // characters that cannot be received bytes (an in-process request): malformed, never re-encoded
        assertThat(HeaderValueKey.part("X-Api-Key", List.of("sur\ud800"))).isEqualTo(malformed);
        assertThat(HeaderValueKey.part("X-Api-Key", List.of("sur\udc00"))).isEqualTo(malformed);
        assertThat(HeaderValueKey.part("X-Api-Key", List.of("sur?")).isPresent()).isTrue();
        assertThat(HeaderValueKey.part("X-Api-Key", List.of())).isEqualTo(KeyPart.absent("the request header "
                + "'X-Api-Key'"));
        assertThat(HeaderValueKey.part("X-Api-Key", List.of(" \t"))).isEqualTo(KeyPart.absent("the request "
                + "header 'X-Api-Key'"));
    }
}
