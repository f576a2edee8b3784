package io.gridlimit.envoy.config;

import io.micronaut.context.exceptions.ConfigurationException;

/** An envoyproxy/ratelimit configuration GridLimit refuses; the message names each file, domain and descriptor. */
public final class RlsConfigException extends ConfigurationException {
    /** @param message every problem, joined with {@code ; } */
    public RlsConfigException(String message) {
        super(message);
    }
}
