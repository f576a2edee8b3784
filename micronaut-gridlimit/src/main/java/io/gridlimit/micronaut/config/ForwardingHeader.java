package io.gridlimit.micronaut.config;

/**
 * The one forwarding header the trusted proxies write ({@code gridlimit.client-ip.header}, SPEC §6); the other is
 * ignored, so a client cannot pass its own copy of a header the proxy does not write.
 */
public enum ForwardingHeader {
    /** {@code X-Forwarded-For}: comma-separated addresses, the default. */
    X_FORWARDED_FOR("X-Forwarded-For"),
    /** {@code Forwarded} (RFC 7239): elements with {@code for=} parameters. */
    FORWARDED("Forwarded");

    private final String headerName;

    ForwardingHeader(String headerName) {
        this.headerName = headerName;
    }

    /** @return the HTTP header name, e.g. {@code X-Forwarded-For} */
    public String headerName() {
        return headerName;
    }
}
