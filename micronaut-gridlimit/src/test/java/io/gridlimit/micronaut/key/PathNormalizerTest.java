package io.gridlimit.micronaut.key;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** SPEC §7 path normalisation. */
class PathNormalizerTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "/demo/hello|/demo/hello",
        "/demo/hello/|/demo/hello",
        "//demo/hello|/demo/hello",
        "/demo//hello//|/demo/hello",
        "/demo/%68ello|/demo/hello",
        "/demo/%68%65llo|/demo/hello",
        "/%64emo/hello|/demo/hello",
        "/demo/./hello|/demo/hello",
        "/demo/x/../hello|/demo/hello",
        "/demo/%2E/hello|/demo/hello",
        "/demo/%2e%2e/demo/hello|/demo/hello",
        "/../demo/hello|/demo/hello",
        "/demo/%7Ehome|/demo/~home",
        "/demo/a%2fb|/demo/a%2Fb",
        "/demo/a%20b|/demo/a%20b",
        "/demo/100%|/demo/100%",
        "/demo/%zz|/demo/%zz",
        "/|/",
        "//|/",
        "''|/",
        "/Demo/Hello|/Demo/Hello"
    })
    void normalises(String raw, String expected) {
        assertThat(PathNormalizer.normalize(raw)).isEqualTo(expected);
    }
}
