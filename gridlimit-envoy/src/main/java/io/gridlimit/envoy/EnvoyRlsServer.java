package io.gridlimit.envoy;

import io.gridlimit.envoy.config.RlsConfig;
import io.gridlimit.envoy.config.RlsFiles;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.ShutdownEvent;
import io.micronaut.context.event.StartupEvent;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Order;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Opens the gRPC port of {@link EnvoyRateLimitService} on {@code gridlimit.envoy-rls.host:port} once the context
 * has started (after the grid joined and warmed up), and closes it with the context. grpc-java's Netty transport
 * (shaded, so Micronaut's Netty is untouched) runs the handler on its event loops directly: the handler never
 * blocks. The same port serves {@code grpc.health.v1.Health} (grpc-java's {@link HealthStatusManager}): the names
 * {@code ""} and {@value #HEALTH_SERVICE} are SERVING once the port is open, and NOT_SERVING from the start of the
 * shutdown, before the port closes (docs/SPEC.md §12, "Health"). A port that cannot be bound stops the boot naming
 * the property. A request message above 4 MiB (grpc-java's
 * default maximum) is answered {@code RESOURCE_EXHAUSTED} and logged by nobody: what a client sends never floods
 * the log.
 */
@Singleton
@Requires(condition = EnvoyRlsEnabled.class)
public class EnvoyRlsServer {
    private static final Logger LOG = LoggerFactory.getLogger(EnvoyRlsServer.class);
    /**
     * grpc-java's logger of a message it cannot deframe (one above the maximum size): it logs a WARNING with a stack
     * trace for every such message, which any client could repeat to flood the log; the client already gets
     * {@code RESOURCE_EXHAUSTED}. Held here so the level set on it is not collected with the logger.
     */
    private static final java.util.logging.Logger DEFRAME_FAILURES =
            java.util.logging.Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerStream");

    /** The gRPC health service name that stands for this service, as envoyproxy/ratelimit registers it. */
    public static final String HEALTH_SERVICE = "ratelimit";

    private final EnvoyRlsSettings settings;
    private final EnvoyRateLimitService service;
    private final EnvoyRlsRules rules;
    private final HealthStatusManager health = new HealthStatusManager();
    private volatile Server server;

    /**
     * @param settings the checked settings
     * @param service the service to serve
     * @param rules the rules in force (their policies' maps are created before the port opens) and their reload
     */
    public EnvoyRlsServer(EnvoyRlsSettings settings, EnvoyRateLimitService service, EnvoyRlsRules rules) {
        this.settings = settings;
        this.service = service;
        this.rules = rules;
    }

    /**
     * Opens the port with {@code ShouldRateLimit} and {@code grpc.health.v1.Health} ({@code ""} and
     * {@value #HEALTH_SERVICE} SERVING from the moment it opens), then starts the reload check.
     *
     * @param event the startup event
     * @throws ConfigurationException when the address cannot be bound
     */
    @EventListener
    @Order(1000)
    public synchronized void onStartup(StartupEvent event) {
        if (server != null) {
            return;
        }
        RlsConfig boot = rules.current();
        rules.prepare(boot);
        DEFRAME_FAILURES.setLevel(java.util.logging.Level.SEVERE);
        health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
        health.setStatus(HEALTH_SERVICE, ServingStatus.SERVING);
        try {
            InetSocketAddress address = new InetSocketAddress(settings.host(), settings.port());
            RlsTls tls = settings.tls();
            server = (tls == null ? NettyServerBuilder.forAddress(address)
                    : NettyServerBuilder.forAddress(address, tls.credentials()))
                    .directExecutor()
                    .addService(service.strictDefinition())
                    .addService(health.getHealthService())
                    .build()
                    .start();
        } catch (IOException e) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + EnvoyRlsSettings.PORT_PROPERTY
                    + ": cannot listen on " + settings.host() + ":" + settings.port() + " (" + e.getMessage() + ")",
                    e);
        }
        RlsTls tls = settings.tls();
        rules.start(tls == null ? () -> { } : tls::check);
        LOG.info("Envoy rate limit service (gRPC{}) on {}:{}{}: {} domain(s), {} rule(s), configuration {}, {}",
                tls == null ? ", plaintext" : " over TLS", settings.host(), settings.port(), settings.loopbackOnly() ? " only"
                        : ", reachable from the network; keep it behind a network policy", boot.domains().size(),
                boot.rules().size(), RlsFiles.shortDigest(boot.digest()), settings.reloadInterval().isZero()
                        ? "not reloaded (" + EnvoyRlsSettings.RELOAD_INTERVAL_PROPERTY + ": 0)"
                        : "checked for changes every " + settings.reloadInterval().toMillis() + " ms");
    }

    /** @return the port the service listens on, or -1 before it started */
    public int port() {
        Server s = server;
        return s == null ? -1 : s.getPort();
    }

    /**
     * Turns health NOT_SERVING for both names as the context starts to stop, before any bean (the grid's included)
     * is destroyed, so health checkers stop sending calls while they can still be decided.
     *
     * @param event the shutdown event
     */
    @EventListener
    public void onShutdown(ShutdownEvent event) {
        health.enterTerminalState();
    }

    /**
     * Closes the port: health turns NOT_SERVING first (for both names, told to every open {@code Watch} while the
     * port is still open), the reload check stops, then no new calls are taken and calls in flight get 5 s to
     * finish.
     */
    @PreDestroy
    public synchronized void close() {
        Server s = server;
        server = null;
        if (s == null) {
            return;
        }
        health.enterTerminalState(); // NOT_SERVING for every name, and it stays so
        rules.close();
        s.shutdown();
        try {
            if (!s.awaitTermination(5, TimeUnit.SECONDS)) {
                s.shutdownNow();
            }
        } catch (InterruptedException e) {
            s.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
