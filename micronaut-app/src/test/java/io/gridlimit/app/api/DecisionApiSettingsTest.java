package io.gridlimit.app.api;

import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code gridlimit.decision-api.timeout} is checked when the service boots: a bad value stops the boot with one
 * message naming the path and the value, never a 500 at the first API request.
 */
class DecisionApiSettingsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0s    | gridlimit.decision-api.timeout: '0s' is out of range [1ms, 1h]",
            "-1s   | gridlimit.decision-api.timeout: '-1s' is not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)",
            "2h    | gridlimit.decision-api.timeout: '2h' is out of range [1ms, 1h]",
            "PT0S  | gridlimit.decision-api.timeout: 'PT0S' is out of range [1ms, 1h]",
            "soon  | gridlimit.decision-api.timeout: 'soon' is not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)"})
    void aBadTimeoutStopsTheBoot(String value, String message) {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(DecisionApiSettings.TIMEOUT_PROPERTY, value);
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e))
                        .hasMessage("Invalid GridLimit configuration: " + message));
    }

    @Test
    void theTimeoutIsReadAndDefaultsToOneSecond() {
        assertThat(new DecisionApiSettings("250ms").timeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(new DecisionApiSettings(null).timeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(new DecisionApiSettings("PT2S").timeout()).isEqualTo(Duration.ofSeconds(2));
    }

    private static Throwable rootConfigurationError(Throwable e) {
        Throwable found = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConfigurationException) {
                found = t;
            }
        }
        return found != null ? found : e;
    }
}
