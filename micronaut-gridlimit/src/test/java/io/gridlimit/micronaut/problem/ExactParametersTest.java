package io.gridlimit.micronaut.problem;

import io.micronaut.http.HttpRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ExactParameters}' grammar, value by value: what a query reads as, and every refusal with its exact message
 * (the parameter and the problem, never the value). Over HTTP in the service's PolicyAdminApiTest.
 */
class ExactParametersTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "key=user%3A42                      | user:42",
        "key=route:/api/orders%7Cip:2001:db8::/64 | `route:/api/orders|ip:2001:db8::/64`",
        "key=a;b                            | a;b",
        "key=a+b                            | a b",
        "key=a%2Bb                          | a+b",
        "key=%C3%A9                         | é",
        "key=%F0%9F%98%80                   | \uD83D\uDE00",
        "ke%79=x                            | x",
        "&key=x&                            | x",
        "key=                               | ``",
        "key                                | ``"})
    void aQueryReadsExactly(String query, String key) {
        assertThat(ExactParameters.query(HttpRequest.GET("/r?" + query), "key")).isEqualTo(Map.of("key", key));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "key=a&key=b          | key: given 2 times; send it once",
        "key=a&ke%79=b&key=c  | key: given 3 times; send it once",
        "key=%ED%A0%80        | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "key=%ED%B0%80        | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "key=%FF              | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "key=%C0%AF           | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "key=%E9              | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "key=%F4%90%80%80     | key: is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "kye=x                | 'kye': not a parameter of this resource (it takes key)",
        "k%FF=x               | a query parameter's name is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)",
        "%FF%FE=x             | a query parameter's name is not valid UTF-8 once percent-decoded (an invalid or overlong byte sequence, or an encoded surrogate)"})
    void aQueryThatIsNotExactIsRefusedNamingTheParameterNeverTheValue(String query, String message) {
        assertThatThrownBy(() -> ExactParameters.query(HttpRequest.GET("/r?" + query), "key"))
                .isInstanceOf(ExactParameters.Refused.class).hasMessage(message);
    }

    /** What Micronaut's URI parsing lets through is checked above; these it refuses first (400), and so does this. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "abc%ZZ | holds a '%' not followed by two hex digits",
        "%4     | holds a '%' not followed by two hex digits",
        "%٣٣    | holds a '%' not followed by two hex digits",
        "ab%    | holds a '%' not followed by two hex digits",
        "é      | holds a character that must be percent-encoded (as UTF-8)",
        "a\tb   | holds a character that must be percent-encoded (as UTF-8)"})
    void rawTextThatIsNotPercentEncodingIsRefused(String raw, String message) {
        assertThatThrownBy(() -> ExactParameters.decode(raw, true)).isInstanceOf(ExactParameters.Refused.class)
                .hasMessage(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"a+b | a+b", "a%2Fb | a/b", "%E2%82%AC | €"})
    void inAPathAPlusIsItself(String raw, String decoded) {
        assertThat(ExactParameters.decode(raw, false)).isEqualTo(decoded);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"x=1", "key=a&x=1"})
    void aResourceThatTakesNoParameterRefusesAny(String query) {
        assertThatThrownBy(() -> ExactParameters.query(HttpRequest.GET("/r?" + query)))
                .isInstanceOf(ExactParameters.Refused.class)
                .hasMessageEndingWith(": not a parameter of this resource (it takes none)");
    }
}
