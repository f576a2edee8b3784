package io.gridlimit.app.api;

import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.management.endpoint.EndpointDefaultConfiguration;
import jakarta.inject.Singleton;

/**
 * Puts the management endpoints ({@code /health/**}, {@code /prometheus}) on the internal port: Micronaut's
 * {@code endpoints.all.port} takes the value of {@code gridlimit.decision-api.port}, so the public port answers
 * 404 for them. One source for the port: writing {@code endpoints.all.port} by hand is allowed only with that same
 * value; any other value stops the boot naming both properties (the endpoints would land on a port that is either
 * public or not opened at all).
 */
@Singleton
@Requires(property = ServiceBeans.ENABLED, value = "true")
public class ManagementPort implements BeanCreatedEventListener<EndpointDefaultConfiguration> {
    /** Micronaut's property for the management endpoints' port. */
    public static final String ENDPOINTS_PORT_PROPERTY = EndpointDefaultConfiguration.PREFIX + ".port";

    private final DecisionApiSettings settings;

    /** @param settings the checked {@code gridlimit.decision-api.*} values */
    public ManagementPort(DecisionApiSettings settings) {
        this.settings = settings;
    }

    /**
     * Sets {@code endpoints.all.port} to the internal port.
     *
     * @param event the created endpoint defaults
     * @return the same defaults, their port set
     * @throws ConfigurationException if {@code endpoints.all.port} is set to another port
     */
    @Override
    public EndpointDefaultConfiguration onCreated(BeanCreatedEvent<EndpointDefaultConfiguration> event) {
        EndpointDefaultConfiguration endpoints = event.getBean();
        endpoints.getPort().filter(p -> p != settings.port()).ifPresent(p -> {
            throw new ConfigurationException("Invalid GridLimit configuration: " + ENDPOINTS_PORT_PROPERTY + ": '"
                    + p + "' differs from " + DecisionApiSettings.PORT_PROPERTY + " (" + settings.port()
                    + "); the management endpoints are served on the internal port only: remove "
                    + ENDPOINTS_PORT_PROPERTY + " or set the same value");
        });
        endpoints.setPort(settings.port());
        return endpoints;
    }
}
