package io.gridlimit.app.api;

import io.micronaut.json.tree.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link StrictJson}: exactly one JSON value, no duplicate members, number literals keep their kind. */
class StrictJsonTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            "`{\"policy\":\"demo\",\"key\":\"x\"} garbage` | the request body is not valid JSON",
            "`{\"policy\":\"demo\",\"key\":\"x\"} {}`      | the request body is not valid JSON: content after the JSON value",
            "`{\"policy\":\"demo\",\"key\":\"x\"}]`        | the request body is not valid JSON",
            "`{\"key\":\"a\",\"key\":\"b\"}`              | the request body is not valid JSON: duplicate member 'key'",
            "`{\"checks\":[{\"cost\":1,\"cost\":2}]}`     | the request body is not valid JSON: duplicate member 'cost'",
            "`{\"k y\":1,\"k y\":2}`                       | the request body is not valid JSON: duplicate member (a member name)",
            "`{\"policy\":`                                | the request body is not valid JSON",
            "`   `                                         | the request body is not valid JSON"})
    void malformedBodiesAreRefusedWithoutQuotingThem(String body, String message) {
        InvalidCheckException e = catchThrowableOfType(InvalidCheckException.class,
                () -> StrictJson.parse(body.getBytes(StandardCharsets.UTF_8)));
        assertThat((Object) e).as(body).isNotNull();
        assertThat(e.status().getCode()).isEqualTo(400);
        assertThat(e.getMessage()).isEqualTo(message);
    }

    @Test
    void numbersKeepTheKindOfTheirLiteral() throws Exception {
        JsonNode root = StrictJson.parse(("{\"a\":7,\"b\":100000000000000000000,\"c\":1.0,\"d\":1e3,"
                + "\"e\":1.00000000000000000001,\"f\":[true,null,\"s\"]}").getBytes(StandardCharsets.UTF_8));
        assertThat(root.get("a").getNumberValue()).isEqualTo(7L);
        assertThat(root.get("b").getNumberValue()).isEqualTo(new BigInteger("100000000000000000000"));
        assertThat(root.get("c").getNumberValue()).isEqualTo(new BigDecimal("1.0"));
        assertThat(root.get("d").getNumberValue()).isEqualTo(new BigDecimal("1e3"));
        assertThat(root.get("e").getNumberValue()).isEqualTo(new BigDecimal("1.00000000000000000001"));
        assertThat(root.get("f").size()).isEqualTo(3);
        assertThat(root.get("f").get(0).getBooleanValue()).isTrue();
        assertThat(root.get("f").get(1).isNull()).isTrue();
        assertThat(root.get("f").get(2).getStringValue()).isEqualTo("s");
    }
}
