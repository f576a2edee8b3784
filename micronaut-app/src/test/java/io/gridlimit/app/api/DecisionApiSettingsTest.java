package io.gridlimit.app.api;

import io.gridlimit.app.support.ServiceProperties;
import io.gridlimit.micronaut.support.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code gridlimit.decision-api.*} is checked when the service boots: a bad value stops the boot with one message
 * naming the path and the value (a token by its length only, never its value), before any port opens; never a 500
 * at the first API request, never a private endpoint on the public port.
 */
class DecisionApiSettingsTest {
    private static final String INVALID = "Invalid GridLimit configuration: ";

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "timeout | 0s    | gridlimit.decision-api.timeout: '0s' is out of range [1ms, 1h]",
            "timeout | -1s   | gridlimit.decision-api.timeout: '-1s' is not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)",
            "timeout | 2h    | gridlimit.decision-api.timeout: '2h' is out of range [1ms, 1h]",
            "timeout | PT0S  | gridlimit.decision-api.timeout: 'PT0S' is out of range [1ms, 1h]",
            "timeout | soon  | gridlimit.decision-api.timeout: 'soon' is not a duration (write e.g. 100ms, 10s, 5m, 1h, 1d or PT10S)",
            "port    | 0     | gridlimit.decision-api.port: '0' is not a port in [1, 65535]",
            "port    | -1    | gridlimit.decision-api.port: '-1' is not a port in [1, 65535]",
            "port    | 65536 | gridlimit.decision-api.port: '65536' is not a port in [1, 65535]",
            "port    | 99999999999 | gridlimit.decision-api.port: '99999999999' is not a port in [1, 65535]",
            "port    | 80a   | gridlimit.decision-api.port: '80a' is not a port in [1, 65535]",
            "host    | localhost | gridlimit.decision-api.host: 'localhost' is not an IP address literal (write e.g. 127.0.0.1, ::1 or 0.0.0.0)",
            "host    | 10.0.0.0/8 | gridlimit.decision-api.host: '10.0.0.0/8' is not an IP address literal (write e.g. 127.0.0.1, ::1 or 0.0.0.0)",
            "host    | 127.1 | gridlimit.decision-api.host: '127.1' is not an IP address literal (write e.g. 127.0.0.1, ::1 or 0.0.0.0)",
            "host    | *     | gridlimit.decision-api.host: '*' is not an IP address literal (write e.g. 127.0.0.1, ::1 or 0.0.0.0)",
            "token   | short-secret | gridlimit.decision-api.token: is 12 characters long; at least 16 are needed (value not shown)",
            "token   | 'sixteen chars!!!' | gridlimit.decision-api.token: holds characters a bearer token cannot carry (RFC 6750: letters, digits, - . _ ~ + / and trailing =; value not shown)"})
    void aBadValueStopsTheBoot(String key, String value, String message) {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put("gridlimit.decision-api." + key, value);
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e)).hasMessage(INVALID + message));
        if (key.equals("token")) {
            assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                    .satisfies(e -> assertThat(allMessages(e)).doesNotContain(value));
        }
    }

    @Test
    void aBlankTokenStopsTheBootWithoutShowingIt() {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(DecisionApiSettings.TOKEN_PROPERTY, "   ");
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e)).hasMessage(INVALID
                        + "gridlimit.decision-api.token: is blank; remove the property or set a secret of at least"
                        + " 16 characters"));
    }

    @Test
    void theInternalPortEqualToThePublicPortStopsTheBoot() {
        int port = Ports.freePort();
        Map<String, Object> p = ServiceProperties.standalone();
        p.put("micronaut.server.port", port);
        p.put(DecisionApiSettings.PORT_PROPERTY, port);
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e)).hasMessage(INVALID
                        + "gridlimit.decision-api.port: '" + port + "' is also the public port (micronaut.server.port"
                        + " or micronaut.server.ssl.port); the decision API and the management endpoints need a port"
                        + " of their own"));
    }

    @Test
    void anotherManagementPortStopsTheBoot() {
        Map<String, Object> p = ServiceProperties.standalone();
        int internal = (Integer) p.get(DecisionApiSettings.PORT_PROPERTY);
        int other = Ports.freePort();
        p.put("endpoints.all.port", other);
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e)).hasMessage(INVALID
                        + "endpoints.all.port: '" + other + "' differs from gridlimit.decision-api.port (" + internal
                        + "); the management endpoints are served on the internal port only: remove"
                        + " endpoints.all.port or set the same value"));
    }

    @Test
    void handWrittenListenersWithoutTheInternalPortStopTheBoot() {
        Map<String, Object> p = ServiceProperties.standalone();
        int internal = (Integer) p.get(DecisionApiSettings.PORT_PROPERTY);
        p.put("micronaut.server.netty.listeners.web.port", Ports.freePort());
        assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, p).close())
                .satisfies(e -> assertThat(rootConfigurationError(e)).hasMessage(INVALID
                        + "gridlimit.decision-api.port: no listener in micronaut.server.netty.listeners opens port "
                        + internal + "; add one (with expose-default-routes: false) or remove the listeners"));
    }

    @Test
    void valuesAreReadAndDefaultToTheInternalLoopbackPort() {
        DecisionApiSettings defaults = settings(null, null, null, null);
        assertThat(defaults.port()).isEqualTo(8081);
        assertThat(defaults.host()).isEqualTo("127.0.0.1");
        assertThat(defaults.loopbackOnly()).isTrue();
        assertThat(defaults.token()).isEmpty();
        assertThat(defaults.timeout()).isEqualTo(Duration.ofSeconds(1));

        DecisionApiSettings set = settings("9091", "0.0.0.0", "0123456789abcdef", "250ms");
        assertThat(set.port()).isEqualTo(9091);
        assertThat(set.host()).isEqualTo("0.0.0.0");
        assertThat(set.loopbackOnly()).isFalse();
        assertThat(set.token()).hasValueSatisfying(t -> assertThat(new String(t, StandardCharsets.UTF_8))
                .isEqualTo("0123456789abcdef"));
        assertThat(set.timeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings(null, "::1", null, "PT2S").loopbackOnly()).isTrue();
        assertThat(settings(null, "::", null, null).host()).isEqualTo("::");
    }

    private static DecisionApiSettings settings(String port, String host, String token, String timeout) {
        DecisionApiProperties p = new DecisionApiProperties();
        p.setPort(port);
        p.setHost(host);
        p.setToken(token);
        p.setTimeout(timeout);
        return new DecisionApiSettings(p);
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

    private static String allMessages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append('\n');
        }
        return all.toString();
    }
}
