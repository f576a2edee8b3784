package io.gridlimit.app.api;

import io.gridlimit.api.Policy;
import io.gridlimit.micronaut.PolicyRegistry;
import io.micronaut.http.HttpStatus;
import io.micronaut.json.tree.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Validation of decision API bodies, without a server: exact statuses and messages, nothing decided. */
class CheckRequestsTest {
    private static final Policy DEMO = Policy.builder("demo").slidingWindowLog(5, Duration.ofSeconds(10)).build();
    private static final PolicyRegistry REGISTRY = new PolicyRegistry() {
        @Override
        public Optional<Policy> find(String name) {
            return "demo".equals(name) ? Optional.of(DEMO) : Optional.empty();
        }

        @Override
        public Collection<Policy> all() {
            return List.of(DEMO);
        }

        @Override
        public boolean isShadow(String name) {
            return false;
        }
    };

    private static JsonNode json(String text) throws IOException {
        try {
            return StrictJson.parse(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (InvalidCheckException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static void assertSingleRejected(String body, HttpStatus status, String detail) throws IOException {
        JsonNode root = body == null ? null : json(body);
        InvalidCheckException e = catchThrowableOfType(InvalidCheckException.class,
                () -> CheckRequests.single(root, REGISTRY));
        assertThat((Object) e).as(body).isNotNull();
        assertThat(e.status().getCode()).as(body).isEqualTo(status.getCode());
        assertThat(e.getMessage()).as(body).isEqualTo(detail);
    }

    private static void assertBatchRejected(String body, int max, HttpStatus status, String detail)
            throws IOException {
        JsonNode root = json(body);
        InvalidCheckException e = catchThrowableOfType(InvalidCheckException.class,
                () -> CheckRequests.batch(root, REGISTRY, max));
        assertThat((Object) e).as(body).isNotNull();
        assertThat(e.status().getCode()).as(body).isEqualTo(status.getCode());
        assertThat(e.getMessage()).as(body).isEqualTo(detail);
    }

    @Test
    void validCheckDefaultsCostToOne() throws Exception {
        assertThat(CheckRequests.single(json("{\"policy\":\"demo\",\"key\":\"user:42\"}"), REGISTRY))
                .isEqualTo(new CheckRequests.Check(DEMO, "user:42", 1));
        assertThat(CheckRequests.single(json("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":null}"), REGISTRY))
                .isEqualTo(new CheckRequests.Check(DEMO, "k", 1));
        assertThat(CheckRequests.single(json("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1000000000000000}"),
                REGISTRY)).isEqualTo(new CheckRequests.Check(DEMO, "k", 1_000_000_000_000_000L));
    }

    @Test
    void aMemberTheShapeDoesNotNameIsRefused() {
        InvalidCheckException e = catchThrowableOfType(InvalidCheckException.class, () -> CheckRequests.single(
                json("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1,\"extra\":true}"), REGISTRY));
        assertThat(e.status().getCode()).isEqualTo(400);
        assertThat(e.getMessage()).isEqualTo("extra: unknown member (known: policy, key, cost, reserve)");
    }

    @Test
    void keyOfExactly1024Utf8BytesIsAccepted() throws Exception {
        String key = "é".repeat(512); // 2 bytes each
        assertThat(CheckRequests.single(json("{\"policy\":\"demo\",\"key\":\"" + key + "\"}"), REGISTRY).key())
                .isEqualTo(key);
    }

    @Test
    void malformedChecksAre400NamingTheMember() throws Exception {
        String cost = "cost must be an integer in [1, 1000000000000000], got ";
        assertSingleRejected(null, HttpStatus.BAD_REQUEST,
                "the request body must be a JSON object {\"policy\": string, \"key\": string, \"cost\": integer}");
        assertSingleRejected("[1]", HttpStatus.BAD_REQUEST,
                "the request body must be a JSON object {\"policy\": string, \"key\": string, \"cost\": integer}");
        assertSingleRejected("{\"key\":\"k\"}", HttpStatus.BAD_REQUEST, "policy is required");
        assertSingleRejected("{\"policy\":\"\",\"key\":\"k\"}", HttpStatus.BAD_REQUEST,
                "policy must be a non-empty string");
        assertSingleRejected("{\"policy\":7,\"key\":\"k\"}", HttpStatus.BAD_REQUEST,
                "policy must be a non-empty string");
        assertSingleRejected("{\"policy\":\"demo\"}", HttpStatus.BAD_REQUEST, "key is required");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"\"}", HttpStatus.BAD_REQUEST, "key must not be empty");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":12}", HttpStatus.BAD_REQUEST, "key must be a string");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"" + "é".repeat(512) + "x\"}", HttpStatus.BAD_REQUEST,
                "key must be at most 1024 UTF-8 bytes, got 1025 bytes");
        // a lone surrogate (the JSON escape of U+D800) would share a state with "sur?": refused, the key never quoted
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"sur\\ud800\"}", HttpStatus.BAD_REQUEST,
                "key must be well-formed UTF-16: a lone surrogate at index 3 has no UTF-8 form");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"sur\\udc00\"}", HttpStatus.BAD_REQUEST,
                "key must be well-formed UTF-16: a lone surrogate at index 3 has no UTF-8 form");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":0}", HttpStatus.BAD_REQUEST, cost + "0");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":-3}", HttpStatus.BAD_REQUEST, cost + "-3");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1000000000000001}",
                HttpStatus.BAD_REQUEST, cost + "1000000000000001");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":100000000000000000000}",
                HttpStatus.BAD_REQUEST, cost + "100000000000000000000");
        String literal = "cost must be an integer in [1, 1000000000000000] written as a JSON integer, got ";
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1.5}", HttpStatus.BAD_REQUEST,
                literal + "1.5");
        // Fractions and exponents are refused even when their value is integral: the literal is not an integer.
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":3.0}", HttpStatus.BAD_REQUEST,
                literal + "3.0");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1e3}", HttpStatus.BAD_REQUEST,
                literal + "1E+3");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":1.00000000000000000001}",
                HttpStatus.BAD_REQUEST, literal + "1.00000000000000000001");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":\"2\"}", HttpStatus.BAD_REQUEST,
                cost + "a string");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":true}", HttpStatus.BAD_REQUEST,
                cost + "a boolean");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":[2]}", HttpStatus.BAD_REQUEST,
                cost + "an array");
        assertSingleRejected("{\"policy\":\"demo\",\"key\":\"k\",\"cost\":{\"n\":2}}", HttpStatus.BAD_REQUEST,
                cost + "an object");
    }

    @Test
    void unknownPolicyIs404AndOnlyValidNamesAreQuoted() throws Exception {
        assertSingleRejected("{\"policy\":\"nope\",\"key\":\"k\"}", HttpStatus.NOT_FOUND,
                "policy 'nope' is not a configured policy");
        assertSingleRejected("{\"policy\":\"<script>\",\"key\":\"k\"}", HttpStatus.NOT_FOUND,
                "policy (not a valid policy name) is not a configured policy");
    }

    @Test
    void aMalformedCheckIsReportedBeforeAnUnknownPolicyOfTheSameCheck() throws Exception {
        assertSingleRejected("{\"policy\":\"nope\",\"key\":\"\"}", HttpStatus.BAD_REQUEST, "key must not be empty");
    }

    @Test
    void batchKeepsOrder() throws Exception {
        List<CheckRequests.Check> checks = CheckRequests.batch(json("{\"checks\":["
                + "{\"policy\":\"demo\",\"key\":\"a\"},{\"policy\":\"demo\",\"key\":\"b\",\"cost\":2}]}"), REGISTRY, 100);
        assertThat(checks).containsExactly(new CheckRequests.Check(DEMO, "a", 1), new CheckRequests.Check(DEMO, "b", 2));
    }

    @Test
    void batchNamesTheFirstInvalidIndex() throws Exception {
        String ok = "{\"policy\":\"demo\",\"key\":\"a\"}";
        assertBatchRejected("{\"checks\":[" + ok + ",{\"policy\":\"demo\",\"key\":\"\"}]}", 100,
                HttpStatus.BAD_REQUEST, "checks[1].key must not be empty");
        assertBatchRejected("{\"checks\":[" + ok + "," + ok + ",{\"policy\":\"nope\",\"key\":\"a\"},"
                        + "{\"policy\":\"demo\"}]}", 100,
                HttpStatus.NOT_FOUND, "checks[2].policy 'nope' is not a configured policy");
        assertBatchRejected("{\"checks\":[" + ok + ",{\"policy\":\"demo\",\"key\":\"a\",\"cost\":2.0}]}", 100,
                HttpStatus.BAD_REQUEST,
                "checks[1].cost must be an integer in [1, 1000000000000000] written as a JSON integer, got 2.0");
        assertBatchRejected("{\"checks\":[" + ok + ",{\"policy\":\"demo\",\"key\":\"a\",\"cost\":0}]}", 100,
                HttpStatus.BAD_REQUEST, "checks[1].cost must be an integer in [1, 1000000000000000], got 0");
        assertBatchRejected("{\"checks\":[" + ok + ",null]}", 100, HttpStatus.BAD_REQUEST,
                "checks[1] must be a JSON object {\"policy\": string, \"key\": string, \"cost\": integer}");
    }

    @Test
    void batchSizeIsBounded() throws Exception {
        String ok = "{\"policy\":\"demo\",\"key\":\"a\"}";
        assertBatchRejected("{\"checks\":[]}", 2, HttpStatus.BAD_REQUEST, "checks must hold 1 to 2 checks, got 0");
        assertBatchRejected("{\"checks\":[" + ok + "," + ok + "," + ok + "]}", 2, HttpStatus.BAD_REQUEST,
                "checks must hold 1 to 2 checks, got 3");
        assertBatchRejected("{}", 2, HttpStatus.BAD_REQUEST,
                "checks must be an array of 1 to 2 checks {\"policy\": string, \"key\": string, \"cost\": integer}");
        assertThat(CheckRequests.batch(json("{\"checks\":[" + ok + "," + ok + "]}"), REGISTRY, 2)).hasSize(2);
    }
}
