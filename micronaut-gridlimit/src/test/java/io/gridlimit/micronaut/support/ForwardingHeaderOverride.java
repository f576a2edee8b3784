package io.gridlimit.micronaut.support;

import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.config.ForwardingHeader;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.filter.ClientIpResolver;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

/**
 * In contexts that set {@code gridlimit-test.client-ip-header=forwarded}, replaces the client IP resolver with one
 * that reads {@code Forwarded}: the same trusted proxies and prefix, that header. A stand-in until
 * {@code gridlimit.client-ip.header} is bound by the configuration (the tests set that property too); then this
 * class goes.
 */
@Factory
@Requires(property = "gridlimit-test.client-ip-header", value = "forwarded")
public class ForwardingHeaderOverride {
    /**
     * @param config the checked configuration
     * @param header {@code forwarded}
     * @return a resolver reading {@code Forwarded}
     */
    @Singleton
    @Replaces(ClientIpResolver.class)
    public ClientIpResolver forwardedResolver(GridLimitConfig config,
                                              @Value("${gridlimit-test.client-ip-header}") String header) {
        ClientIpSettings c = config.clientIp();
        return new ClientIpResolver(new ClientIpSettings(c.trustedProxies(), c.ipv6Prefix(),
                ForwardingHeader.valueOf(header.toUpperCase(java.util.Locale.ROOT))));
    }
}
