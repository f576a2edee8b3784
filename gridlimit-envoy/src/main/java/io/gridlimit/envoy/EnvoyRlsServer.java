package io.gridlimit.envoy;

import io.gridlimit.api.Policy;
import io.gridlimit.api.RateLimiter;
import io.gridlimit.envoy.config.RlsRule;
import io.gridlimit.grid.GridOperations;
import io.gridlimit.local.LocalRateLimiter;
import io.gridlimit.micronaut.config.FailureMode;
import io.gridlimit.micronaut.config.GridLimitConfig;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micronaut.context.annotation.Requires;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Opens the gRPC port of {@link EnvoyRateLimitService} on {@code gridlimit.envoy-rls.host:port} once the context
 * has started (after the grid joined and warmed up), and closes it with the context. grpc-java's Netty transport
 * (shaded, so Micronaut's Netty is untouched) runs the handler on its event loops directly: the handler never
 * blocks. A port that cannot be bound stops the boot naming the property. A request message above 4 MiB (grpc-java's
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

    private final EnvoyRlsSettings settings;
    private final EnvoyRateLimitService service;
    private final RateLimiter limiter;
    private final GridLimitConfig config;
    private volatile Server server;

    /**
     * @param settings the checked settings
     * @param service the service to serve
     * @param limiter the application's limiter (its policies' maps are created before the port opens)
     * @param config the checked configuration (failure mode and the local share divisor)
     */
    public EnvoyRlsServer(EnvoyRlsSettings settings, EnvoyRateLimitService service, RateLimiter limiter,
                          GridLimitConfig config) {
        this.settings = settings;
        this.service = service;
        this.limiter = limiter;
        this.config = config;
    }

    /**
     * Opens the port.
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
        List<Policy> policies = settings.rules().policies();
        GridOperations.of(limiter).ifPresent(grid -> {
            for (Policy p : policies) {
                try {
                    grid.localOwnedKeyCount(p.name()); // creates the map proxy now, never on an event loop
                } catch (RuntimeException e) {
                    LOG.warn("could not prepare the map of policy '{}': {}", p.name(), e.toString());
                }
            }
        });
        if (config.failureMode() == FailureMode.LOCAL) {
            List<String> none = new ArrayList<>();
            for (RlsRule r : settings.rules().rules()) {
                if (r.policy() != null && LocalRateLimiter.share(r.policy(), config.local().expectedReplicas())
                        .isEmpty()) {
                    none.add(r.domain() + ": " + r.path());
                }
            }
            if (!none.isEmpty()) {
                LOG.warn("Envoy rules {} have a limit too small to divide by gridlimit.local.expected-replicas={}: "
                        + "while the grid does not answer, their calls get UNAVAILABLE (as failure-mode closed)",
                        none, config.local().expectedReplicas());
            }
        }
        DEFRAME_FAILURES.setLevel(java.util.logging.Level.SEVERE);
        try {
            server = NettyServerBuilder.forAddress(new InetSocketAddress(settings.host(), settings.port()))
                    .directExecutor()
                    .addService(service.strictDefinition())
                    .build()
                    .start();
        } catch (IOException e) {
            throw new ConfigurationException("Invalid GridLimit configuration: " + EnvoyRlsSettings.PORT_PROPERTY
                    + ": cannot listen on " + settings.host() + ":" + settings.port() + " (" + e.getMessage() + ")",
                    e);
        }
        LOG.info("Envoy rate limit service (gRPC) on {}:{}{}: {} domain(s), {} rule(s)", settings.host(),
                settings.port(), settings.loopbackOnly() ? " only" : ", reachable from the network; keep it behind"
                        + " a network policy", settings.rules().domains().size(), settings.rules().rules().size());
    }

    /** @return the port the service listens on, or -1 before it started */
    public int port() {
        Server s = server;
        return s == null ? -1 : s.getPort();
    }

    /** Closes the port: no new calls, calls in flight get 5 s to finish. */
    @PreDestroy
    public synchronized void close() {
        Server s = server;
        server = null;
        if (s == null) {
            return;
        }
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
