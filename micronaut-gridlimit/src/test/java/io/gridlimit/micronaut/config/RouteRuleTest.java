package io.gridlimit.micronaut.config;

import io.gridlimit.api.Policy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Method matching of route rules: a method name's case never lets a request bypass a rule. */
class RouteRuleTest {
    private static final Policy DEMO = Policy.builder("demo").slidingWindowLog(5, Duration.ofSeconds(10)).build();

    private static RouteRule rule(Set<String> methods) {
        return new RouteRule("gridlimit.routes[0]", "/demo/hello", methods, DEMO, false,
                List.of(KeySource.parse("global")), 1, OnMissingKey.REJECT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "get", "Get", "gEt", "HEAD", "head"})
    void anyCaseOfAListedMethodMatches(String method) {
        assertThat(rule(Set.of("GET")).matches(method, "/demo/hello")).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "post", "PUT", "OPTIONS"})
    void otherMethodsDoNotMatch(String method) {
        assertThat(rule(Set.of("GET")).matches(method, "/demo/hello")).isFalse();
    }

    @Test
    void noMethodListMatchesEveryMethod() {
        assertThat(rule(Set.of()).matches("patch", "/demo/hello")).isTrue();
        assertThat(rule(Set.of()).matches("GET", "/demo/other")).isFalse();
    }
}
