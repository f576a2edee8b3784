package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.http.server.HttpServerConfiguration;
import io.micronaut.http.server.netty.configuration.NettyHttpServerConfiguration;
import io.micronaut.http.server.netty.configuration.NettyHttpServerConfiguration.NettyListenerConfiguration;
import io.micronaut.http.ssl.ServerSslConfiguration;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Gives the service two listeners: the public one ({@code micronaut.server.host} / {@code micronaut.server.port},
 * or the TLS port when {@code micronaut.server.ssl.enabled}), which serves the application's routes, and the
 * internal one ({@code gridlimit.decision-api.host} / {@code gridlimit.decision-api.port}, plain HTTP), which serves
 * only routes bound to its port: the decision API ({@code @Controller(port = ...)}) and the management endpoints
 * ({@link ManagementPort}). Neither answers the other's routes (Micronaut's router restricts routes without a port to
 * listeners that expose default routes; the internal listener does not).
 *
 * <p>Micronaut opens a port named by a route on {@code micronaut.server.host}, the public address; to bind the
 * internal port to its own address (loopback by default) the listeners are written here, before the server is
 * created, as {@code micronaut.server.netty.listeners.*} would write them.
 *
 * <p>Boot stops ({@link ConfigurationException}) when the internal port equals the public port (everything would be
 * public), or when {@code micronaut.server.netty.listeners} is configured by hand without a listener on the internal
 * port (the decision API would be unreachable). Hand-written listeners are otherwise used as written.
 */
@Singleton
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class InternalListener implements BeanCreatedEventListener<NettyHttpServerConfiguration> {
    private static final Logger LOG = LoggerFactory.getLogger(InternalListener.class);

    private final DecisionApiSettings settings;

    /** @param settings the checked {@code gridlimit.decision-api.*} values */
    public InternalListener(DecisionApiSettings settings) {
        this.settings = settings;
    }

    /**
     * Writes the public and internal listeners into the server configuration.
     *
     * @param event the created server configuration
     * @return the same configuration, with its listeners set
     * @throws ConfigurationException if the internal port equals the public port, or hand-written listeners lack it
     */
    @Override
    public NettyHttpServerConfiguration onCreated(BeanCreatedEvent<NettyHttpServerConfiguration> event) {
        NettyHttpServerConfiguration server = event.getBean();
        List<NettyListenerConfiguration> written = server.getListeners();
        if (written != null) {
            if (written.stream().noneMatch(l -> l.getPort() == settings.port())) {
                throw new ConfigurationException("Invalid GridLimit configuration: " + DecisionApiSettings.PORT_PROPERTY
                        + ": no listener in micronaut.server.netty.listeners opens port " + settings.port()
                        + "; add one (with expose-default-routes: false) or remove the listeners");
            }
            return server;
        }
        List<NettyListenerConfiguration> listeners = publicListeners(server, event.getSource());
        for (NettyListenerConfiguration pub : listeners) {
            if (pub.getPort() == settings.port()) {
                throw new ConfigurationException("Invalid GridLimit configuration: " + DecisionApiSettings.PORT_PROPERTY
                        + ": '" + settings.port() + "' is also the public port (micronaut.server.port or"
                        + " micronaut.server.ssl.port); the decision API and the management endpoints need a port"
                        + " of their own");
            }
        }
        NettyListenerConfiguration internal = NettyListenerConfiguration.createTcp(settings.host(), settings.port(),
                false, null, null);
        internal.setExposeDefaultRoutes(false);
        listeners.add(internal);
        server.setListeners(listeners);
        if (settings.loopbackOnly()) {
            LOG.info("decision API and management endpoints on {}:{} only", settings.host(), settings.port());
        } else {
            LOG.info("decision API and management endpoints on {}:{} ({}): reachable from the network; keep it"
                            + " behind a network policy{}", settings.host(), settings.port(),
                    DecisionApiSettings.HOST_PROPERTY, settings.token().isPresent() ? ""
                            : " (no " + DecisionApiSettings.TOKEN_PROPERTY + " set)");
        }
        return server;
    }

    /** The listeners Micronaut would open by itself for the application's routes. */
    private static List<NettyListenerConfiguration> publicListeners(HttpServerConfiguration server,
                                                                    BeanContext context) {
        String host = server.getHost().orElse(null);
        List<NettyListenerConfiguration> listeners = new ArrayList<>(2);
        Optional<ServerSslConfiguration> ssl = context.findBean(ServerSslConfiguration.class)
                .filter(ServerSslConfiguration::isEnabled);
        if (ssl.isPresent()) {
            listeners.add(NettyListenerConfiguration.createTcp(host, ssl.get().getPort(), true,
                    ssl.get().getKeyName(), ssl.get().getTrustName()));
            if (server.isDualProtocol()) {
                listeners.add(NettyListenerConfiguration.createTcp(host, httpPort(server, context), false, null,
                        null));
            }
        } else {
            listeners.add(NettyListenerConfiguration.createTcp(host, httpPort(server, context), false, null, null));
        }
        return listeners;
    }

    /** {@code micronaut.server.port}, or Micronaut's default: a random port in the test environment, else 8080. */
    private static int httpPort(HttpServerConfiguration server, BeanContext context) {
        boolean test = context instanceof io.micronaut.context.ApplicationContext app
                && app.getEnvironment().getActiveNames().contains(Environment.TEST);
        return server.getPort().orElse(test ? HttpServerConfiguration.DEFAULT_RANDOM_PORT
                : HttpServerConfiguration.DEFAULT_PORT);
    }
}
