package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;

/**
 * The raw settings under {@code gridlimit.decision-api}, bound by Micronaut (YAML, environment variables such as
 * {@code GRIDLIMIT_DECISION_API_HOST}, system properties). Bound as text on purpose, like the library's settings:
 * {@link DecisionApiSettings} converts and checks each value and stops the boot with a message naming the property
 * and the value (never the token's value). Read the checked values from {@link DecisionApiSettings}, never from this
 * class.
 *
 * <pre>
 * gridlimit:
 *   decision-api:
 *     port: 8081        # the internal port: decision API and management endpoints, nothing else
 *     host: 127.0.0.1   # the address it binds; 0.0.0.0 only behind a network policy
 *     token:            # optional shared secret: /v1/** then requires Authorization: Bearer &lt;token&gt;
 *     timeout: 1s       # how long a decision waits for the grid
 * </pre>
 */
@ConfigurationProperties(DecisionApiProperties.PREFIX)
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class DecisionApiProperties {
    /** The prefix of every decision-API property. */
    public static final String PREFIX = "gridlimit.decision-api";

    private String port;
    private String host;
    private String token;
    private String timeout;

    /** @return {@code gridlimit.decision-api.port} as written, or null when unset */
    public @Nullable String getPort() {
        return port;
    }

    /** @param port the internal port, in [1, 65535] */
    public void setPort(@Nullable String port) {
        this.port = port;
    }

    /** @return {@code gridlimit.decision-api.host} as written, or null when unset */
    public @Nullable String getHost() {
        return host;
    }

    /** @param host the IP address the internal port binds */
    public void setHost(@Nullable String host) {
        this.host = host;
    }

    /** @return {@code gridlimit.decision-api.token} as written, or null when unset */
    public @Nullable String getToken() {
        return token;
    }

    /** @param token the shared secret callers of {@code /v1/**} send as a bearer token */
    public void setToken(@Nullable String token) {
        this.token = token;
    }

    /** @return {@code gridlimit.decision-api.timeout} as written, or null when unset */
    public @Nullable String getTimeout() {
        return timeout;
    }

    /** @param timeout how long a decision waits for the grid, e.g. {@code 1s} */
    public void setTimeout(@Nullable String timeout) {
        this.timeout = timeout;
    }
}
